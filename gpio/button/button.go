// Package button reads Hark's push button through periph.io and turns its
// edges into gestures: press and release, short press, long press (stop
// everything), double press, long double press (a tap, then a hold: the
// box's own recovery), and the very long hold that starts a factory reset. The debounce is Hark's own: the first edge counts at once (no
// added latency on the press that starts listening) and the contact's
// bounces after it are ignored for a lock-out time, after which the level
// is read again so a release within the lock-out is not lost.
package button

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"periph.io/x/conn/v3/gpio"
)

// Gesture is what the user did with the button.
type Gesture int

// The gestures. Press and Release come for every push; the others come as
// the push is understood: LongPress, LongDoublePress and VeryLongPress
// while the button is still held, ShortPress and DoublePress when it is
// let go. A push that is a LongDoublePress is neither a LongPress nor,
// however long it is held, a VeryLongPress: the gesture that recovers the
// box never runs on into the one that erases it.
const (
	Press           Gesture = iota + 1 // pushed down
	Release                            // let go
	ShortPress                         // let go before LongPress
	DoublePress                        // a second short press soon after a first
	LongPress                          // held for Options.Long
	VeryLongPress                      // held for Options.VeryLong
	LongDoublePress                    // a short press, then soon after one held for Options.Long
)

func (g Gesture) String() string {
	switch g {
	case Press:
		return "press"
	case Release:
		return "release"
	case ShortPress:
		return "short press"
	case DoublePress:
		return "double press"
	case LongPress:
		return "long press"
	case VeryLongPress:
		return "very long press"
	case LongDoublePress:
		return "long double press"
	}
	return fmt.Sprintf("Gesture(%d)", int(g))
}

// Event is a gesture and when it was recognised.
type Event struct {
	Gesture Gesture
	At      time.Time
}

// Options configure a Button. Zero values take the defaults.
type Options struct {
	// ActiveLow says the pin reads Low while pressed (a button to ground
	// with a pull-up, as on the ReSpeaker HAT); default true. Set
	// ActiveHigh for a button to 3.3 V.
	ActiveHigh bool
	// Debounce is the lock-out after an edge; default 30 ms.
	Debounce time.Duration
	// Long is the hold that is a long press; default 1.5 s.
	Long time.Duration
	// Double is the most time from the release of a short press to the
	// next press for the two to be a double press (or, when the second is
	// held for Long, a long double press); default 400 ms.
	Double time.Duration
	// VeryLong is the hold that starts a factory reset; default 10 s.
	VeryLong time.Duration
	Log      *slog.Logger
}

