package health

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/voice"
)

type mic struct {
	last time.Time
	down error
}

func (m *mic) Health() (time.Time, error) { return m.last, m.down }

func TestSelfTest(t *testing.T) {
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	broken := errors.New("storage: read settings: disk I/O error")
	tests := []struct {
		name      string
		storage   error
		mic       *mic
		listening Listening
		want      map[string]bool // check name → OK
		detail    map[string]string
	}{
		{"all well on a board", nil, &mic{last: now.Add(-20 * time.Millisecond)}, Listening{Engine: "whisper.cpp, base.en loaded"},
			map[string]bool{"storage": true, "microphone": true, "speech-to-text": true},
			map[string]string{"microphone": "capturing", "speech-to-text": "whisper.cpp, base.en loaded"}},
		{"storage fails", broken, &mic{last: now}, Listening{Engine: "x"},
			map[string]bool{"storage": false, "microphone": true, "speech-to-text": true},
			map[string]string{"storage": broken.Error()}},
		{"muted is healthy", nil, &mic{last: now.Add(-time.Hour), down: voice.ErrMuted}, Listening{Engine: "x"},
			map[string]bool{"storage": true, "microphone": true, "speech-to-text": true},
			map[string]string{"microphone": "muted"}},
		{"capture stalled", nil, &mic{last: now.Add(-7 * time.Second)}, Listening{Engine: "x"},
			map[string]bool{"storage": true, "microphone": false, "speech-to-text": true},
			map[string]string{"microphone": "capture stalled 7s ago"}},
		{"no model on a board", nil, &mic{last: now}, Listening{Why: "no speech-to-text model is set (whisper.model)"},
			map[string]bool{"storage": true, "microphone": true, "speech-to-text": false},
			map[string]string{"speech-to-text": "no speech-to-text model is set (whisper.model)"}},
		{"simulation without a model says what hears", nil, nil, Listening{Engine: "typed input (simulation: no speech-to-text model is set (whisper.model))"},
			map[string]bool{"storage": true, "microphone": true, "speech-to-text": true},
			map[string]string{"microphone": "simulated", "speech-to-text": "typed input (simulation: no speech-to-text model is set (whisper.model))"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Options{Version: "1.2", Storage: func(context.Context) error { return tt.storage }, Listening: tt.listening, Now: func() time.Time { return now }}
			if tt.mic != nil {
				o.Mic = tt.mic
			}
			s := New(o).Status(t.Context())
			if len(s.Checks) != 3 {
				t.Fatalf("checks %+v", s.Checks)
			}
			for _, c := range s.Checks {
				if c.OK != tt.want[c.Name] {
					t.Errorf("%s: ok %v (%s), want %v", c.Name, c.OK, c.Detail, tt.want[c.Name])
				}
				if d, ok := tt.detail[c.Name]; ok && c.Detail != d {
					t.Errorf("%s: detail %q, want %q", c.Name, c.Detail, d)
				}
			}
			if s.Ready {
				t.Error("ready before the pipeline was followed")
			}
		})
	}
}

func TestAliveFollowsTheCaptureLoop(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &mic{last: time.Now()}
		b := New(Options{Storage: func(context.Context) error { return nil }, Mic: m})
		if !b.Alive() {
			t.Error("not alive with a fresh heartbeat")
		}
		time.Sleep(StallAfter + time.Second)
		if b.Alive() {
			t.Error("alive after the capture loop stalled")
		}
		if !New(Options{Storage: func(context.Context) error { return nil }}).Alive() {
			t.Error("a simulation without a capture loop is not alive")
		}
	})
}

func TestSetUpdatingShowsOnTheLEDs(t *testing.T) {
	var shown []bool
	b := New(Options{Storage: func(context.Context) error { return nil }, Updating: func(on bool) { shown = append(shown, on) }})
	b.SetUpdating(true, 10)
	b.SetUpdating(false, 100)
	if len(shown) != 2 || !shown[0] || shown[1] {
		t.Errorf("LEDs shown %v, want on then off", shown)
	}
}

func TestStorageFull(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		full := errors.New("storage: the storage is full: 3.0 MiB free")
		var mu sync.Mutex
		var now error
		set := func(err error) { mu.Lock(); now = err; mu.Unlock() }
		b := New(Options{Storage: func(context.Context) error { return nil }, Full: func() error { mu.Lock(); defer mu.Unlock(); return now }})
		var seen []bool
		go b.WatchStorage(t.Context(), 10*time.Second, func(f bool, _ error) { mu.Lock(); seen = append(seen, f); mu.Unlock() })
		synctest.Wait()
		set(full)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		st := b.Status(t.Context())
		if c := st.Checks[0]; !c.OK || c.Detail != "open, but full: "+full.Error() {
			t.Errorf("storage check while full: %+v; want passing, saying it is full", c)
		}
		time.Sleep(30 * time.Second) // still full: no repeat
		set(nil)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if len(seen) != 2 || !seen[0] || seen[1] {
			t.Errorf("changes %v, want full once, then room", seen)
		}
	})
}

// TestTurnsInFlightAreNotIdle: with the microphone idle, a typed question
// being answered makes the box busy: its state says so, WaitIdle waits
// for the answer's end, and Idle is false.
func TestTurnsInFlightAreNotIdle(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := New(Options{Storage: func(context.Context) error { return nil }, Ready: true})
		end := b.Begin()
		if s := b.Status(t.Context()); s.State != "answering" || s.Turns != 1 || b.Idle() {
			t.Errorf("status %q with %d turns, idle %v: want answering", s.State, s.Turns, b.Idle())
		}
		idle := make(chan error, 1)
		go func() { idle <- b.WaitIdle(t.Context()) }()
		synctest.Wait()
		select {
		case <-idle:
			t.Fatal("WaitIdle returned while a turn was answered")
		default:
		}
		end()
		end() // a second end counts once
		if err := <-idle; err != nil {
			t.Fatal(err)
		}
		if s := b.Status(t.Context()); s.State != "idle" || s.Turns != 0 || !b.Idle() {
			t.Errorf("after the answer: %q, %d turns", s.State, s.Turns)
		}
	})
}

// Settings that did not load fail the settings check as the data
// partition's: said, but not a reason to roll an update back; settings
// that loaded add no check.
func TestSettingsThatDidNotLoad(t *testing.T) {
	var problem error
	b := New(Options{Storage: func(context.Context) error { return nil }, Ready: true, State: "idle",
		Settings: func() error { return problem }})
	if s := b.Status(t.Context()); len(s.Checks) != 1 {
		t.Errorf("settings that loaded: checks %+v, want the storage's only", s.Checks)
	}
	problem = errors.New("settings.toml:3: audio.volume: \"loud\" is not a whole number")
	s := b.Status(t.Context())
	if len(s.Checks) != 2 || s.Checks[1].Name != "settings" || s.Checks[1].OK || !s.Checks[1].Data || s.Checks[1].Detail != problem.Error() {
		t.Errorf("settings that did not load: checks %+v", s.Checks)
	}
	if ok, why := s.Healthy(); !ok {
		t.Errorf("unhealthy for the settings: %s", why)
	}
}
