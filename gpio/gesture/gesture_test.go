package gesture

import (
	"context"
	"errors"
	"fmt"
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

// speaker says what Pending and Recover say as the box does, taking 20 s
// for the setup code spelled out unless it is cut short, and keeps how
// each saying ended and how many were said at once.
type speaker struct {
	mu      sync.Mutex
	ended   []string // "said" or "cut after 1s"
	now     int
	overlap int
}

func (s *speaker) say(ctx context.Context) {
	s.mu.Lock()
	s.now++
	s.overlap = max(s.overlap, s.now)
	s.mu.Unlock()
	start := time.Now()
	ended := "said"
	select {
	case <-time.After(20 * time.Second):
	case <-ctx.Done():
		ended = fmt.Sprintf("cut after %v", time.Since(start))
	}
	s.mu.Lock()
	s.now--
	s.ended = append(s.ended, ended)
	s.mu.Unlock()
}

// TestButtonWorksWhileTheCodeIsSaid: spelling out the Wi-Fi password and
// the setup code takes many seconds, and the button works meanwhile: a
// press or a long press reaches the pipeline at once and cuts the spelling
// short (the long press is "stop everything"), and a new double press or
// long double press says its own in place of the one under way.
func TestButtonWorksWhileTheCodeIsSaid(t *testing.T) {
	for _, tc := range []struct {
		then  button.Gesture // a second after the double press
		want  []pipeline.Event
		ended []string
	}{
		{button.LongPress, []pipeline.Event{pipeline.Stop}, []string{"cut after 1s"}},
		{button.Press, []pipeline.Event{pipeline.Press}, []string{"cut after 1s"}},
		{button.Release, []pipeline.Event{pipeline.Release}, []string{"said"}},
		{button.DoublePress, nil, []string{"cut after 1s", "said"}},
		{button.LongDoublePress, []pipeline.Event{pipeline.Stop}, []string{"cut after 1s", "said"}},
	} {
		t.Run(tc.then.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				in, out := make(chan button.Event, 16), make(chan pipeline.Event, 16)
				spk := &speaker{}
				mutes := 0
				o := Options{DoubleAction: DoubleMute, Log: slog.New(slog.DiscardHandler), Reset: func(error) {},
					ToggleMute: func(context.Context) { mutes++ },
					Say:        func(context.Context, string) {},
					Pending:    func(ctx context.Context) bool { spk.say(ctx); return true },
					Recover:    spk.say}
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan struct{})
				go func() { Run(ctx, o, in, out); close(done) }()
				in <- button.Event{Gesture: button.DoublePress}
				time.Sleep(time.Second)
				in <- button.Event{Gesture: tc.then}
				synctest.Wait()
				var got []pipeline.Event
				for len(out) > 0 {
					got = append(got, <-out)
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("the pipeline got %v at once, want %v", got, tc.want)
				}
				time.Sleep(time.Minute)
				synctest.Wait()
				spk.mu.Lock()
				if !slices.Equal(spk.ended, tc.ended) || spk.overlap != 1 || mutes != 0 {
					t.Errorf("sayings ended %q, %d at once, %d mutes; want %q, one at a time, no mute", spk.ended, spk.overlap, mutes, tc.ended)
				}
				spk.mu.Unlock()
				cancel()
				<-done
			})
		})
	}
}

// TestGesturesStopWaitsForWhatIsSaid: Run cuts short what is being said
// when its context is done, and returns once it is over.
func TestGesturesStopWaitsForWhatIsSaid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in, out := make(chan button.Event), make(chan pipeline.Event, 4)
		spk := &speaker{}
		o := Options{Log: slog.New(slog.DiscardHandler), Reset: func(error) {}, Say: func(context.Context, string) {},
			Pending: func(ctx context.Context) bool { spk.say(ctx); return true }}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { Run(ctx, o, in, out); close(done) }()
		in <- button.Event{Gesture: button.DoublePress}
		time.Sleep(2 * time.Second)
		cancel()
		<-done
		spk.mu.Lock()
		defer spk.mu.Unlock()
		if !slices.Equal(spk.ended, []string{"cut after 2s"}) {
			t.Errorf("when Run returned, sayings ended %q; want the one under way cut short", spk.ended)
		}
	})
}

// TestLetGoWhileTheLastNumberIsSaid: a speaker slow to say each number
// (one that failed and is said again, 1.2 s a sentence) leaves the next
// second's tick waiting when the button is let go during "1": the release
// cancels, every time, however the two are picked.
func TestLetGoWhileTheLastNumberIsSaid(t *testing.T) {
	for i := range 24 {
		synctest.Test(t, func(t *testing.T) {
			in := make(chan button.Event)
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			var mu sync.Mutex
			var said []string
			say := func(_ context.Context, s string) {
				mu.Lock()
				said = append(said, s)
				mu.Unlock()
				time.Sleep(1200 * time.Millisecond)
			}
			reset := make(chan bool, 1)
			go func() { reset <- Countdown(ctx, "en", say, in, 5) }()
			for {
				time.Sleep(100 * time.Millisecond)
				mu.Lock()
				last := said[len(said)-1]
				mu.Unlock()
				if last == "1" {
					break
				}
			}
			go func() {
				select {
				case in <- button.Event{Gesture: button.Release}:
				case <-ctx.Done():
				}
			}()
			if <-reset {
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("run %d: let go while %q was said, and the box reset: said %q", i, "1", said)
			}
		})
	}
}
