package leds

import (
	"context"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/voice"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/spi/spitest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestChoosePriority(t *testing.T) {
	for _, tc := range []struct {
		s    Status
		dim  bool
		want string
	}{
		{Status{State: voice.Idle}, false, "off"},
		{Status{State: voice.Idle}, true, "idle"},
		{Status{State: voice.Listening}, false, "listening"},
		{Status{State: voice.Listening, FollowUp: true}, false, "follow-up"},
		{Status{State: voice.Transcribing}, false, "thinking"},
		{Status{State: voice.Thinking}, false, "thinking"},
		{Status{State: voice.Speaking}, false, "speaking"},
		{Status{State: voice.Ringing}, false, "ringing"},
		{Status{State: voice.Speaking, Updating: true}, false, "updating"},
		{Status{State: voice.Ringing, Updating: true}, false, "updating"},
		{Status{State: voice.Ringing, Muted: true, Updating: true}, false, "muted"},
		{Status{State: voice.Error, Muted: true}, false, "error"},
		{Status{State: voice.Idle, Failed: true, Muted: true}, false, "error"},
		{Status{State: voice.Idle, Full: true}, true, "storage-full"},
		{Status{State: voice.Listening, Full: true}, false, "listening"},
		{Status{State: voice.Speaking, Full: true}, false, "speaking"},
		{Status{State: voice.Idle, Full: true, Muted: true}, false, "muted"},
		{Status{State: voice.Idle, Starting: true}, false, "starting"},
		{Status{State: voice.Thinking, Starting: true}, false, "starting"},
		{Status{State: voice.Listening, Starting: true}, false, "listening"},
		{Status{State: voice.Speaking, Starting: true}, false, "speaking"},
		{Status{State: voice.Idle, Starting: true, Full: true}, false, "starting"},
		{Status{State: voice.Idle, Starting: true, Muted: true}, false, "muted"},
		{Status{State: voice.Idle, StorageFault: true}, true, "storage-fault"},
		{Status{State: voice.Idle, StorageFault: true, Full: true}, false, "storage-fault"},
		{Status{State: voice.Speaking, StorageFault: true}, false, "speaking"},
		{Status{State: voice.Ringing, StorageFault: true}, false, "ringing"},
	} {
		if got := Choose(tc.s, tc.dim).Name; got != tc.want {
			t.Errorf("Choose(%+v, dim %v) = %s, want %s", tc.s, tc.dim, got, tc.want)
		}
	}
}

