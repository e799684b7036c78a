package web

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// guesses counts the passwords and setup codes tried on the page: per
// source address (maxFailures wrong in failWindow lock it out for
// lockFor) and overall (a token bucket). A guess is counted when it is
// tried, before it is checked, and taken back only when it was right, so
// that guesses sent together are all counted against the lock-out. At
// most maxSources addresses are remembered.
type guesses struct {
	now func() time.Time

	mu      sync.Mutex
	sources map[string]*tries
	all     *rate.Limiter
}

type tries struct {
	at     []time.Time // the guesses counted in the window
	locked time.Time   // locked until
	seen   time.Time
}

func newGuesses(now func() time.Time) guesses {
	return guesses{now: now, sources: map[string]*tries{}, all: rate.NewLimiter(rate.Every(globalEvery), globalBurst)}
}

// guess is one guess being checked.
type guess struct {
	g   *guesses
	src string
	at  time.Time
}

// try counts a guess from src, or refuses it: errLocked while src is
// locked out, errBusy while the page as a whole has had too many.
func (g *guesses) try(src string) (guess, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	now := g.now()
	t := g.sources[src]
	if t == nil {
		g.forgetOldest(now)
		t = &tries{}
		g.sources[src] = t
	}
	t.seen = now
	if now.Before(t.locked) {
		return guess{}, errLocked
	}
	if !g.all.AllowN(now, 1) {
		return guess{}, errBusy
	}
	recent := t.at[:0]
	for _, at := range t.at {
		if now.Sub(at) < failWindow {
			recent = append(recent, at)
		}
	}
	t.at = append(recent, now)
	if len(t.at) > maxFailures {
		t.locked, t.at = now.Add(lockFor), nil
		return guess{}, errLocked
	}
	return guess{g: g, src: src, at: now}, nil
}

// right takes the guess back: it was right.
func (c guess) right() {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	if t := c.g.sources[c.src]; t != nil {
		for i, at := range t.at {
			if at.Equal(c.at) {
				t.at = append(t.at[:i], t.at[i+1:]...)
				break
			}
		}
	}
}

// forgetOldest makes room for one more source: it forgets those neither
// locked nor seen within the window, then, if still full, the one seen
// longest ago.
func (g *guesses) forgetOldest(now time.Time) {
	if len(g.sources) < maxSources {
		return
	}
	var oldest string
	var oldestSeen time.Time
	for src, t := range g.sources {
		if now.After(t.locked) && now.Sub(t.seen) > failWindow {
			delete(g.sources, src)
			continue
		}
		if oldest == "" || t.seen.Before(oldestSeen) {
			oldest, oldestSeen = src, t.seen
		}
	}
	if len(g.sources) >= maxSources {
		delete(g.sources, oldest)
	}
}
