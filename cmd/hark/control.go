package main

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/pipeline"
)

// boxControl is what the control socket serves: the box's state, its
// self-test, and the updating pattern.
type boxControl struct {
	a   *app
	dev *devices

	mu      sync.Mutex
	state   pipeline.State
	ready   bool
	changed chan struct{} // closed and replaced on every state
}

func newBoxControl(a *app, dev *devices) *boxControl {
	return &boxControl{a: a, dev: dev, changed: make(chan struct{})}
}

// follow tracks the pipeline's state until ctx is done.
func (b *boxControl) follow(ctx context.Context, f *pipeline.Feed) {
	for {
		st, err := f.Latest(ctx)
		if err != nil {
			return
		}
		b.mu.Lock()
		b.state = st.State
		if st.State == pipeline.Idle {
			b.ready = true // the pipeline is armed, as READY=1 tells systemd
		}
		close(b.changed)
		b.changed = make(chan struct{})
		b.mu.Unlock()
	}
}

// Status is the self-test the boot health check reads: storage, the
// microphone and speech-to-text.
func (b *boxControl) Status(ctx context.Context) control.Status {
	b.mu.Lock()
	s := control.Status{State: b.state.String(), Ready: b.ready, Version: version}
	b.mu.Unlock()

	var muted bool
	_, err := b.a.db.Settings().Get(ctx, mutedKey, &muted) // a real read
	s.Checks = append(s.Checks, check("storage", err, "open"))

	switch l := b.dev.listener; {
	case l == nil:
		s.Checks = append(s.Checks, control.Check{Name: "microphone", OK: true, Detail: "simulated"})
	default:
		last, down := l.Health()
		switch {
		case errors.Is(down, pipeline.ErrMuted):
			s.Checks = append(s.Checks, control.Check{Name: "microphone", OK: true, Detail: "muted"})
		case down != nil:
			s.Checks = append(s.Checks, control.Check{Name: "microphone", Detail: down.Error()})
		case time.Since(last) > stallAfter:
			s.Checks = append(s.Checks, control.Check{Name: "microphone", Detail: "capture stalled " + time.Since(last).Round(time.Second).String() + " ago"})
		default:
			s.Checks = append(s.Checks, control.Check{Name: "microphone", OK: true, Detail: "capturing"})
		}
	}

	if n, ok := b.dev.stt.(noSTT); ok {
		s.Checks = append(s.Checks, control.Check{Name: "speech-to-text", Detail: n.why})
	} else {
		s.Checks = append(s.Checks, control.Check{Name: "speech-to-text", OK: true, Detail: "loaded"})
	}
	return s
}

func check(name string, err error, ok string) control.Check {
	if err != nil {
		return control.Check{Name: name, Detail: err.Error()}
	}
	return control.Check{Name: name, OK: true, Detail: ok}
}

// WaitIdle returns once the pipeline is idle: not in a conversation, not
// ringing.
func (b *boxControl) WaitIdle(ctx context.Context) error {
	for {
		b.mu.Lock()
		idle, changed := b.ready && b.state == pipeline.Idle, b.changed
		b.mu.Unlock()
		if idle {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// SetUpdating shows the updating pattern on the LEDs.
func (b *boxControl) SetUpdating(active bool, percent int) {
	if b.dev.display != nil {
		b.dev.display.SetUpdating(active)
	}
	b.a.log.Info("update", "installing", active, "percent", percent)
}

// stallAfter is how long the capture loop may go without progress before
// the watchdog stops vouching for it.
const stallAfter = 5 * time.Second

// audioAlive is what the systemd watchdog follows: the capture loop's
// heartbeat on a board; in simulation there is no loop to watch.
func (d *devices) audioAlive() bool {
	if d.listener == nil {
		return true
	}
	last, _ := d.listener.Health()
	return time.Since(last) < stallAfter
}
