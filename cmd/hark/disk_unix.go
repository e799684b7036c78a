//go:build unix

package main

import "syscall"

// diskUsage returns the used and total bytes of the filesystem holding dir.
func diskUsage(dir string) (used, total uint64) {
	var s syscall.Statfs_t
	if syscall.Statfs(dir, &s) != nil {
		return 0, 0
	}
	total = s.Blocks * uint64(s.Bsize)
	return total - s.Bfree*uint64(s.Bsize), total
}
