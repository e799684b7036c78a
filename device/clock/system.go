package clock

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// TimesyncFlag is the file systemd-timesyncd creates once it has
// synchronised the clock, in a directory that exists while it runs.
const TimesyncFlag = "/run/systemd/timesync/synchronized"

// SystemOptions configure a System clock.
type SystemOptions struct {
	// Flag is timesyncd's synchronised flag; default TimesyncFlag.
	Flag string
	// Trust counts the clock as set whatever the system says: a desktop,
	// whose clock is kept by its own hardware.
	Trust bool
	// Poll is how often Run reads the synchronised state and compares the
	// wall clock with the monotonic one (where no timerfd reports steps);
	// default 5 s.
	Poll time.Duration
	Log  *slog.Logger
}

// System is the computer's own clock. Run must run for Changed to report
// steps and for Synced to follow the system; it is safe for concurrent use.
type System struct {
	o       SystemOptions
	mu      sync.Mutex
	synced  bool
	changed changes
	// watch reports steps of the wall clock at once (a timerfd on Linux);
	// tests under synctest leave it off.
	watch bool
}

// NewSystem returns the computer's clock.
func NewSystem(o SystemOptions) *System {
	if o.Flag == "" {
		o.Flag = TimesyncFlag
	}
	if o.Poll == 0 {
		o.Poll = 5 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	c := &System{o: o, watch: true}
	c.synced = c.read()
	return c
}

// Now is the wall time, without a monotonic reading.
func (c *System) Now() time.Time { return time.Now().Round(0) }

// SetLog sets the log after the clock was made (the daemon's log is
// stamped by it). Call it before Run.
func (c *System) SetLog(log *slog.Logger) { c.o.Log = log }

// Synced reports whether the clock is set: timesyncd has synchronised it
// (where timesyncd runs), else the kernel says it is synchronised, else
// nothing tells, and it counts as set; Trust always counts it as set.
func (c *System) Synced() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.synced
}

// Changed is closed at the next step of the wall clock or change of Synced.
func (c *System) Changed() <-chan struct{} { return c.changed.next() }

// BootIDFile holds the kernel's identity of this boot.
const BootIDFile = "/proc/sys/kernel/random/boot_id"

// Boot is the kernel's boot id; "" where it cannot be read.
func (c *System) Boot() string {
	b, err := os.ReadFile(BootIDFile)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// read works out whether the clock is set.
func (c *System) read() bool {
	if c.o.Trust {
		return true
	}
	if _, err := os.Stat(filepath.Dir(c.o.Flag)); err == nil {
		_, err := os.Stat(c.o.Flag)
		return err == nil
	}
	if synced, known := kernelSynced(); known {
		return synced
	}
	return true
}

// Run follows the clock until ctx is done: steps of the wall clock (at
// once through the kernel where it can tell, else within Poll) and changes
// of its being set (within Poll).
func (c *System) Run(ctx context.Context) {
	var stepped chan struct{}
	if c.watch {
		stepped = make(chan struct{}, 1)
		done, err := watchSteps(ctx, stepped)
		if err != nil {
			c.o.Log.Info("clock steps are noticed by polling", "every", c.o.Poll, "why", err)
			stepped = nil
		} else {
			defer func() { <-done }()
		}
	}
	t := time.NewTicker(c.o.Poll)
	defer t.Stop()
	wall, start := time.Now().Round(0), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-stepped:
		case <-t.C:
		}
		now := time.Now()
		step := Step(wall, now.Round(0), now.Sub(start))
		big := step > time.Second || step < -time.Second
		if big {
			c.o.Log.Info("the wall clock was stepped", "by_ms", step.Milliseconds())
		}
		c.update(big)
		wall, start = now.Round(0), now
	}
}

// update reads whether the clock is set and tells the watchers when it
// stepped or that changed.
func (c *System) update(stepped bool) {
	synced := c.read()
	c.mu.Lock()
	changed := synced != c.synced
	c.synced = synced
	c.mu.Unlock()
	if changed {
		c.o.Log.Info("clock", "synchronised", synced)
	}
	if changed || stepped {
		c.changed.signal()
	}
}

// Step is how far the wall clock was stepped between two readings: how
// much more (or less) it moved, from wall0 to wall1, than the monotonic
// clock's elapsed.
func Step(wall0, wall1 time.Time, elapsed time.Duration) time.Duration {
	return wall1.Sub(wall0) - elapsed
}
