// Package ext4test gives tests a real ext4 data partition that the kernel
// can be made to turn read-only: an image file formatted as the image's
// hark-format-data does, loop-mounted with errors=remount-ro in a private
// mount namespace, and broken through ext4's own error path
// (/sys/fs/ext4/<dev>/trigger_fs_error). It needs root, util-linux and
// e2fsprogs; without them the tests skip, saying what is missing. Only
// tests import it.
package ext4test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// envChild names the test a child process runs inside the namespace.
const envChild = "HARK_EXT4TEST_CHILD"

// InNamespace runs the calling test again in a child process in a private
// mount namespace, where it may mount, and reports whether this is that
// child. In the parent it waits for the child, passes its output and
// result on, and returns false: the caller returns at once.
//
//	if !ext4test.InNamespace(t) {
//		return
//	}
func InNamespace(t *testing.T) bool {
	t.Helper()
	if os.Getenv(envChild) == t.Name() {
		return true
	}
	Need(t)
	cmd := exec.Command(os.Args[0], "-test.run=^"+strings.ReplaceAll(t.Name(), "/", "$/^")+"$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), envChild+"="+t.Name())
	cmd.SysProcAttr = &syscall.SysProcAttr{Unshareflags: syscall.CLONE_NEWNS}
	out, err := cmd.CombinedOutput()
	// EPERM without the right; EINVAL in a chroot, where the kernel refuses
	// a new mount namespace.
	if err != nil && (strings.Contains(err.Error(), "operation not permitted") || strings.Contains(err.Error(), "invalid argument")) {
		t.Skipf("cannot make a private mount namespace here (%v): skipping the ext4 fault test", err)
	}
	if err != nil && strings.Contains(err.Error(), "exec format error") {
		t.Skipf("cannot run this test binary again as a child under emulation: %v", err)
	}
	t.Logf("in a private mount namespace:\n%s", out)
	if err != nil {
		t.Fatalf("the test failed in its mount namespace: %v", err)
	}
	if strings.Contains(string(out), "--- SKIP") {
		t.Skip("skipped in its mount namespace (see above)")
	}
	return false
}

// Need skips the test unless it can make, mount and break ext4 images.
func Need(t testing.TB) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("not root: an ext4 image cannot be loop-mounted; skipping the storage fault test")
	}
	for _, tool := range []string{"mkfs.ext4", "mount", "umount", "losetup"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (util-linux, e2fsprogs): skipping the storage fault test", tool)
		}
	}
	if _, err := os.Stat("/dev/loop-control"); err != nil {
		t.Skip("no loop devices (/dev/loop-control): skipping the storage fault test")
	}
}

// FS is a mounted ext4 image.
type FS struct {
	Image, Dir string
	// Dev is the loop device's name, "loop3".
	Dev string
}

// Options are the mkfs.ext4 options hark-format-data uses: the
// filesystem turns read-only on an error.
var Options = []string{"-q", "-F", "-L", "hark-data", "-m", "1", "-i", "65536", "-e", "remount-ro"}

// Make formats a new image of size bytes in a temporary directory.
func Make(t testing.TB, size int64) string {
	t.Helper()
	img := filepath.Join(t.TempDir(), "data.img")
	f, err := os.Create(img)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	f.Close()
	run(t, "mkfs.ext4", append(Options, img)...)
	return img
}

// Mount loop-mounts img on dir (made if needed) as the data partition is
// mounted, and unmounts it when the test ends. Call it only inside
// InNamespace.
func Mount(t testing.TB, img, dir string) *FS {
	t.Helper()
	if os.Getenv(envChild) == "" {
		t.Fatal("ext4test.Mount outside a private mount namespace: call InNamespace first")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	run(t, "mount", "-o", "loop,noatime,errors=remount-ro", img, dir)
	out, err := exec.Command("findmnt", "-n", "-o", "SOURCE", "--mountpoint", dir).Output()
	if err != nil {
		t.Fatalf("findmnt %s: %v", dir, err)
	}
	fs := &FS{Image: img, Dir: dir, Dev: filepath.Base(strings.TrimSpace(string(out)))}
	t.Cleanup(func() { exec.Command("umount", "-l", dir).Run() })
	return fs
}

// Break makes the kernel meet an ext4 error on fs, which (errors=remount-ro)
// aborts its journal and turns it read-only, as a failing card does.
func (fs *FS) Break(t testing.TB) {
	t.Helper()
	if err := os.WriteFile("/sys/fs/ext4/"+fs.Dev+"/trigger_fs_error", []byte("hark test: the card failed\n"), 0o200); err != nil {
		t.Fatalf("trigger an ext4 error on %s: %v", fs.Dev, err)
	}
	probe := filepath.Join(fs.Dir, ".probe")
	if err := os.WriteFile(probe, nil, 0o600); err == nil {
		os.Remove(probe)
		t.Fatalf("%s still takes writes after an ext4 error", fs.Dir)
	}
}

// Detach unmounts fs lazily (files still open keep the old filesystem),
// as a card pulled out or replaced does to the directory.
func (fs *FS) Detach(t testing.TB) {
	t.Helper()
	run(t, "umount", "-l", fs.Dir)
}

func run(t testing.TB, name string, args ...string) {
	t.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
}
