// Package health is the box's self-test and its state as the daemon's API
// reports it: whether the pipeline is armed, what it is doing, and whether
// storage, the microphone and speech-to-text work. The boot health check
// (hark health --mark-good) marks the booted slot good only when every
// check passes; the systemd watchdog follows Alive.
package health

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/internal/disk"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/voice"
)

// StallAfter is how long the capture loop may go without progress before
// the microphone check fails and the watchdog stops vouching for it.
const StallAfter = 5 * time.Second

// Mic is a live microphone's heartbeat; the endpoint listener is one.
type Mic interface {
	// Health returns when the capture loop last made progress and why it
	// is down (voice.ErrMuted while muted), if it is.
	Health() (last time.Time, down error)
}

// Listening says what turns speech into text, for the self-test.
type Listening struct {
	// Engine describes it ("whisper.cpp, ggml-base.en.bin"); empty when
	// nothing does.
	Engine string
	// Why nothing does, when Engine is empty.
	Why string
}

// Options describe the box. Storage is required.
type Options struct {
	Version string
	// Storage makes one real read of the store, and says why it cannot
	// save; a *DataFault is the data partition's.
	Storage func(ctx context.Context) error
	// Full returns why writes are refused (the data partition below its
	// reserve), or nil; nil Full means never.
	Full func() error
	// Mic is the live microphone; nil in simulation.
	Mic Mic
	// Listening is the speech-to-text check.
	Listening Listening
	// Devices are the board's devices that did not open (the button, the
	// LEDs): the box runs without them; each fails the self-test.
	Devices []control.Check
	// Settings says what of the household's settings did not load, or
	// nil; nil Settings means it all did. The settings check fails with
	// it as the data partition's (Check.Data): the box runs on without
	// those entries, and a system update neither caused it nor cures it.
	Settings func() error
	// Updating shows the updating pattern on the LEDs; nil without LEDs.
	Updating func(active bool)
	// DataDir is the data partition's directory, whose use the status
	// shows; "" for none.
	DataDir string
	// Started is when the daemon started; zero when none runs.
	Started time.Time
	// Links are the box's links to other machines (model servers, the
	// command center), asked at each status; nil for none.
	Links func(ctx context.Context) []control.Check
	// Model is the chat model's readiness, asked at each status; nil for
	// a box without a model of its own.
	Model func() *control.ModelStatus
	// Queue is the model server's queue, asked at each status; nil for
	// none.
	Queue func() *control.QueueStatus
	// Clock is the box's clock for the status; nil for none.
	Clock func() control.Clock
	// State and Ready are the state of a box with no pipeline to Follow
	// (the command center, a speaker whose daemon is stopped).
	State string
	Ready bool
	Now   func() time.Time
	Log   *slog.Logger
}

// Box is the box's state and self-test, as the API serves them. Follow
// must run for the state to be known.
type Box struct {
	o Options

	mu      sync.Mutex
	state   voice.State
	ready   bool
	turns   int           // turns being answered (Begin)
	changed chan struct{} // closed and replaced on every state
}

var _ control.Box = (*Box)(nil)

// New returns the box of o.
func New(o Options) *Box {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Box{o: o, ready: o.Ready, changed: make(chan struct{})}
}

// Follow tracks the pipeline's state until ctx is done.
func (b *Box) Follow(ctx context.Context, f *pipeline.Feed) {
	for {
		st, err := f.Latest(ctx)
		if err != nil {
			return
		}
		b.mu.Lock()
		b.state = st.State
		if st.State == voice.Idle {
			b.ready = true // the pipeline is armed, as READY=1 tells systemd
		}
		b.signal()
		b.mu.Unlock()
	}
}

// signal wakes those waiting for a change; under b.mu.
func (b *Box) signal() {
	close(b.changed)
	b.changed = make(chan struct{})
}

// Begin counts a turn being answered (spoken, typed or a node's) until end
// is called: the box is busy meanwhile.
func (b *Box) Begin() (end func()) {
	b.mu.Lock()
	b.turns++
	b.signal()
	b.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			b.mu.Lock()
			b.turns--
			b.signal()
			b.mu.Unlock()
		})
	}
}

// idle reports an armed pipeline with nothing to do and no turn being
// answered; under b.mu.
func (b *Box) idle() bool { return b.ready && b.state == voice.Idle && b.turns == 0 }

