package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteReplaces(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.json")
	for _, content := range []string{"first\n", "second, longer than the first\n", ""} {
		if err := Write(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Errorf("read %q, %v; want %q", got, err, content)
		}
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the directory, want only the file: no temporary left", len(entries))
	}
}

// A write that fails leaves the old file as it was, and no temporary.
func TestFailedWriteKeepsTheOld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "device-id")
	if err := Write(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The rename fails: the target is now a non-empty directory's name.
	blocked := filepath.Join(dir, "blocked")
	os.MkdirAll(filepath.Join(blocked, "x"), 0o755)
	if err := Write(blocked, []byte("new"), 0o644); err == nil || !strings.Contains(err.Error(), "atomicfile: replace") {
		t.Errorf("writing over a directory: %v, want the replace to fail", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "old" {
		t.Errorf("the other file changed: %q", got)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary %s left behind", e.Name())
		}
	}
	// A directory that cannot be written: nothing changes.
	if os.Getuid() != 0 {
		os.Chmod(dir, 0o500)
		defer os.Chmod(dir, 0o700)
		if err := Write(path, []byte("new"), 0o644); err == nil {
			t.Error("wrote into a read-only directory")
		}
		if got, _ := os.ReadFile(path); string(got) != "old" {
			t.Errorf("after a failed write: %q, want the old content", got)
		}
	}
}
