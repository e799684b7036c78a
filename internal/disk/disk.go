// Package disk tells how much room a filesystem has left, for the reserve
// Hark keeps on its data partition: the store refuses writes below a floor,
// and the update agent refuses a download that would cross it.
package disk

import (
	"fmt"
	"syscall"
)

// Space is a filesystem's size and what is left of it, in bytes.
type Space struct {
	Free  int64 // available to an unprivileged writer
	Total int64
	// ReadOnly is set when the filesystem is mounted read-only, or was
	// turned read-only by the kernel after an error (errors=remount-ro).
	ReadOnly bool
	// ID tells filesystems apart: a card swapped or mounted anew has
	// another.
	ID [2]int32
}

// Usage returns the space of the filesystem holding dir.
func Usage(dir string) (Space, error) {
	var s syscall.Statfs_t
	if err := syscall.Statfs(dir, &s); err != nil {
		return Space{}, fmt.Errorf("disk: statfs %s: %w", dir, err)
	}
	return Space{Free: int64(s.Bavail) * int64(s.Bsize), Total: int64(s.Blocks) * int64(s.Bsize),
		ReadOnly: s.Flags&stRdonly != 0, ID: s.Fsid.X__val}, nil
}

// stRdonly is statfs's ST_RDONLY flag.
const stRdonly = 1

// MiB formats n bytes in mebibytes, for messages.
func MiB(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
