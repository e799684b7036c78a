// Package atomicfile writes the small files Hark keeps outside its
// database (the secrets key, the device identity, the update agent's
// state) so that a power cut leaves either the old content or the new,
// never a torn, empty or missing file: the data goes to a temporary file in
// the same directory, is synced, renamed over the old file, and the
// directory is synced so the rename itself is on disk.
package atomicfile

import (
	"fmt"
	"os"
	"path/filepath"
)

// Write replaces the file at path with data, with mode perm, durably.
func Write(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	if err := f.Chmod(perm); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("atomicfile: sync %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("atomicfile: write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("atomicfile: replace %s: %w", path, err)
	}
	return SyncDir(dir)
}

// SyncDir makes the directory's entries (a rename, a new or removed file)
// durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("atomicfile: sync directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("atomicfile: sync directory %s: %w", dir, err)
	}
	return nil
}
