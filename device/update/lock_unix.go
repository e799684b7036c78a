//go:build unix

package update

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lock takes Dir for this process alone (flock on the directory itself),
// creating it when it is missing, and returns what gives it back. A Dir
// another process holds is refused at once with ErrBusy, naming it:
// two installs in one directory would remove each other's downloads.
func (d *Downloader) lock() (unlock func(), err error) {
	if err := makeDir(d.Dir); err != nil {
		return nil, fmt.Errorf("update: lock %s: %w", d.Dir, err)
	}
	f, err := os.Open(d.Dir)
	if err != nil {
		return nil, fmt.Errorf("update: lock %s: %w", d.Dir, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("update: the download directory %s is in use by another update (hark update, or the daemon's page): %w", d.Dir, ErrBusy)
		}
		return nil, fmt.Errorf("update: lock %s: %w", d.Dir, err)
	}
	return func() { f.Close() }, nil // closing the last descriptor gives the lock back
}
