// Package disk tells how much room a filesystem has left, for the reserve
// Hark keeps on its data partition: the store refuses writes below a floor,
// and the update agent refuses a download that would cross it.
package disk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
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
	sp := Space{Free: int64(s.Bavail) * int64(s.Bsize), Total: int64(s.Blocks) * int64(s.Bsize),
		ReadOnly: s.Flags&stRdonly != 0, ID: s.Fsid.X__val}
	if !sp.ReadOnly {
		sp.ReadOnly = emergencyReadOnly(dir)
	}
	return sp, nil
}

// Mounted reports whether a filesystem is mounted at path (the data
// partition on /data, or bound on /var/lib/hark), rather than path being a
// directory of the filesystem below.
//
// A directory bound onto itself is a mount point too, but nothing is
// mounted there: systemd's ReadWritePaths= and StateDirectory= under
// ProtectSystem=strict do that in the service's namespace, whether the
// data partition is there or not. So path must also be on another
// filesystem than its parent directory.
func Mounted(path string) bool {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	path = filepath.Clean(path)
	found := false
	for _, line := range strings.Split(string(b), "\n") {
		if fields := strings.Fields(line); len(fields) > 4 && unescape(fields[4]) == path {
			found = true
			break
		}
	}
	if !found {
		return false
	}
	var st, parent unix.Stat_t
	if unix.Stat(path, &st) != nil || unix.Stat(filepath.Dir(path), &parent) != nil {
		return false
	}
	return st.Dev != parent.Dev || path == "/"
}

// unescape undoes mountinfo's octal escapes of spaces, tabs and
// backslashes in paths.
func unescape(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	r := strings.NewReplacer("\\040", " ", "\\011", "\t", "\\012", "\n", "\\134", "\\")
	return r.Replace(s)
}

// emergencyReadOnly reports whether the filesystem holding dir was turned
// read-only by the kernel after an error. Recent kernels mark ext4 so in
// its superblock options ("emergency_ro") without the read-only flag that
// statfs reports.
func emergencyReadOnly(dir string) bool {
	var st syscall.Stat_t
	if syscall.Stat(dir, &st) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return false
	}
	dev := fmt.Sprintf("%d:%d", unix.Major(uint64(st.Dev)), unix.Minor(uint64(st.Dev)))
	for _, line := range strings.Split(string(b), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 10 || fields[2] != dev {
			continue
		}
		// After the "-" separator: the type, the source, the superblock's
		// options.
		for i, f := range fields {
			if f == "-" && i+3 < len(fields) {
				for _, opt := range strings.Split(fields[i+3], ",") {
					if opt == "ro" || opt == "emergency_ro" {
						return true
					}
				}
			}
		}
	}
	return false
}

// stRdonly is statfs's ST_RDONLY flag.
const stRdonly = 1

// MiB formats n bytes in mebibytes, for messages.
func MiB(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