// The exact bytes the APA102 chain gets for each state's first frame,
// through periph's driver at brightness 0.5.
func TestAPA102BytesPerState(t *testing.T) {
	patterns := []Pattern{Off, DimIdle, Listening, FollowUp, Thinking, Speaking, Ringing, Updating, Muted, Error, Starting}
	var b strings.Builder
	for _, p := range patterns {
		rec := &spitest.Record{}
		strip, err := NewAPA102(rec, 3, 0.5)
		if err != nil {
			t.Fatal(err)
		}
		if err := strip.Show(p.Frame(3, 0)); err != nil {
			t.Fatal(err)
		}
		if len(rec.Ops) != 1 {
			t.Fatalf("%s: %d SPI transfers, want 1", p.Name, len(rec.Ops))
		}
		fmt.Fprintf(&b, "%-10s %s\n", p.Name, hex.EncodeToString(rec.Ops[0].W))
	}
	golden := "testdata/apa102.golden"
	if *update {
		os.WriteFile(golden, []byte(b.String()), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("APA102 bytes changed (go test -update to accept):\n got:\n%s\nwant:\n%s", b.String(), want)
	}
}

func TestFrameAnimations(t *testing.T) {
	// A spin lights each LED in turn.
	var lit []int
	for ms := 0; ms < 900; ms += 300 {
		f := Thinking.Frame(3, time.Duration(ms)*time.Millisecond)
		lit = append(lit, slices.IndexFunc(f, func(c Color) bool { return c == Thinking.Color }))
	}
	if !slices.Equal(lit, []int{0, 1, 2}) {
		t.Errorf("spin lit %v over one turn, want 0, 1, 2", lit)
	}
	// A pulse breathes from 30 % to full.
	lo, hi := Speaking.Frame(1, 0)[0], Speaking.Frame(1, 600*time.Millisecond)[0]
	if lo != Speaking.Color.scale(0.3) || hi != Speaking.Color {
		t.Errorf("pulse from %v to %v", lo, hi)
	}
	// A blink is on, then off.
	if on, off := Ringing.Frame(2, 0), Ringing.Frame(2, 600*time.Millisecond); on[0] != Ringing.Color || off[0] != (Color{}) {
		t.Errorf("blink %v then %v", on, off)
	}
}

// recorder is a strip that keeps what it showed, and can be made slow.
type recorder struct {
	mu     sync.Mutex
	shown  [][]Color
	at     []time.Duration
	start  time.Time
	stall  chan struct{} // when set, Show waits on it
	length int
}

func (r *recorder) Len() int { return r.length }

func (r *recorder) Show(c []Color) error {
	if r.stall != nil {
		<-r.stall
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shown = append(r.shown, slices.Clone(c))
	r.at = append(r.at, time.Since(r.start))
	return nil
}

func (r *recorder) frames() [][]Color {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.shown)
}

func (r *recorder) last() []Color {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.shown[len(r.shown)-1]
}

func runDisplay(t *testing.T, strip Strip, o Options) *Display {
	d := NewDisplay(strip, o)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return d
}

func TestDisplayFollowsTheState(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{length: 3, start: time.Now()}
		d := runDisplay(t, r, Options{})
		synctest.Wait()
		if got := r.last(); !slices.Equal(got, Off.Frame(3, 0)) {
			t.Fatalf("at start %v, want off", got)
		}
		d.SetState(voice.Status{State: voice.Listening})
		synctest.Wait()
		if got := r.last(); !slices.Equal(got, Listening.Frame(3, 0)) {
			t.Errorf("listening shows %v", got)
		}
		// The microphone muted: muted outranks listening.
		d.SetMuted(true)
		synctest.Wait()
		if got := r.last(); !slices.Equal(got, Muted.Frame(3, 0)) {
			t.Errorf("muted shows %v", got)
		}
		// A solid pattern is drawn once: nothing moves, nothing is sent.
		n := len(r.frames())
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got := len(r.frames()); got != n {
			t.Errorf("a solid pattern was redrawn %d times", got-n)
		}
		d.SetMuted(false)
		d.SetState(voice.Status{State: voice.Thinking})
		time.Sleep(time.Second)
		synctest.Wait()
		// A spin of 900 ms moves three times a turn, at 25 frames a second.
		if moved := len(r.frames()) - n - 1; moved < 3 || moved > 5 {
			t.Errorf("the spin was drawn %d times in a second", moved)
		}
	})
}

func TestErrorIsHeldButAPressClearsIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{length: 1, start: time.Now()}
		d := runDisplay(t, r, Options{ErrorHold: 2 * time.Second})
		d.SetState(voice.Status{State: voice.Error})
		d.SetState(voice.Status{State: voice.Idle})
		time.Sleep(1500 * time.Millisecond)
		synctest.Wait()
		saw := false
		for _, f := range r.frames() {
			saw = saw || f[0] == Error.Color
		}
		if !saw {
			t.Error("the error was not shown after the pipeline went idle")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if got := r.last(); got[0] != (Color{}) {
			t.Errorf("2.5 s after the error: %v, want off", got)
		}
		d.SetState(voice.Status{State: voice.Error})
		d.SetState(voice.Status{State: voice.Listening})
		synctest.Wait()
		if got := r.last(); got[0] != Listening.Color {
			t.Errorf("a press after an error shows %v, want listening at once", got)
		}
	})
}

// A strip that hangs never holds up whoever reports the state.
func TestSettingTheStateNeverBlocks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &recorder{length: 3, start: time.Now(), stall: make(chan struct{})}
		d := runDisplay(t, r, Options{})
		for i := range 1000 {
			d.SetState(voice.Status{State: voice.State(i % 5)})
			d.SetMuted(i%2 == 0)
		}
		d.SetMuted(false)
		d.SetState(voice.Status{State: voice.Speaking})
		close(r.stall) // the strip recovers and shows the latest state
		synctest.Wait()
		time.Sleep(50 * time.Millisecond)
		synctest.Wait()
		if got := r.last(); got[0] != Speaking.Frame(3, 0)[0] && got[0] != Speaking.Frame(3, 40*time.Millisecond)[0] {
			t.Errorf("after the stall: %v, want speaking", got)
		}
	})
}

