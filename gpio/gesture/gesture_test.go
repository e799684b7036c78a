package gesture

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/gpio/button"
	"github.com/harkbox/hark/pipeline"
)

// mapRig runs the map and records what it did.
type mapRig struct {
	in     chan button.Event
	out    chan pipeline.Event
	mu     sync.Mutex
	said   []string
	mutes  int
	cancel context.CancelCauseFunc
}

func newMapRig(t *testing.T, double string) (*mapRig, context.Context) {
	r := &mapRig{in: make(chan button.Event), out: make(chan pipeline.Event, 16)}
	ctx, cancel := context.WithCancelCause(t.Context())
	r.cancel = cancel
	o := Options{
		DoubleAction: double,
		FactoryReset: true,
		ToggleMute:   func(context.Context) { r.mu.Lock(); r.mutes++; r.mu.Unlock() },
		Say: func(ctx context.Context, s string) {
			r.mu.Lock()
			r.said = append(r.said, s)
			r.mu.Unlock()
			time.Sleep(300 * time.Millisecond) // saying takes a while
		},
		Reset: cancel,
		Log:   slog.New(slog.DiscardHandler),
	}
	go Run(ctx, o, r.in, r.out)
	t.Cleanup(func() { cancel(nil) })
	return r, ctx
}

func (r *mapRig) events() []pipeline.Event {
	synctest.Wait()
	var out []pipeline.Event
	for {
		select {
		case ev := <-r.out:
			out = append(out, ev)
		default:
			return out
		}
	}
}

func TestMap(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _ := newMapRig(t, "mute")
		for _, g := range []button.Gesture{button.Press, button.Release, button.ShortPress, button.Press, button.LongPress, button.Release, button.DoublePress} {
			r.in <- button.Event{Gesture: g}
		}
		if got, want := r.events(), []pipeline.Event{pipeline.Press, pipeline.Release, pipeline.Press, pipeline.Stop, pipeline.Release}; !slices.Equal(got, want) {
			t.Errorf("events %v, want %v", got, want)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.mutes != 1 {
			t.Errorf("the double press toggled the mute %d times", r.mutes)
		}
	})
}

func TestFactoryResetCountdown(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// Let go during the countdown: cancelled.
		r, ctx := newMapRig(t, "none")
		r.in <- button.Event{Gesture: button.VeryLongPress}
		time.Sleep(2500 * time.Millisecond)
		r.in <- button.Event{Gesture: button.Release}
		time.Sleep(time.Second)
		if got := r.events(); !slices.Equal(got, []pipeline.Event{pipeline.Abort}) {
			t.Errorf("events %v, want the turn aborted", got)
		}
		r.mu.Lock()
		if last := r.said[len(r.said)-1]; last != "Factory reset cancelled." || ctx.Err() != nil {
			t.Errorf("said %q, context %v", r.said, ctx.Err())
		}
		r.mu.Unlock()

		// Held to the end: reset.
		r2, ctx2 := newMapRig(t, "none")
		r2.in <- button.Event{Gesture: button.VeryLongPress}
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if !errors.Is(context.Cause(ctx2), ErrFactoryReset) {
			t.Errorf("after the countdown: cause %v, want a factory reset", context.Cause(ctx2))
		}
		r2.mu.Lock()
		defer r2.mu.Unlock()
		if !slices.Equal(r2.said, []string{"Factory reset in 5 seconds. Let go of the button to cancel.", "4", "3", "2", "1", "Resetting."}) {
			t.Errorf("said %q", r2.said)
		}
	})
}

// TestDoublePressSaysWhatIsPending: while the web page waits for its setup
// code, the double press says it instead of muting; then it mutes again.
func TestDoublePressSaysWhatIsPending(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, out := make(chan button.Event), make(chan pipeline.Event, 4)
		var mu sync.Mutex
		var said []string
		mutes, pending := 0, true
		o := Options{DoubleAction: DoubleMute, Log: slog.New(slog.DiscardHandler), Reset: func(error) {},
			ToggleMute: func(context.Context) { mu.Lock(); mutes++; mu.Unlock() },
			Say:        func(_ context.Context, s string) { mu.Lock(); said = append(said, s); mu.Unlock() },
			Pending: func(ctx context.Context) bool {
				mu.Lock()
				defer mu.Unlock()
				if pending {
					said = append(said, "The web page's setup code is 1 2 3 4.")
				}
				return pending
			}}
		go Run(t.Context(), o, in, out)
		in <- button.Event{Gesture: button.DoublePress}
		synctest.Wait()
		mu.Lock()
		pending = false
		mu.Unlock()
		in <- button.Event{Gesture: button.DoublePress}
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if len(said) != 1 || mutes != 1 {
			t.Errorf("said %q, muted %d times: want the code once, then a mute", said, mutes)
		}
	})
}

// TestLongDoublePressRecovers: the tap-then-hold stops the pipeline and
// runs the recovery once, and neither mutes nor starts the countdown.
func TestLongDoublePressRecovers(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, out := make(chan button.Event), make(chan pipeline.Event, 8)
		var mu sync.Mutex
		recovered, mutes := 0, 0
		var said []string
		o := Options{DoubleAction: DoubleMute, FactoryReset: true, Log: slog.New(slog.DiscardHandler), Reset: func(error) {},
			ToggleMute: func(context.Context) { mu.Lock(); mutes++; mu.Unlock() },
			Say:        func(_ context.Context, s string) { mu.Lock(); said = append(said, s); mu.Unlock() },
			Recover:    func(context.Context) { mu.Lock(); recovered++; mu.Unlock() }}
		go Run(t.Context(), o, in, out)
		for _, g := range []button.Gesture{button.Press, button.Release, button.ShortPress, button.Press, button.LongDoublePress, button.Release} {
			in <- button.Event{Gesture: g}
		}
		synctest.Wait()
		var got []pipeline.Event
		for len(out) > 0 {
			got = append(got, <-out)
		}
		want := []pipeline.Event{pipeline.Press, pipeline.Release, pipeline.Press, pipeline.Stop, pipeline.Release}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Equal(got, want) || recovered != 1 || mutes != 0 || len(said) != 0 {
			t.Errorf("got events %v, recovered %d, muted %d, said %q; want %v, recovered once, no mute, nothing said", got, recovered, mutes, said, want)
		}
	})
}