func (o Options) withDefaults() Options {
	if o.Debounce == 0 {
		o.Debounce = 30 * time.Millisecond
	}
	if o.Long == 0 {
		o.Long = 1500 * time.Millisecond
	}
	if o.Double == 0 {
		o.Double = 400 * time.Millisecond
	}
	if o.VeryLong == 0 {
		o.VeryLong = 10 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return o
}

// Button watches one pin.
type Button struct {
	pin gpio.PinIn
	o   Options
}

// New configures pin as an input with edge detection on both edges and a
// pull towards the released level.
func New(pin gpio.PinIn, o Options) (*Button, error) {
	o = o.withDefaults()
	pull := gpio.PullUp
	if o.ActiveHigh {
		pull = gpio.PullDown
	}
	if err := pin.In(pull, gpio.BothEdges); err != nil {
		return nil, fmt.Errorf("button: configure %s: %w", pin, err)
	}
	return &Button{pin: pin, o: o}, nil
}

// edgePoll bounds each wait for an edge, so Run notices ctx.
const edgePoll = 250 * time.Millisecond

// Run sends gestures to out until ctx is done. Sends never block for
// long: a reader that is not keeping up loses gestures, not time. A button
// already pressed when Run starts counts only once it has been let go.
func (b *Button) Run(ctx context.Context, out chan<- Event) {
	levels := make(chan bool, 16)
	go b.Levels(ctx, levels)
	b.gestures(ctx, levels, out)
	for range levels { // wait for the watcher, which closes levels when done
	}
}

// Levels sends the debounced level (true: pressed, or switched on) each
// time it changes, starting with the current one, until ctx is done; then
// it closes out. A mute switch is read this way.
func (b *Button) Levels(ctx context.Context, out chan<- bool) {
	b.watch(ctx, out)
}

func (b *Button) pressed() bool { return (b.pin.Read() == gpio.Low) != b.o.ActiveHigh }

// watch turns the pin's edges into debounced levels.
func (b *Button) watch(ctx context.Context, levels chan<- bool) {
	defer close(levels)
	stable := b.pressed()
	send(ctx, levels, stable)
	for ctx.Err() == nil {
		if !b.pin.WaitForEdge(edgePoll) {
			continue
		}
		now := b.pressed()
		if now == stable {
			continue // a bounce back to where it was
		}
		stable = now
		send(ctx, levels, now)
		// Lock-out: ignore the bounces, then look again, so a short tap
		// whose release fell inside the lock-out is still seen.
		deadline := time.Now().Add(b.o.Debounce)
		for d := time.Until(deadline); d > 0 && ctx.Err() == nil; d = time.Until(deadline) {
			b.pin.WaitForEdge(d)
		}
		if now := b.pressed(); now != stable {
			stable = now
			send(ctx, levels, now)
		}
	}
}

func send[T any](ctx context.Context, ch chan<- T, v T) {
	select {
	case ch <- v:
	case <-ctx.Done():
	}
}

// settled reads the first level and, when the button is already pressed
// as the box starts watching it, waits for it to be let go: a button held
// from the start (stuck, a line that reads the wrong way for
// Options.ActiveHigh, a hand on it at power-on) is no press, and must not
// run on into a long and then a very long press, which would start a
// factory reset at every start. It reports false when levels ended first.
func (b *Button) settled(levels <-chan bool) bool {
	p, ok := <-levels
	if !ok || !p {
		return ok
	}
	b.o.Log.Warn("the button reads pressed as the box starts: ignored until it is let go (a stuck button, or the wrong button.active_high?)")
	for p := range levels {
		if !p {
			b.o.Log.Info("the button held since the start was let go: its presses count from now")
			return true
		}
	}
	return false
}

// gestures recognises gestures in the debounced levels.
func (b *Button) gestures(ctx context.Context, levels <-chan bool, out chan<- Event) {
	if !b.settled(levels) {
		return
	}
	var (
		down, lastShort      time.Time
		held, second         bool // second: this push follows a short press within Double
		longTimer, veryTimer *time.Timer
		longC, veryC         <-chan time.Time
	)
	emit := func(g Gesture) {
		ev := Event{Gesture: g, At: time.Now()}
		select {
		case out <- ev:
		case <-time.After(100 * time.Millisecond):
			b.o.Log.Warn("button gesture dropped: nobody is listening", "gesture", g.String())
		case <-ctx.Done():
		}
	}
	stopTimers := func() {
		if longTimer != nil {
			longTimer.Stop()
			veryTimer.Stop()
		}
		longC, veryC = nil, nil
	}
	defer stopTimers()
	for {
		select {
		case <-ctx.Done():
			return
		case p, ok := <-levels:
			if !ok {
				return
			}
			now := time.Now()
			if p && !held {
				held, down = true, now
				second = !lastShort.IsZero() && down.Sub(lastShort) <= b.o.Double
				emit(Press)
				longTimer, veryTimer = time.NewTimer(b.o.Long), time.NewTimer(b.o.VeryLong)
				longC, veryC = longTimer.C, veryTimer.C
			} else if !p && held {
				held = false
				short := now.Sub(down) < b.o.Long
				stopTimers()
				emit(Release)
				if short {
					emit(ShortPress)
					if second {
						emit(DoublePress)
						lastShort = time.Time{} // a third tap starts afresh
					} else {
						lastShort = now
					}
				} else {
					lastShort = time.Time{}
				}
			}
		case <-longC:
			longC = nil
			if second {
				veryC = nil // no factory reset from the recovery gesture
				emit(LongDoublePress)
				continue
			}
			emit(LongPress)
		case <-veryC:
			veryC = nil
			emit(VeryLongPress)
		}
	}
}
