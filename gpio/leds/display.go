package leds

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/harkbox/hark/internal/ratelog"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/voice"
)

// Strip shows colours on the LEDs, one per LED.
type Strip interface {
	// Show lights the LEDs; len(c) is Len().
	Show(c []Color) error
	Len() int
}

// Options configure a Display.
type Options struct {
	// DimIdle keeps the LEDs faintly lit when idle instead of off.
	DimIdle bool
	// ErrorHold is how long the error pattern stays after a failed turn,
	// unless the user presses again; default 2 s.
	ErrorHold time.Duration
	Log       *slog.Logger
}

// Display animates a Strip from the box's status.
type Display struct {
	strip Strip
	o     Options

	mu      sync.Mutex
	status  Status
	changed chan struct{} // the mailbox: a signal, the value is status
}

// frameTime is the animation rate: 25 frames a second.
const frameTime = 40 * time.Millisecond

// showRetry is how soon a frame the strip failed to show is shown again,
// when nothing else redraws it first: a steady pattern has no next frame.
const showRetry = 500 * time.Millisecond

// NewDisplay drives strip; start it with Run.
func NewDisplay(strip Strip, o Options) *Display {
	if o.ErrorHold == 0 {
		o.ErrorHold = 2 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Display{strip: strip, o: o, changed: make(chan struct{}, 1)}
}

func (d *Display) update(f func(s *Status)) {
	d.mu.Lock()
	f(&d.status)
	d.mu.Unlock()
	select {
	case d.changed <- struct{}{}:
	default:
	}
}

// SetState takes the pipeline's latest state. It never blocks.
func (d *Display) SetState(s voice.Status) {
	d.update(func(st *Status) {
		st.State, st.FollowUp = s.State, s.FollowUp
		switch s.State {
		case voice.Error:
			st.Failed = true
		case voice.Listening:
			st.Failed = false // a new press clears the error at once
		}
	})
}

// SetMuted shows or clears the muted pattern.
func (d *Display) SetMuted(m bool) { d.update(func(st *Status) { st.Muted = m }) }

// SetFull shows or clears that the storage is full.
func (d *Display) SetFull(f bool) { d.update(func(st *Status) { st.Full = f }) }

// SetStarting shows or clears that the model is loading.
func (d *Display) SetStarting(s bool) { d.update(func(st *Status) { st.Starting = s }) }

// SetStorageFault shows or clears that the storage card cannot save.
func (d *Display) SetStorageFault(f bool) { d.update(func(st *Status) { st.StorageFault = f }) }

// SetUpdating shows or clears the updating pattern.
func (d *Display) SetUpdating(u bool) { d.update(func(st *Status) { st.Updating = u }) }

// Follow feeds the pipeline's states from f until ctx is done.
func (d *Display) Follow(ctx context.Context, f *pipeline.Feed) {
	for {
		s, err := f.Next(ctx)
		if err != nil {
			return
		}
		d.SetState(s)
	}
}

// Run animates the LEDs until ctx is done, then turns them off. A frame
// the strip fails to show is shown again at the next frame or change, or
// after showRetry, until the strip takes it.
func (d *Display) Run(ctx context.Context) {
	var (
		cur       Pattern
		since     time.Time
		last      []Color
		errorTill time.Time
	)
	// The ticker runs only while something moves: an idle box does not
	// wake up 25 times a second.
	tick := time.NewTicker(frameTime)
	tick.Stop()
	ticking := false
	defer tick.Stop()
	failing := ratelog.New(time.Minute) // a line failing each frame logs once a minute
	broken := false
	retry := time.NewTimer(showRetry)
	retry.Stop()
	defer retry.Stop()
	show := func(c []Color) {
		if slices.Equal(c, last) {
			return
		}
		if err := d.strip.Show(c); err != nil {
			broken = true
			if ok, held := failing.Allow("show"); ok {
				d.o.Log.Warn("LEDs failed", "pkg", "leds", "err", err, "failures_not_logged", held)
			}
			retry.Reset(showRetry) // unless the next frame or change comes first
			return
		}
		if broken {
			broken = false
			retry.Stop()
			d.o.Log.Info("LEDs work again", "pkg", "leds", "failures_not_logged", failing.Reset("show"))
		}
		last = c
	}
	render := func() {
		d.mu.Lock()
		st := d.status
		if st.Failed && errorTill.IsZero() {
			errorTill = time.Now().Add(d.o.ErrorHold)
		}
		if st.Failed && time.Now().After(errorTill) {
			d.status.Failed, st.Failed = false, false
		}
		if !st.Failed {
			errorTill = time.Time{}
		}
		d.mu.Unlock()
		p := Choose(st, d.o.DimIdle)
		if p.Name != cur.Name {
			cur, since = p, time.Now()
		}
		show(cur.Frame(d.strip.Len(), time.Since(since)))
		switch moving := cur.Animated() || !errorTill.IsZero(); {
		case moving && !ticking:
			tick.Reset(frameTime)
			ticking = true
		case !moving && ticking:
			tick.Stop()
			ticking = false
		}
	}
	render()
	for {
		select {
		case <-ctx.Done():
			show(make([]Color, d.strip.Len()))
			return
		case <-d.changed:
			render()
		case <-tick.C:
			render()
		case <-retry.C:
			render()
		}
	}
}
