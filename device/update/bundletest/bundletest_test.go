package bundletest_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/update/bundletest"
)

// check is Info or Verify.
type check func(ctx context.Context, bundle, keyring string) (bundletest.Manifest, error)

func TestSignedBundleIsAccepted(t *testing.T) {
	for _, format := range []string{"verity", "plain"} {
		t.Run(format, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ca := bundletest.NewCA(t, dir, "hark")
			o := bundletest.Options{Compatible: "hark-pi5", Version: "2.3.4", Format: format, ImageSize: 200_000, Seed: 7}
			b := bundletest.Bundle(t, dir, ca, o)

			sum := sha256.Sum256(bundletest.Image(o))
			want := bundletest.Manifest{
				Compatible: "hark-pi5",
				Version:    "2.3.4",
				Images:     []bundletest.ImageInfo{{Slot: "rootfs", Filename: "rootfs.img", Checksum: hex.EncodeToString(sum[:]), Size: 200_000}},
			}
			for name, f := range map[string]check{"Info": bundletest.Info, "Verify": bundletest.Verify} {
				got, err := f(t.Context(), b, ca.Keyring)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s got %+v, want %+v", name, got, want)
				}
			}
		})
	}
}

func TestBadBundlesAreRefused(t *testing.T) {
	tests := []struct {
		name  string
		make  func(t *testing.T, dir string, ca, other *bundletest.CA) string
		check check
		want  []string // in the error, beside the bundle's path
	}{{
		name: "tampered plain",
		make: func(t *testing.T, dir string, ca, _ *bundletest.CA) string {
			return bundletest.Tamper(t, bundletest.Bundle(t, dir, ca, bundletest.Options{Format: "plain"}))
		},
		check: bundletest.Info,
		want:  []string{"signature verification failed", "verification failure"},
	}, {
		// The signature of a verity bundle covers the manifest and the
		// hash tree's root, so only checking the payload finds this.
		name: "tampered verity",
		make: func(t *testing.T, dir string, ca, _ *bundletest.CA) string {
			return bundletest.Tamper(t, bundletest.Bundle(t, dir, ca, bundletest.Options{Format: "verity"}))
		},
		check: bundletest.Verify,
		want:  []string{"bundle payload is corrupted"},
	}, {
		name: "unsigned plain",
		make: func(t *testing.T, dir string, _, _ *bundletest.CA) string {
			return bundletest.Unsigned(t, dir, bundletest.Options{Format: "plain"})
		},
		check: bundletest.Info,
		want:  []string{"Invalid bundle format", "Signature size is 0"},
	}, {
		name: "unsigned verity",
		make: func(t *testing.T, dir string, _, _ *bundletest.CA) string {
			return bundletest.Unsigned(t, dir, bundletest.Options{Format: "verity"})
		},
		check: bundletest.Info,
		want:  []string{"Invalid bundle format", "Signature size is 0"},
	}, {
		name: "another CA's plain",
		make: func(t *testing.T, dir string, _, other *bundletest.CA) string {
			return bundletest.Bundle(t, dir, other, bundletest.Options{Format: "plain"})
		},
		check: bundletest.Info,
		want:  []string{"signature verification failed", "unable to get local issuer certificate"},
	}, {
		name: "another CA's verity",
		make: func(t *testing.T, dir string, _, other *bundletest.CA) string {
			return bundletest.Bundle(t, dir, other, bundletest.Options{Format: "verity"})
		},
		check: bundletest.Info,
		want:  []string{"signature verification failed", "unable to get local issuer certificate"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ca := bundletest.NewCA(t, dir, "hark")
			other := bundletest.NewCA(t, dir, "other")
			b := tt.make(t, dir, ca, other)

			m, err := tt.check(t.Context(), b, ca.Keyring)
			if err == nil {
				t.Fatalf("accepted, read %+v; want refused", m)
			}
			t.Logf("refused: %v", err)
			if !errors.Is(err, bundletest.ErrRefused) {
				t.Errorf("error %q does not wrap ErrRefused", err)
			}
			for _, w := range append(tt.want, b) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q, want it to say %q", err, w)
				}
			}
		})
	}
}

