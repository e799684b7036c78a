package bundletest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ErrRefused is wrapped by the errors of Info and Verify when rauc ran and
// refused the bundle: a bad or missing signature, a corrupted payload, an
// unreadable bundle. Other errors mean rauc could not be run.
var ErrRefused = errors.New("bundletest: rauc refused the bundle")

// Manifest is what rauc info reads from a bundle it has accepted.
type Manifest struct {
	Compatible string
	Version    string
	Images     []ImageInfo
}

// ImageInfo describes one image of a bundle.
type ImageInfo struct {
	Slot     string // slot class, such as "rootfs"
	Filename string
	Checksum string // SHA-256 of the image, hex
	Size     int64
}

// Info runs rauc info on bundle with keyring as the trusted CA file and
// returns the manifest when rauc accepts the signature. A refusal returns
// an error wrapping ErrRefused whose message ends with rauc's own.
//
// rauc info checks the signature only. For plain bundles the signature
// covers the whole payload; for verity bundles it covers the manifest and
// the hash tree's root, and a corrupted payload is found only when the
// bundle is installed or by Verify.
//
// It runs rauc with a minimal generated system.conf whose only setting
// that matters is the keyring, so a system.conf on the machine running the
// tests (check-purpose, bundle-formats) does not change the outcome.
func Info(ctx context.Context, bundle, keyring string) (Manifest, error) {
	out, err := runRauc(ctx, "info", keyring, "--output-format=json", bundle)
	if err != nil {
		return Manifest{}, fmt.Errorf("bundletest: rauc info %s: %w", bundle, err)
	}
	var raw struct {
		Compatible string
		Version    string
		Images     []map[string]struct {
			Filename string
			Checksum string
			Size     int64
		}
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return Manifest{}, fmt.Errorf("bundletest: rauc info %s: read its JSON: %w", bundle, err)
	}
	m := Manifest{Compatible: raw.Compatible, Version: raw.Version}
	for _, im := range raw.Images {
		for slot, v := range im {
			m.Images = append(m.Images, ImageInfo{Slot: slot, Filename: v.Filename, Checksum: v.Checksum, Size: v.Size})
		}
	}
	return m, nil
}

// Verify is Info followed by a check of the whole payload, as installing
// does: it runs rauc extract into a temporary directory, which for verity
// bundles checks every block against the signed hash tree (in user space,
// with no loop or device-mapper device), and removes the directory. A
// tampered verity bundle that Info accepts is refused here with "bundle
// payload is corrupted". It needs unsquashfs (squashfs-tools).
func Verify(ctx context.Context, bundle, keyring string) (Manifest, error) {
	m, err := Info(ctx, bundle, keyring)
	if err != nil {
		return m, err
	}
	tmp, err := os.MkdirTemp("", "bundletest-extract-")
	if err != nil {
		return Manifest{}, fmt.Errorf("bundletest: verify %s: %w", bundle, err)
	}
	defer os.RemoveAll(tmp)
	if _, err := runRauc(ctx, "extract", keyring, bundle, filepath.Join(tmp, "content")); err != nil {
		return Manifest{}, fmt.Errorf("bundletest: rauc extract %s: %w", bundle, err)
	}
	return m, nil
}

// runRauc runs rauc command with keyring as its only configuration and
// returns its standard output. When rauc exits non-zero the error wraps
// ErrRefused and carries rauc's messages, without its log lines.
func runRauc(ctx context.Context, command, keyring string, args ...string) ([]byte, error) {
	if keyring == "" {
		return nil, errors.New("no keyring")
	}
	abs, err := filepath.Abs(keyring)
	if err != nil {
		return nil, err
	}
	conf, err := os.CreateTemp("", "bundletest-*.conf")
	if err != nil {
		return nil, err
	}
	defer os.Remove(conf.Name())
	_, err = fmt.Fprintf(conf, "[system]\ncompatible=bundletest\nbootloader=noop\n\n[keyring]\npath=%s\n", abs)
	if cerr := conf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}

	argv := append([]string{"--conf=" + conf.Name(), "--keyring=" + abs, command}, args...)
	cmd := exec.CommandContext(ctx, "rauc", argv...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) && ctx.Err() == nil {
		msg := raucMessage(stderr.String())
		if msg == "" {
			msg = raucMessage(stdout.String())
		}
		if msg == "" {
			msg = exit.String()
		}
		return nil, fmt.Errorf("%w: %s", ErrRefused, msg)
	}
	if err != nil {
		return nil, err
	}
	return stdout.Bytes(), nil
}

// raucMessage returns rauc's output without its progress log lines
// ("rauc-Message: 10:00:00.000: Reading bundle: ..."), joined with "; ".
// Warnings stay: they sometimes carry the reason.
func raucMessage(out string) string {
	var keep []string
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.Contains(line, "rauc-Message:") ||
			strings.Contains(line, "rauc-INFO:") || strings.Contains(line, "rauc-DEBUG:") {
			continue
		}
		keep = append(keep, line)
	}
	return strings.Join(keep, "; ")
}
