// Package ratelog keeps a failing device or disk from flooding the log: a
// line that repeats is let through once per interval, and the next one that
// goes through says how many were held back. Drivers that can fail on every
// frame or period (the LEDs, ALSA, Badger's flusher) log through it.
package ratelog

import (
	"sync"
	"time"
)

// Limiter lets each kind of line through at most once per Every. The zero
// value is not usable; use New. Safe for concurrent use.
type Limiter struct {
	every time.Duration
	now   func() time.Time

	mu    sync.Mutex
	lines map[string]*seen
}

type seen struct {
	last time.Time
	held int
}

// New returns a Limiter that lets each key through once per every.
func New(every time.Duration) *Limiter {
	return &Limiter{every: every, now: time.Now, lines: map[string]*seen{}}
}

// Allow reports whether the line called key may be logged now, and how many
// were held back since the last one that was. The first line of a key always
// goes through.
func (l *Limiter) Allow(key string) (ok bool, held int) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	s, found := l.lines[key]
	if !found {
		l.lines[key] = &seen{last: now}
		return true, 0
	}
	if now.Sub(s.last) < l.every {
		s.held++
		return false, 0
	}
	held = s.held
	s.last, s.held = now, 0
	return true, held
}

// Reset forgets key, so that its next line goes through at once and
// Allow reports nothing held: call it when the fault has cleared. It
// returns how many lines were held back since the last one let through.
func (l *Limiter) Reset(key string) (held int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.lines[key]; ok {
		held = s.held
		delete(l.lines, key)
	}
	return held
}
