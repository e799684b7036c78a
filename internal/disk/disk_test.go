package disk_test

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/harkbox/hark/internal/disk"
	"github.com/harkbox/hark/internal/ext4test"
)

// Inside hark.service the data directory is bound onto itself
// (ReadWritePaths= under ProtectSystem=strict), partition or not: only a
// filesystem of its own there counts as mounted.
func TestMountedIsNotFooledByABindOntoItself(t *testing.T) {
	if !ext4test.InNamespace(t) {
		return
	}
	// /var: a tmpfs, with lib/hark on it, as on the image.
	varDir := t.TempDir()
	if err := unix.Mount("tmpfs", varDir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a tmpfs here: %v", err)
	}
	t.Cleanup(func() { unix.Unmount(varDir, unix.MNT_DETACH) })
	hark := filepath.Join(varDir, "lib", "hark")
	if err := os.MkdirAll(hark, 0o700); err != nil {
		t.Fatal(err)
	}
	bindSelf := func() {
		t.Helper()
		if err := unix.Mount(hark, hark, "", unix.MS_BIND, ""); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		setup func()
		want  bool
	}{
		{"a directory of the tmpfs", func() {}, false},
		{"the directory bound onto itself (systemd's ReadWritePaths=)", bindSelf, false},
		{"a filesystem mounted there (the partition)", func() {
			if err := unix.Mount("tmpfs", hark, "tmpfs", 0, "size=1m"); err != nil {
				t.Fatal(err)
			}
		}, true},
		{"the partition, bound onto itself in the service", bindSelf, true},
	} {
		tc.setup()
		if got := disk.Mounted(hark); got != tc.want {
			t.Errorf("%s: Mounted = %v, want %v", tc.name, got, tc.want)
		}
	}
}
