// Package sharedtest finds the test assets kept beside the repository in
// ../shared (speech clips, whisper.cpp test models), which are never copied
// into it. Tests that need one skip, saying so, when it is absent.
package sharedtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/harkbox/hark/pipeline/pcm"
)

// Dir is the shared directory: $HARK_SHARED, or ../shared beside the
// repository.
func Dir() string {
	if d := os.Getenv("HARK_SHARED"); d != "" {
		return d
	}
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "shared")
}

// Path is rel inside the shared directory, or a skip.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	path := filepath.Join(Dir(), rel)
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("%s is not available (%v): test skipped", rel, err)
	}
	return path
}

// WAV reads a shared WAV file, or skips.
func WAV(tb testing.TB, rel string) pcm.Buffer {
	tb.Helper()
	f, err := os.Open(Path(tb, rel))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	b, err := pcm.ReadWAV(f)
	if err != nil {
		tb.Fatalf("%s: %v", rel, err)
	}
	return b
}

// SmallDisk mounts a tmpfs of size (as mount takes it: "96m") for the
// test, unmounted at its end, and returns where; it skips, saying why, when
// the test is not root or the machine will not mount it.
func SmallDisk(tb testing.TB, size string) string {
	tb.Helper()
	if os.Getuid() != 0 {
		tb.Skip("needs root to mount a small tmpfs (runs in CI as root)")
	}
	mnt := tb.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size, "tmpfs", mnt).CombinedOutput(); err != nil {
		tb.Skipf("cannot mount a tmpfs here: %v %s", err, out)
	}
	tb.Cleanup(func() { exec.Command("umount", "-l", mnt).Run() })
	return mnt
}
