package storage

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// A power cut (or kill -9) between Badger creating a memtable or value-log
// file and sizing it leaves a zero-length .mem or .vlog, which the next open
// refuses ("while opening memtables ... Create a new file"), and which that
// failed open then sizes, filled with zeros after the file header it
// writes. heal removes exactly those files: ones that hold no entry, read
// to the end to prove it.
func heal(dir string, openErr error, log *slog.Logger) (bool, error) {
	if !strings.Contains(openErr.Error(), "Create a new file") {
		return false, nil
	}
	var empty []string
	for _, pattern := range []string{"*.mem", "*.vlog"} {
		matches, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, path := range matches {
			blank, err := noEntries(path)
			if err != nil {
				return false, fmt.Errorf("storage: heal %s: %w", dir, err)
			}
			if blank {
				empty = append(empty, path)
			}
		}
	}
	if len(empty) == 0 {
		return false, nil
	}
	for _, path := range empty {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, fmt.Errorf("storage: heal %s: %w", dir, err)
		}
		log.Warn("removed an empty file a crash left behind; opening again", "file", filepath.Base(path))
	}
	return true, nil
}

// logHeader is the header of Badger's memtable and value-log files: the
// encryption key's id (8 bytes) and the base IV (12 bytes).
const logHeader = 20

// noEntries reports whether the file holds no entry: nothing past its
// header but zero bytes (or nothing at all).
func noEntries(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	if _, err := f.Seek(logHeader, io.SeekStart); err != nil {
		return false, err
	}
	buf := make([]byte, 1<<20)
	for {
		n, err := f.Read(buf)
		if n > 0 && !isZero(buf[:n]) {
			return false, nil
		}
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
	}
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}
