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
}

// Usage returns the space of the filesystem holding dir.
func Usage(dir string) (Space, error) {
	var s syscall.Statfs_t
	if err := syscall.Statfs(dir, &s); err != nil {
		return Space{}, fmt.Errorf("disk: statfs %s: %w", dir, err)
	}
	return Space{Free: int64(s.Bavail) * int64(s.Bsize), Total: int64(s.Blocks) * int64(s.Bsize)}, nil
}

// MiB formats n bytes in mebibytes, for messages.
func MiB(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
