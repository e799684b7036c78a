// Package gesture gives the button's gestures their meaning on the box: a
// press and release drive the pipeline, a long press stops everything, a
// double press runs the configured action (mute, stop or nothing), a long
// double press (a tap, then a hold) stops everything and recovers the box
// (a new setup code for the web page, nothing forgotten), and a very long
// hold starts a spoken factory-reset countdown that letting go
// cancels. device/box wires it between gpio/button and the pipeline.
package gesture

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/harkbox/hark/gpio/button"
	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline"
)

// ErrFactoryReset is the cause Reset is called with when the button was
// held through the countdown: the box must erase what it remembers.
var ErrFactoryReset = errors.New("gesture: factory reset")

// Double-press actions.
const (
	DoubleMute = "mute"
	DoubleStop = "stop"
	DoubleNone = "none"
)

// Options say what the gestures do. Say and Reset are required.
type Options struct {
	// DoubleAction is DoubleMute, DoubleStop or DoubleNone.
	DoubleAction string
	// FactoryReset lets the very long hold start the countdown.
	FactoryReset bool
	// ToggleMute mutes or unmutes the microphone (the double press).
	ToggleMute func(ctx context.Context)
	// Pending, when set, is asked first on a double press: it says what
	// the user is waiting for (the web page's setup code, until the page
	// is set up) and reports whether it did, in place of the action.
	// It runs in a goroutine of its own, and its ctx is cancelled when the
	// button cuts it short (see Run).
	Pending func(ctx context.Context) bool
	// Recover, when set, is what the long double press does once the
	// pipeline is stopped: the box's way back in without a terminal (the
	// web page's password forgotten, a new setup code said), which erases
	// nothing. It runs as Pending does.
	Recover func(ctx context.Context)
	// Say speaks a sentence and returns once it has been said.
	Say func(ctx context.Context, text string)
	// Reset is called with ErrFactoryReset when the countdown runs out.
	Reset context.CancelCauseFunc
	// Countdown is the countdown's length in seconds; default 5.
	Countdown int
	// Lang is the language the countdown is said in; the zero value is
	// English.
	Lang locale.Lang
	Log  *slog.Logger
}

// Run maps the gestures from in to the pipeline's events on out until ctx
// is done or the factory reset is called.
//
// What Pending and Recover say (a setup code spelled out, a Wi-Fi
// password: many seconds) is said beside the loop, so the button goes on
// working meanwhile, one at a time: a press or a long press cuts it short,
// and a new one replaces it. When Pending says nothing, the double press's
// action is taken once it has said so. Run waits for what it started
// before it returns.
func Run(ctx context.Context, o Options, in <-chan button.Event, out chan<- pipeline.Event) {
	if o.Countdown == 0 {
		o.Countdown = 5
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	send := func(ev pipeline.Event) {
		select {
		case out <- ev:
		case <-ctx.Done():
		}
	}
	double := func() {
		switch o.DoubleAction {
		case DoubleMute:
			if o.ToggleMute != nil {
				o.ToggleMute(ctx)
			}
		case DoubleStop:
			send(pipeline.Stop)
		}
	}
	var saying announcement
	defer saying.stop()
	for {
		var g button.Event
		select {
		case <-ctx.Done():
			return
		case g = <-in:
		}
		switch g.Gesture {
		case button.Press:
			saying.stop()
			send(pipeline.Press)
		case button.Release:
			send(pipeline.Release)
		case button.LongPress:
			saying.stop()
			send(pipeline.Stop)
		case button.LongDoublePress:
			saying.stop()
			send(pipeline.Stop)
			if o.Recover != nil {
				o.Log.Warn("recovery: long double press on the button")
				saying.start(ctx, o.Recover)
			}
		case button.DoublePress:
			if o.Pending == nil {
				double()
				continue
			}
			saying.start(ctx, func(actx context.Context) {
				if !o.Pending(actx) {
					double()
				}
			})
		case button.VeryLongPress:
			if !o.FactoryReset {
				continue
			}
			saying.stop()
			send(pipeline.Abort)
			if Countdown(ctx, o.Lang, o.Say, in, o.Countdown) {
				o.Log.Warn("factory reset: the button was held through the countdown")
				o.Reset(ErrFactoryReset)
				return
			}
		}
	}
}

// announcement is what Pending or Recover is saying, at most one at a
// time; the zero value says nothing. Run's goroutine alone uses it.
type announcement struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// start cuts short what is being said and says f in its own goroutine,
// with a context that stop cancels.
func (a *announcement) start(ctx context.Context, f func(ctx context.Context)) {
	a.stop()
	actx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	a.cancel, a.done = cancel, done
	go func() {
		defer close(done)
		defer cancel()
		f(actx)
	}()
}

// stop cuts short what is being said, if anything, and waits for it.
func (a *announcement) stop() {
	if a.cancel == nil {
		return
	}
	a.cancel()
	<-a.done
	a.cancel, a.done = nil, nil
}

// Countdown says the factory-reset countdown, a number a second, and
// reports whether it ran out; letting go of the button cancels it.
func Countdown(ctx context.Context, l locale.Lang, say func(context.Context, string), gestures <-chan button.Event, seconds int) bool {
	say(ctx, l.T("Factory reset in %d seconds. Let go of the button to cancel.", seconds))
	cancelled := func() bool {
		say(ctx, l.T("Factory reset cancelled."))
		return false
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for n := seconds; n > 0; {
		// A release that came while a number was said goes before the
		// tick that came meanwhile: select alone picks either, and the
		// last tick would reset a box that was let go of.
		if letGo(gestures) {
			return cancelled()
		}
		select {
		case <-ctx.Done():
			return false
		case g := <-gestures:
			if g.Gesture == button.Release {
				return cancelled()
			}
		case <-tick.C:
			n--
			if n > 0 {
				say(ctx, fmt.Sprint(n))
			}
		}
	}
	if letGo(gestures) {
		return cancelled()
	}
	say(ctx, l.T("Resetting."))
	return true
}

// letGo reports whether a release waits in gestures, taking what waits
// there without blocking.
func letGo(gestures <-chan button.Event) bool {
	for {
		select {
		case g := <-gestures:
			if g.Gesture == button.Release {
				return true
			}
		default:
			return false
		}
	}
}
