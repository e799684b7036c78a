// Package clock is the box's wall clock as the rest of Hark needs it:
// whether it is set, when it steps, and the record that carries the time
// across reboots on a board without a real-time clock.
//
// A Raspberry Pi boots with its clock behind (the image's build time, or
// the record restored by `hark clock restore`) until NTP steps it. System
// is a board's (or a desktop's) clock: set when systemd-timesyncd (or the
// kernel) says it is synchronised, and a step is seen at once through a
// timerfd that the kernel cancels when the clock is set. Sim is the
// simulation's clock, booted at any time and stepped from its console.
// Both satisfy reply/schedule's Clock, so the schedule, the commands and
// the reply engine read the same time through the same code on a board
// and in simulation.
package clock

import (
	"context"
	"sync"
	"time"
)

// changes broadcasts that the clock changed: each reader gets the channel
// of the current generation, closed at the next change.
type changes struct {
	mu sync.Mutex
	ch chan struct{}
}

func (c *changes) next() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch == nil {
		c.ch = make(chan struct{})
	}
	return c.ch
}

func (c *changes) signal() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ch != nil {
		close(c.ch)
	}
	c.ch = make(chan struct{})
}

// Source is a wall clock that knows whether it is set: System and Sim.
type Source interface {
	Now() time.Time
	Synced() bool
	Changed() <-chan struct{}
	// Boot names this run of the clock: the same for as long as its wall
	// clock reads on without a new start (the board's boot); "" when it
	// cannot tell.
	Boot() string
}

var (
	_ Source = (*System)(nil)
	_ Source = (*Sim)(nil)
)

// Follow calls fn after each change of c, with how far its wall clock
// was stepped (zero when only Synced changed), until ctx is done.
func Follow(ctx context.Context, c Source, fn func(step time.Duration)) {
	ch := c.Changed() // taken before the clock is read, so no step is missed
	wall, mono := c.Now(), time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ch:
		}
		ch = c.Changed()
		now, m := c.Now(), time.Now()
		step := Step(wall, now, m.Sub(mono))
		if step < time.Second && step > -time.Second {
			step = 0
		}
		fn(step)
		wall, mono = now, m
	}
}
