package bundletest

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// Options describe a test bundle. The zero value makes a valid one.
type Options struct {
	Compatible string // [update] compatible; "hark-test" if empty
	Version    string // [update] version; "1.0.0" if empty
	Format     string // [bundle] format: "verity" if empty, or "plain"
	ImageSize  int    // bytes in the rootfs image; 256 KiB if zero
	Seed       uint64 // picks the image's bytes: same Seed and ImageSize, same image
}

// Defaults of Options.
const (
	DefaultCompatible = "hark-test"
	DefaultVersion    = "1.0.0"
	DefaultFormat     = "verity"
	DefaultImageSize  = 256 << 10
)

func (o Options) withDefaults() Options {
	if o.Compatible == "" {
		o.Compatible = DefaultCompatible
	}
	if o.Version == "" {
		o.Version = DefaultVersion
	}
	if o.Format == "" {
		o.Format = DefaultFormat
	}
	if o.ImageSize == 0 {
		o.ImageSize = DefaultImageSize
	}
	return o
}

// Image returns the rootfs image a bundle made with o carries: ImageSize
// bytes of pseudo-random data drawn from Seed, so it does not compress and
// two seeds give two different images.
func Image(o Options) []byte {
	o = o.withDefaults()
	var seed [32]byte
	binary.LittleEndian.PutUint64(seed[:], o.Seed)
	copy(seed[8:], "hark bundletest image")
	b := make([]byte, o.ImageSize)
	rand.NewChaCha8(seed).Read(b)
	return b
}

// Bundle makes a bundle signed by ca in a new directory under dir and
// returns its path. The bundle has one image, for slot class rootfs. It
// runs rauc bundle, so it skips the test when rauc or mksquashfs is not
// installed.
func Bundle(t testing.TB, dir string, ca *CA, o Options) string {
	t.Helper()
	requireTools(t, "rauc", "mksquashfs")
	work, content := writeContent(t, dir, o)
	out := filepath.Join(work, "bundle.raucb")
	cmd := exec.CommandContext(t.Context(), "rauc", "bundle",
		"--cert="+ca.Cert, "--key="+ca.Key, content, out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bundletest: rauc bundle: %v\n%s", err, b)
	}
	return out
}

// Unsigned makes what Bundle would but without a signature: the squashfs
// image of the bundle's content, which is what a bundle is before rauc
// appends the CMS signature and its size. rauc refuses it with "Invalid
// bundle format: Signature size is 0". Like Bundle it skips the test when
// rauc or mksquashfs is not installed: without rauc it is of no use.
func Unsigned(t testing.TB, dir string, o Options) string {
	t.Helper()
	requireTools(t, "rauc", "mksquashfs")
	work, content := writeContent(t, dir, o)
	out := filepath.Join(work, "unsigned.raucb")
	cmd := exec.CommandContext(t.Context(), "mksquashfs", content, out,
		"-all-root", "-noappend", "-no-progress", "-no-xattrs", "-quiet")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bundletest: mksquashfs: %v\n%s", err, b)
	}
	return out
}

// writeContent writes a bundle's content directory, manifest.raucm and
// rootfs.img, in a new directory under dir.
func writeContent(t testing.TB, dir string, o Options) (work, content string) {
	t.Helper()
	o = o.withDefaults()
	work, err := os.MkdirTemp(dir, "bundle-")
	if err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	content = filepath.Join(work, "content")
	if err := os.Mkdir(content, 0o755); err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	manifest := fmt.Sprintf(`[update]
compatible=%s
version=%s

[bundle]
format=%s

[image.rootfs]
filename=rootfs.img
`, o.Compatible, o.Version, o.Format)
	if err := os.WriteFile(filepath.Join(content, "manifest.raucm"), []byte(manifest), 0o644); err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	if err := os.WriteFile(filepath.Join(content, "rootfs.img"), Image(o), 0o644); err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	return work, content
}

// Tamper copies the bundle at path to a new file beside it, flips one byte
// in the middle of the copy's squashfs payload, and returns the copy's
// path. The signature is left alone, so the copy fails only the payload
// check: for plain bundles that is the signature check itself (rauc info
// refuses the copy), for verity bundles the hash tree (rauc info still
// accepts it; Verify and installing refuse it).
func Tamper(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	at, err := payloadMiddle(b)
	if err != nil {
		t.Fatalf("bundletest: tamper %s: %v", path, err)
	}
	b[at] ^= 0xff

	f, err := os.CreateTemp(filepath.Dir(path), "tampered-*.raucb")
	if err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	return f.Name()
}

// payloadMiddle returns the offset of the byte halfway through the squashfs
// image at the start of bundle b. A bundle is the squashfs image (for the
// verity format followed by its hash tree), then the CMS signature, then
// the signature's size as a big-endian uint64.
func payloadMiddle(b []byte) (int, error) {
	const sbSize = 96 // squashfs superblock; bytes_used is at 40, little-endian
	if len(b) < sbSize+8 || string(b[:4]) != "hsqs" {
		return 0, fmt.Errorf("not a bundle: no squashfs superblock")
	}
	used := binary.LittleEndian.Uint64(b[40:])
	end := uint64(len(b))
	if sig := binary.BigEndian.Uint64(b[len(b)-8:]); sig > 0 && sig < end-8 {
		end -= 8 + sig
	}
	if used <= sbSize || used > end {
		return 0, fmt.Errorf("squashfs size %d does not fit the bundle's %d payload bytes", used, end)
	}
	return int(used / 2), nil
}

// packages names the Debian package each external program comes in.
var packages = map[string]string{
	"rauc":        "rauc squashfs-tools",
	"mksquashfs":  "squashfs-tools",
	"unsquashfs":  "squashfs-tools",
	"dbus-daemon": "dbus-daemon",
}

// requireTools skips the test unless every program in names is on PATH.
func requireTools(t testing.TB, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Skipf("bundletest: %s not installed (apt-get install %s)", n, packages[n])
		}
	}
}
