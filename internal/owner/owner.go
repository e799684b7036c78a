// Package owner keeps Hark's private files private: a data directory is
// used only when this user owns it and no one else may write in it, and a
// key is read only from a regular file this user owns that no one else
// may read, never through a symbolic link (one planted in a directory made
// beforehand by someone else would hand them the box's secrets or let them
// overwrite what the link points to).
package owner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotPrivate is a directory or file someone else owns or may change.
var ErrNotPrivate = errors.New("owner: not private")

// CheckDir reports whether dir, a directory, is this user's and writable
// by no one else; it names what is wrong and how to mend it.
func CheckDir(dir string) error {
	st, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("owner: %w", err)
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		if st, err = os.Stat(dir); err != nil { // a link to a directory is fine if the directory is
			return fmt.Errorf("owner: %w", err)
		}
	}
	if !st.IsDir() {
		return fmt.Errorf("%w: %s is not a directory", ErrNotPrivate, dir)
	}
	if err := mine(dir, st); err != nil {
		return err
	}
	if st.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: %s may be written by other users (mode %04o): chmod 700 %s", ErrNotPrivate, dir, st.Mode().Perm(), dir)
	}
	return nil
}

// ReadFile reads a private file: a regular file, not a link, this user's,
// readable by no one else.
func ReadFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("%w: %s is a symbolic link; a key must be a file of its own", ErrNotPrivate, path)
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%w: %s is not a regular file", ErrNotPrivate, path)
	}
	if err := mine(path, st); err != nil {
		return nil, err
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("%w: %s may be read by other users (mode %04o): chmod 600 %s", ErrNotPrivate, path, st.Mode().Perm(), path)
	}
	return io.ReadAll(f)
}

// OpenAppend opens a log file for appending, creating it readable by this
// user only, never through a symbolic link.
func OpenAppend(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%w: %s is a symbolic link; remove it", ErrNotPrivate, path)
	}
	return f, err
}

// mine reports a file some other user owns.
func mine(path string, st fs.FileInfo) error {
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return nil // not a Unix file system: nothing to tell
	}
	if uid := os.Geteuid(); int(sys.Uid) != uid {
		return fmt.Errorf("%w: %s belongs to user %d, not to this one (%d): it was made by someone else, so it is not used (remove it, or chown it)", ErrNotPrivate, path, sys.Uid, uid)
	}
	return nil
}
