package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWipe(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "replies"), 0o700)
	os.WriteFile(filepath.Join(dir, "000001.vlog"), []byte("x"), 0o600)
	if err := wipe(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if _, err := os.Stat(dir); err != nil || len(entries) != 0 {
		t.Errorf("after the wipe: %v, %d entries", err, len(entries))
	}
}
