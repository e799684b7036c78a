package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/harkbox/hark/internal/atomicfile"
	"github.com/harkbox/hark/internal/disk"
)

// ErrFull reports a write refused because the data partition is below its
// reserve. Reads, timers already set and offline answers keep working.
var ErrFull = errors.New("storage: the storage is full")

// DefaultFloor is the free space below which writes are refused, and
// DefaultBallast the size of the file kept in reserve and given up when the
// floor is crossed, so that Badger can still flush and compact.
const (
	DefaultFloor   = 16 << 20
	DefaultBallast = 32 << 20
)

const ballastFile = "reserve.ballast"

// reserve keeps writes off a full disk. Badger writes its memtable and
// value log through memory-mapped files; on a full filesystem a write into
// a page with no disk block behind it is SIGBUS, which no Go code can
// recover. So every write first asks statfs, and is refused below the floor
// with room to spare for what Badger itself must still write.
type reserve struct {
	dir            string
	floor, ballast int64
	log            *slog.Logger
	free           func(dir string) (int64, error)

	mu   sync.Mutex
	full bool
}

// newReserve makes the reserve of dir; keep makes its ballast now.
func newReserve(dir string, o Options, log *slog.Logger, keep bool) *reserve {
	r := &reserve{dir: dir, floor: o.Floor, ballast: o.Ballast, log: log, free: freeBytes}
	if r.floor == 0 {
		r.floor = DefaultFloor
	}
	if r.ballast == 0 {
		r.ballast = DefaultBallast
	}
	if o.Free != nil {
		r.free = o.Free
	}
	if keep && r.floor > 0 && r.ballast > 0 {
		r.keepBallast()
	}
	return r
}

func freeBytes(dir string) (int64, error) {
	s, err := disk.Usage(dir)
	return s.Free, err
}

// check is called before every write: nil while the disk has room.
func (r *reserve) check() error {
	if r.floor < 0 {
		return nil
	}
	free, err := r.free(r.dir)
	if err != nil {
		return nil // cannot tell: let the write try
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if free < r.floor {
		if !r.full {
			r.full = true
			released := r.releaseBallast()
			r.log.Error("storage is full: writes are refused until there is room", "free", disk.MiB(free), "floor", disk.MiB(r.floor), "ballast_released", released)
		}
		return fmt.Errorf("%w: %s free on the data partition, below the %s reserve", ErrFull, disk.MiB(free), disk.MiB(r.floor))
	}
	if r.full {
		// Room again: writes resume once the floor and the ballast fit.
		if free < r.floor+r.ballast {
			return fmt.Errorf("%w: %s free on the data partition, below the %s reserve and its ballast", ErrFull, disk.MiB(free), disk.MiB(r.floor+r.ballast))
		}
		r.full = false
		r.keepBallastLocked()
		r.log.Info("storage has room again: writes resume", "free", disk.MiB(free))
	}
	return nil
}

// checkCritical lets the few writes that must go on while the disk is full
// (the schedule's) use the reserve down to a quarter of the floor; below
// the floor it gives up the ballast first, as check does.
func (r *reserve) checkCritical() error {
	if r.floor < 0 {
		return nil
	}
	if err := r.check(); err == nil {
		return nil
	}
	free, err := r.free(r.dir)
	if err != nil || free >= r.floor/4 {
		return nil
	}
	return fmt.Errorf("%w: %s free on the data partition, below even the last quarter of the %s reserve", ErrFull, disk.MiB(free), disk.MiB(r.floor))
}

// Full reports whether writes are being refused.
func (r *reserve) isFull() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.full
}

func (r *reserve) keepBallast() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.keepBallastLocked()
}

// keepBallastLocked makes the ballast file, blocks really allocated, when
// there is room for it above the floor.
func (r *reserve) keepBallastLocked() {
	path := filepath.Join(r.dir, ballastFile)
	if st, err := os.Stat(path); err == nil && st.Size() == r.ballast {
		return
	}
	if free, err := r.free(r.dir); err != nil || free < r.floor+r.ballast {
		return
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		r.log.Warn("no ballast file for the storage reserve", "err", err)
		return
	}
	err = syscall.Fallocate(int(f.Fd()), 0, 0, r.ballast)
	if err == nil {
		err = f.Sync()
	}
	f.Close()
	if err != nil {
		os.Remove(path)
		r.log.Warn("no ballast file for the storage reserve", "err", err)
		return
	}
	atomicfile.SyncDir(r.dir)
}

// releaseBallast gives the ballast's room back to the filesystem.
func (r *reserve) releaseBallast() bool {
	path := filepath.Join(r.dir, ballastFile)
	if err := os.Remove(path); err != nil {
		return false
	}
	atomicfile.SyncDir(r.dir)
	return true
}