func TestPlainLEDs(t *testing.T) {
	pins := []*gpiotest.Pin{{N: "GPIO22"}, {N: "GPIO23"}, {N: "GPIO24"}}
	s, err := NewPins(pins[0], pins[1], pins[2])
	if err != nil {
		t.Fatal(err)
	}
	levels := func() string {
		var b strings.Builder
		for _, p := range pins {
			if p.Read() == gpio.High {
				b.WriteByte('1')
			} else {
				b.WriteByte('0')
			}
		}
		return b.String()
	}
	for _, tc := range []struct {
		p    Pattern
		t    time.Duration
		want string
	}{
		{Off, 0, "000"},
		{DimIdle, 0, "000"}, // plain LEDs cannot dim
		{Listening, 0, "111"},
		{FollowUp, 0, "111"},
		{Muted, 0, "111"},
		{Thinking, 400 * time.Millisecond, "010"},
		{Ringing, 600 * time.Millisecond, "000"},
	} {
		if err := s.Show(tc.p.Frame(3, tc.t)); err != nil {
			t.Fatal(err)
		}
		if got := levels(); got != tc.want {
			t.Errorf("%s at %v: LEDs %s, want %s", tc.p.Name, tc.t, got, tc.want)
		}
	}
}

// failingStrip is an LED line that fails every frame (a pin another
// program took, a loose HAT, an SPI transfer that errs) until fixed.
type failingStrip struct {
	mu    sync.Mutex
	fixed bool
	tries int // calls to Show
	shown int
	last  []Color // the last frame shown
}

func (f *failingStrip) Len() int { return 3 }
func (f *failingStrip) Show(c []Color) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tries++
	if !f.fixed {
		return errors.New("leds: LED on GPIO22: device or resource busy")
	}
	f.shown++
	f.last = slices.Clone(c)
	return nil
}

func (f *failingStrip) fix(fixed bool) {
	f.mu.Lock()
	f.fixed = fixed
	f.mu.Unlock()
}

// lineCounter counts log lines by level.
type lineCounter struct {
	mu    sync.Mutex
	warn  int
	info  int
	lines []string
}

func (c *lineCounter) Enabled(context.Context, slog.Level) bool { return true }
func (c *lineCounter) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.Level >= slog.LevelWarn {
		c.warn++
	} else {
		c.info++
	}
	c.lines = append(c.lines, r.Message)
	return nil
}
func (c *lineCounter) WithAttrs([]slog.Attr) slog.Handler { return c }
func (c *lineCounter) WithGroup(string) slog.Handler      { return c }

// A failing LED line under a spinning pattern (25 frames a second) logs
// its failure once a minute, not once a frame, and says when it works
// again.
func TestFailingLEDsLogOnceAMinute(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		strip := &failingStrip{}
		log := &lineCounter{}
		d := runDisplay(t, strip, Options{Log: slog.New(log)})
		d.SetState(voice.Status{State: voice.Thinking})
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		log.mu.Lock()
		warn := log.warn
		log.mu.Unlock()
		t.Logf("figure: a failing LED line logged %d lines in 5 minutes of spinning (%.1f per minute)", warn, float64(warn)/5)
		if warn < 1 || warn > 6 {
			t.Errorf("%d warnings in 5 minutes; want the first and then one a minute", warn)
		}
		strip.mu.Lock()
		strip.fixed = true
		strip.mu.Unlock()
		time.Sleep(time.Second)
		synctest.Wait()
		log.mu.Lock()
		defer log.mu.Unlock()
		if !slices.Contains(log.lines, "LEDs work again") {
			t.Errorf("no line says the LEDs work again: %v", log.lines)
		}
	})
}

// A steady pattern has no next frame to try a failed write again: one SPI
// transfer that fails as the microphone is muted must not leave the LEDs
// showing the state before. The frame is tried again until the line
// takes it, a few times a second, not in a loop.
func TestSteadyPatternShownOnceTheLineWorks(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		strip := &failingStrip{fixed: true}
		d := runDisplay(t, strip, Options{})
		d.SetState(voice.Status{State: voice.Idle})
		synctest.Wait()
		strip.fix(false)
		d.SetMuted(true)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		strip.mu.Lock()
		if tried := strip.tries - 1; tried < 2 || tried > int(10*time.Second/showRetry)+1 {
			t.Errorf("the muted frame was tried %d times in 10 s of failures, want once every %v", tried, showRetry)
		}
		strip.mu.Unlock()
		strip.fix(true)
		time.Sleep(time.Second)
		synctest.Wait()
		strip.mu.Lock()
		defer strip.mu.Unlock()
		if !slices.Equal(strip.last, Muted.Frame(3, 0)) {
			t.Errorf("a second after the line works again: the LEDs show %v, want muted %v", strip.last, Muted.Frame(3, 0))
		}
		if strip.shown != 2 {
			t.Errorf("%d frames shown, want off and then muted: a steady pattern is drawn once", strip.shown)
		}
	})
}
