package ratelog

import (
	"testing"
	"time"
)

func TestLimiter(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	l := New(time.Minute)
	l.now = func() time.Time { return now }
	step := func(d time.Duration) { now = now.Add(d) }
	type want struct {
		ok   bool
		held int
	}
	check := func(key string, w want) {
		t.Helper()
		if ok, held := l.Allow(key); ok != w.ok || held != w.held {
			t.Errorf("Allow(%q) at %s = %v, %d; want %v, %d", key, now.Format("15:04:05"), ok, held, w.ok, w.held)
		}
	}
	check("led", want{true, 0})
	for range 25 * 60 { // a frame every 40 ms for a minute, less one
		step(40 * time.Millisecond)
		if now.Sub(time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)) >= time.Minute {
			break
		}
		check("led", want{false, 0})
	}
	check("xrun", want{true, 0}) // another key is not held back by the first
	step(time.Minute)
	check("led", want{true, 1499})
	check("led", want{false, 0})
	if held := l.Reset("led"); held != 1 {
		t.Errorf("Reset = %d held, want 1", held)
	}
	check("led", want{true, 0})
}
