package box

import (
	"context"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/gpio/leds"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
)

// strip records the colours the LEDs show.
type strip struct {
	mu    sync.Mutex
	shown [][]leds.Color
}

func (s *strip) Show(c []leds.Color) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shown = append(s.shown, slices.Clone(c))
	return nil
}
func (s *strip) Len() int { return 3 }

// showed reports whether the strip ever showed a frame of p.
func (s *strip) showed(p leds.Pattern) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.shown {
		for t := time.Duration(0); t < p.Period; t += 40 * time.Millisecond {
			if slices.Equal(c, p.Frame(3, t)) {
				return true
			}
		}
	}
	return false
}

// dark reports whether the last frame shown, after the starting pattern,
// is off.
func (s *strip) dark() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.shown)
	return n > 1 && slices.Equal(s.shown[n-1], make([]leds.Color, 3))
}

// chimes counts what is played on it.
type chimes struct {
	mu     sync.Mutex
	played int
}

func (c *chimes) Open(context.Context) (pipeline.Playback, error) { return c, nil }
func (c *chimes) Format() (int, int)                              { return 16000, 1 }
func (c *chimes) Write(context.Context, pcm.Buffer) error {
	c.mu.Lock()
	c.played++
	c.mu.Unlock()
	return nil
}
func (c *chimes) Close(context.Context) error { return nil }
func (c *chimes) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.played
}

// TestModelLoadingShowsAndChimes: while the model loads the LEDs show the
// starting pattern; once it is ready the box chimes, once, and only when
// nobody is being answered.
func TestModelLoadingShowsAndChimes(t *testing.T) {
	for _, idle := range []bool{true, false} {
		m := testModel
		m.LoadDelay = 300 * time.Millisecond
		srv := ollamatest.New(m)
		defer srv.Close()
		u, _ := url.Parse(srv.URL)
		c, _ := llm.New(llm.Options{Host: u, Model: m.Name})
		k := llm.NewKeeper(llm.KeeperOptions{Server: c})
		defer k.Close()
		st, spk := &strip{}, &chimes{}
		disp := leds.NewDisplay(st, leds.Options{})
		r := &running{daemon: &daemon{}, b: &Box{brain: &brain{keeper: k}},
			dev: &devices{display: disp, speaker: spk, earcons: pipeline.Earcons{Ready: true}}}
		// Idle is an armed pipeline with nothing to do; not idle, one not
		// armed yet.
		status := health.New(health.Options{Storage: func(context.Context) error { return nil }, Ready: idle})
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Go(func() { disp.Run(ctx) })
		wg.Go(func() { r.showModel(ctx, status) })
		k.Ensure(ctx, nil)
		if err := k.Wait(ctx); err != nil {
			t.Fatal(err)
		}
		// The LEDs go dark again once the chime's turn has passed.
		for deadline := time.Now().Add(5 * time.Second); !st.dark() && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		wg.Wait()
		if !st.showed(leds.Starting) {
			t.Errorf("idle %v: the LEDs never showed the starting pattern while the model loaded", idle)
		}
		if want := map[bool]int{true: 1, false: 0}[idle]; spk.count() != want {
			t.Errorf("idle %v: chimed %d times, want %d", idle, spk.count(), want)
		}
	}
}