// Pins down why Verify exists: rauc info alone accepts a verity bundle
// whose payload was changed, since its signature does not cover the
// payload's bytes.
func TestInfoDoesNotReadVerityPayload(t *testing.T) {
	dir := t.TempDir()
	ca := bundletest.NewCA(t, dir, "hark")
	o := bundletest.Options{Version: "9.9", Format: "verity"}
	b := bundletest.Tamper(t, bundletest.Bundle(t, dir, ca, o))
	m, err := bundletest.Info(t.Context(), b, ca.Keyring)
	if err != nil || m.Version != "9.9" {
		t.Errorf("Info on a tampered verity bundle: %+v, %v; want it accepted (only Verify refuses it)", m, err)
	}
}

// The signing certificate passes each purpose a system.conf may ask for,
// codesign included, not only the default.
func TestSignerPassesPurposeChecks(t *testing.T) {
	dir := t.TempDir()
	ca := bundletest.NewCA(t, dir, "hark")
	b := bundletest.Bundle(t, dir, ca, bundletest.Options{})
	for _, purpose := range []string{"codesign", "smimesign", "any"} {
		conf := filepath.Join(dir, purpose+".conf")
		text := fmt.Sprintf("[system]\ncompatible=x\nbootloader=noop\n\n[keyring]\npath=%s\ncheck-purpose=%s\n", ca.Keyring, purpose)
		if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.CommandContext(t.Context(), "rauc", "--conf="+conf, "info", b).CombinedOutput()
		if err != nil {
			t.Errorf("check-purpose=%s: rauc info: %v\n%s", purpose, err, out)
		}
	}
}

// Installs real bundles through a real rauc service on a private bus, with
// rauc's command line as the D-Bus client, into file slots.
func TestInstallThroughService(t *testing.T) {
	dir := t.TempDir()
	ca := bundletest.NewCA(t, dir, "hark")
	other := bundletest.NewCA(t, dir, "other")
	s := bundletest.StartService(t, dir, ca, bundletest.ServiceOptions{})

	install := func(t *testing.T, bundle string) (string, error) {
		cmd := exec.CommandContext(t.Context(), "rauc", "install", bundle)
		cmd.Env = append(os.Environ(), s.Env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}

	// Refused before anything is mounted: needs no privileges.
	t.Run("another CA's bundle", func(t *testing.T) {
		b := bundletest.Bundle(t, dir, other, bundletest.Options{Format: "plain"})
		out, err := install(t, b)
		if err == nil {
			t.Fatalf("rauc install succeeded:\n%s", out)
		}
		t.Logf("rauc install said:\n%s", out)
		if !strings.Contains(out, "signature verification failed") {
			t.Errorf("rauc install said\n%s\nwant it to say signature verification failed", out)
		}
		if slot, _ := os.ReadFile(s.Slots["B"]); len(slot) != 0 {
			t.Errorf("slot B has %d bytes, want it untouched", len(slot))
		}
	})

	for i, format := range []string{"plain", "verity"} {
		t.Run(format, func(t *testing.T) {
			bundletest.RequireInstall(t, format)
			o := bundletest.Options{Format: format, ImageSize: 300_000, Seed: uint64(i + 1)}
			b := bundletest.Bundle(t, dir, ca, o)
			if out, err := install(t, b); err != nil {
				t.Fatalf("rauc install: %v\n%s", err, out)
			}
			got, err := os.ReadFile(s.Slots["B"])
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, bundletest.Image(o)) {
				t.Errorf("slot B has %d bytes, not the bundle's image of %d bytes", len(got), o.ImageSize)
			}
			if slot, _ := os.ReadFile(s.Slots["A"]); len(slot) != 0 {
				t.Errorf("booted slot A has %d bytes, want it untouched", len(slot))
			}
			if p := s.Primary(t); p != "B" {
				t.Errorf("primary slot %q after the install, want B", p)
			}
			cmd := exec.CommandContext(t.Context(), "rauc", "status", "--output-format=json")
			cmd.Env = append(os.Environ(), s.Env...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("rauc status: %v", err)
			}
			var st struct {
				Booted      string
				BootPrimary string `json:"boot_primary"`
			}
			if err := json.Unmarshal(out, &st); err != nil {
				t.Fatalf("rauc status: %v\n%s", err, out)
			}
			if st.Booted != "A" || st.BootPrimary != "rootfs.1" {
				t.Errorf("rauc status: booted %q, primary %q; want A and rootfs.1", st.Booted, st.BootPrimary)
			}
		})
	}
}
