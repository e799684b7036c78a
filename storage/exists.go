package storage

import (
	"os"
	"path/filepath"
)

// Exists reports whether dir holds a store: one Open made there before.
func Exists(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "MANIFEST"))
	return err == nil && st.Mode().IsRegular()
}