// Status is the box's state, its self-test (storage; on a speaker the
// microphone and speech-to-text too), its storage's use and its links.
func (b *Box) Status(ctx context.Context) control.Status {
	b.mu.Lock()
	state := b.state.String()
	switch {
	case b.o.State != "":
		state = b.o.State
	case b.state == voice.Idle && b.turns > 0:
		state = "answering" // a typed question, with the microphone idle
	}
	s := control.Status{State: state, Ready: b.ready, Version: b.o.Version, Started: b.o.Started, Turns: b.turns}
	b.mu.Unlock()
	storage := result("storage", b.o.Storage(ctx), "open")
	full := false
	if b.o.Full != nil {
		if err := b.o.Full(); err != nil && storage.OK {
			// Full is the user's to fix, not the update's: the booted slot
			// is still good, so the check passes and says so.
			storage.Detail = "open, but full: " + err.Error()
			full = true
		}
	}
	s.Checks = []control.Check{storage}
	if b.o.Clock != nil {
		c := b.o.Clock()
		s.Clock = &c
	}
	if b.o.State == "" { // a speaker: it hears
		s.Checks = append(s.Checks, b.micCheck(), b.listeningCheck())
	}
	s.Checks = append(s.Checks, b.o.Devices...)
	if b.o.Settings != nil {
		if err := b.o.Settings(); err != nil {
			s.Checks = append(s.Checks, control.Check{Name: "settings", Detail: err.Error(), Data: true})
		}
	}
	if b.o.DataDir != "" {
		if sp, err := disk.Usage(b.o.DataDir); err == nil {
			s.Storage = &control.Storage{Free: sp.Free, Total: sp.Total, Full: full}
		}
	}
	if b.o.Links != nil {
		s.Links = b.o.Links(ctx)
	}
	if b.o.Model != nil {
		s.Model = b.o.Model()
	}
	if b.o.Queue != nil {
		s.Queue = b.o.Queue()
	}
	return s
}

// DataFault marks a storage error as the data partition's: the storage
// check fails with Check.Data set, which the boot check passes.
type DataFault struct{ Err error }

func (d *DataFault) Error() string { return d.Err.Error() }
func (d *DataFault) Unwrap() error { return d.Err }

func result(name string, err error, ok string) control.Check {
	var df *DataFault
	if errors.As(err, &df) {
		return control.Check{Name: name, Detail: err.Error(), Data: true}
	}
	if err != nil {
		return control.Check{Name: name, Detail: err.Error()}
	}
	return control.Check{Name: name, OK: true, Detail: ok}
}

func (b *Box) micCheck() control.Check {
	const name = "microphone"
	if b.o.Mic == nil {
		return control.Check{Name: name, OK: true, Detail: "simulated"}
	}
	last, down := b.o.Mic.Health()
	switch {
	case errors.Is(down, voice.ErrMuted):
		return control.Check{Name: name, OK: true, Detail: "muted"}
	case down != nil:
		return control.Check{Name: name, Detail: down.Error()}
	case b.o.Now().Sub(last) > StallAfter:
		return control.Check{Name: name, Detail: "capture stalled " + b.o.Now().Sub(last).Round(time.Second).String() + " ago"}
	}
	return control.Check{Name: name, OK: true, Detail: "capturing"}
}

func (b *Box) listeningCheck() control.Check {
	l := b.o.Listening
	if l.Engine == "" {
		why := l.Why
		if why == "" {
			why = "no speech-to-text engine"
		}
		return control.Check{Name: "speech-to-text", Detail: why}
	}
	return control.Check{Name: "speech-to-text", OK: true, Detail: l.Engine}
}

// Idle reports whether the box is idle now: the pipeline armed, not in a
// conversation, not ringing, and no turn being answered.
func (b *Box) Idle() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.idle()
}

// WaitIdle returns once the box is idle: the pipeline not in a
// conversation, not ringing, and no turn (typed, a node's) being answered.
func (b *Box) WaitIdle(ctx context.Context) error {
	for {
		b.mu.Lock()
		idle, changed := b.idle(), b.changed
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
func (b *Box) SetUpdating(active bool, percent int) {
	if b.o.Updating != nil {
		b.o.Updating(active)
	}
	b.o.Log.Info("update", "installing", active, "percent", percent)
}

// Alive is what the systemd watchdog follows: the capture loop's heartbeat
// on a board; in simulation there is no loop to watch.
func (b *Box) Alive() bool {
	if b.o.Mic == nil {
		return true
	}
	last, _ := b.o.Mic.Health()
	return b.o.Now().Sub(last) < StallAfter
}

// WatchStorage looks every interval at whether the storage is full and
// calls changed on each change, first when it is found full, until ctx is
// done.
func (b *Box) WatchStorage(ctx context.Context, every time.Duration, changed func(full bool, why error)) {
	if b.o.Full == nil {
		return
	}
	full := false
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		err := b.o.Full()
		if (err != nil) != full {
			full = err != nil
			changed(full, err)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}
