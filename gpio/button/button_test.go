package button

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
)

// rig is a button on a fake pin, and what it reported, with when.
type rig struct {
	pin    *gpiotest.Pin
	events chan Event
	start  time.Time
}

func newRig(t *testing.T, o Options) *rig {
	t.Helper()
	pin := &gpiotest.Pin{N: "GPIO17", Num: 17, EdgesChan: make(chan gpio.Level, 64)}
	b, err := New(pin, o)
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{pin: pin, events: make(chan Event, 64), start: time.Now()}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { b.Run(ctx, r.events); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return r
}

// press and release push the contact's edges (active low).
func (r *rig) press()   { r.pin.EdgesChan <- gpio.Low }
func (r *rig) release() { r.pin.EdgesChan <- gpio.High }

// got is what the button reported so far, as "gesture@ms".
func (r *rig) got() []string {
	synctest.Wait()
	var out []string
	for {
		select {
		case ev := <-r.events:
			out = append(out, ev.Gesture.String()+"@"+ev.At.Sub(r.start).Round(time.Millisecond).String())
		default:
			return out
		}
	}
}

func check(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestPressCountsAtOnceAndBouncesAreIgnored(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{})
		time.Sleep(100 * time.Millisecond)
		// A contact that chatters for 5 ms on the way down and on the way up.
		r.press()
		r.release()
		r.press()
		time.Sleep(500 * time.Millisecond)
		r.release()
		r.press()
		r.release()
		time.Sleep(time.Second)
		check(t, r.got(), "press@100ms", "release@600ms", "short press@600ms")
	})
}

func TestTapShorterThanTheLockout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{Debounce: 30 * time.Millisecond})
		r.press()
		time.Sleep(10 * time.Millisecond)
		r.release()
		time.Sleep(time.Second)
		// The release fell inside the lock-out: it is seen when it ends.
		check(t, r.got(), "press@0s", "release@30ms", "short press@30ms")
	})
}

func TestLongAndVeryLongPress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{})
		r.press()
		time.Sleep(12 * time.Second)
		r.release()
		time.Sleep(time.Second)
		check(t, r.got(), "press@0s", "long press@1.5s", "very long press@10s", "release@12s")
	})
}

func TestDoublePress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{})
		for _, gap := range []time.Duration{200 * time.Millisecond, 0} {
			r.press()
			time.Sleep(100 * time.Millisecond)
			r.release()
			time.Sleep(gap)
		}
		time.Sleep(2 * time.Second)
		check(t, r.got(), "press@0s", "release@100ms", "short press@100ms",
			"press@300ms", "release@400ms", "short press@400ms", "double press@400ms")
		// Two taps too far apart are two short presses.
		r.start = time.Now()
		r.press()
		time.Sleep(100 * time.Millisecond)
		r.release()
		time.Sleep(600 * time.Millisecond)
		r.press()
		time.Sleep(100 * time.Millisecond)
		r.release()
		time.Sleep(time.Second)
		check(t, r.got(), "press@0s", "release@100ms", "short press@100ms", "press@700ms", "release@800ms", "short press@800ms")
	})
}

// TestLongDoublePress: a tap, then a press held within the double-press
// gap, is a long double press in place of the long press, and holding on
// never becomes the factory reset's very long press; a hold after a gap
// too long is a plain long press again.
func TestLongDoublePress(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := newRig(t, Options{})
		for _, tc := range []struct {
			gap, hold time.Duration
			want      []string
		}{
			{200 * time.Millisecond, 12 * time.Second, []string{"press@0s", "release@100ms", "short press@100ms",
				"press@300ms", "long double press@1.8s", "release@12.3s"}},
			{600 * time.Millisecond, 2 * time.Second, []string{"press@0s", "release@100ms", "short press@100ms",
				"press@700ms", "long press@2.2s", "release@2.7s"}},
		} {
			r.start = time.Now()
			r.press()
			time.Sleep(100 * time.Millisecond)
			r.release()
			time.Sleep(tc.gap)
			r.press()
			time.Sleep(tc.hold)
			r.release()
			time.Sleep(time.Second)
			check(t, r.got(), tc.want...)
		}
	})
}

func TestActiveHighAndLevels(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pin := &gpiotest.Pin{N: "GPIO5", EdgesChan: make(chan gpio.Level, 8)}
		b, err := New(pin, Options{ActiveHigh: true})
		if err != nil {
			t.Fatal(err)
		}
		if pin.P != gpio.PullDown {
			t.Errorf("an active-high switch pulled %s, want down", pin.P)
		}
		levels := make(chan bool, 8)
		ctx, cancel := context.WithCancel(t.Context())
		go b.Levels(ctx, levels)
		time.Sleep(time.Second)
		pin.EdgesChan <- gpio.High // switched on
		time.Sleep(time.Second)
		pin.EdgesChan <- gpio.Low
		time.Sleep(time.Second)
		cancel()
		var got []bool
		for l := range levels {
			got = append(got, l)
		}
		if !slices.Equal(got, []bool{false, true, false}) {
			t.Errorf("levels %v, want off, on, off", got)
		}
	})
}

// unpulledPin is a line the kernel cannot pull (qemu's pl061 on the
// emulated board, which pulls every line low): it reads Low, pressed for
// an active-low button, whatever pull was asked for.
type unpulledPin struct{ *gpiotest.Pin }

func (p unpulledPin) In(pull gpio.Pull, edge gpio.Edge) error {
	err := p.Pin.In(pull, edge)
	p.Pin.Out(gpio.Low)
	return err
}

func TestHeldFromTheStartIsNoGesture(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pin := unpulledPin{&gpiotest.Pin{N: "GPIO17", Num: 17, EdgesChan: make(chan gpio.Level, 64)}}
		b, err := New(pin, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r := &rig{events: make(chan Event, 64), start: time.Now()}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { b.Run(ctx, r.events); close(done) }()
		t.Cleanup(func() { cancel(); <-done })
		// Held for 30 s from the start: no press, no long press and no very
		// long press (the factory reset's countdown), nor a release after.
		time.Sleep(30 * time.Second)
		pin.EdgesChan <- gpio.High
		time.Sleep(time.Second)
		check(t, r.got())
		// Once let go, a push counts.
		pin.EdgesChan <- gpio.Low
		time.Sleep(100 * time.Millisecond)
		pin.EdgesChan <- gpio.High
		time.Sleep(time.Second)
		check(t, r.got(), "press@31s", "release@31.1s", "short press@31.1s")
	})
}
