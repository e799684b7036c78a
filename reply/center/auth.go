package center

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// credential is the NODE_ID:KEY a request carries, in any of the three
// forms nodes send it: X-API-Key: ID:KEY (a Jarvis node), X-Node-ID: ID
// with X-API-Key: KEY (an older Jarvis node), or Authorization: Bearer
// ID:KEY (a Hark node).
func credential(h http.Header) (string, bool) {
	key := strings.TrimSpace(h.Get("X-API-Key"))
	if id := strings.TrimSpace(h.Get("X-Node-ID")); id != "" && key != "" {
		if strings.HasPrefix(key, id+":") {
			return key, true
		}
		return id + ":" + key, true
	}
	if key != "" {
		return key, true
	}
	if bearer, ok := strings.CutPrefix(h.Get("Authorization"), "Bearer "); ok && strings.TrimSpace(bearer) != "" {
		return strings.TrimSpace(bearer), true
	}
	return "", false
}

// authed checks the node's key, its request rate and the body's size,
// which limit bounds.
func (s *Server) authed(limit int64, h func(w http.ResponseWriter, r *http.Request, node NodeInfo)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		cred, ok := credential(r.Header)
		if !ok {
			fail(w, http.StatusUnauthorized, "missing credentials: send X-API-Key: NODE_ID:KEY (or Authorization: Bearer NODE_ID:KEY)")
			return
		}
		// The guess is counted before its key is checked, so that keys
		// sent together are all counted.
		guess, ok := s.guesses.try(r.Context(), source(r))
		if !ok {
			w.Header().Set("Retry-After", "10")
			fail(w, http.StatusTooManyRequests, "too many wrong keys from this address: wait and try again")
			return
		}
		node, err := s.o.Keys.Check(r.Context(), cred)
		guess.settle(errors.Is(err, ErrBadCredential))
		if errors.Is(err, ErrBadCredential) {
			s.log.Warn("a request with an unknown node or a wrong key", "from", r.RemoteAddr)
			fail(w, http.StatusUnauthorized, "unknown node or wrong key")
			return
		}
		if err != nil {
			fail(w, http.StatusInternalServerError, s.internal("checking the key", err))
			return
		}
		if !s.limiter(node.ID).Allow() {
			w.Header().Set("Retry-After", "1")
			fail(w, http.StatusTooManyRequests, fmt.Sprintf("too many requests from node %s", node.ID))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, limit)
		h(w, r, node)
	}
}

func (s *Server) limiter(node string) *rate.Limiter {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.limits[node]
	if !ok {
		l = rate.NewLimiter(rate.Limit(s.o.Rate), s.o.Burst)
		s.limits[node] = l
	}
	return l
}

// guesses limits wrong keys by source address (an IPv6 host's /64 counts
// as one): a burst of badKeyBurst, then one each badKeyEvery. A guess
// spends a token when it is tried, before its key is checked, and gives
// it back when the key was right, so that keys sent together are held to
// the same burst as keys sent one by one. A guess that finds the tokens
// out with guesses still being checked waits for them rather than be
// refused: a source whose keys are right (a node's requests sent
// together, nodes behind one address) is never refused for them. At most
// maxSources addresses are remembered, and none with every token back.
type guesses struct {
	mu      sync.Mutex
	sources map[string]*allowance
}

const (
	badKeyBurst = 10
	badKeyEvery = 10 * time.Second
	maxSources  = 4096
)

// allowance is one source's tokens.
type allowance struct {
	tokens   float64 // as of at
	at       time.Time
	checking int           // guesses tried and not yet settled
	settled  chan struct{} // closed when one of them settles; nil while none waits
}

// guess is a guess being checked; settle it once.
type guess struct {
	g   *guesses
	src string
	a   *allowance
}

// try counts a guess from src, or refuses it (false) when src's wrong keys
// have spent its tokens. While the tokens are out with guesses still being
// checked, it waits for those to settle, or for ctx to end.
func (g *guesses) try(ctx context.Context, src string) (guess, bool) {
	for {
		g.mu.Lock()
		now := time.Now()
		a := g.allowance(src, now)
		a.refill(now)
		switch {
		case a.tokens >= 1:
			a.tokens--
			a.checking++
			g.mu.Unlock()
			return guess{g: g, src: src, a: a}, true
		case a.checking == 0:
			g.mu.Unlock()
			return guess{}, false
		}
		if a.settled == nil {
			a.settled = make(chan struct{})
		}
		settled := a.settled
		g.mu.Unlock()
		select {
		case <-settled:
		case <-ctx.Done():
			return guess{}, false
		}
	}
}

// settle ends the guess's check: a wrong key keeps its token spent; a
// right one, or a check that could not tell, gives it back.
func (c guess) settle(wrong bool) {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	a := c.a
	a.checking--
	a.refill(time.Now())
	if !wrong {
		a.tokens = min(a.tokens+1, badKeyBurst)
	}
	if a.settled != nil {
		close(a.settled)
		a.settled = nil
	}
	if a.full() && c.g.sources[c.src] == a {
		delete(c.g.sources, c.src)
	}
}

// allowance is src's, made when it has none.
func (g *guesses) allowance(src string, now time.Time) *allowance {
	if a, ok := g.sources[src]; ok {
		return a
	}
	if g.sources == nil {
		g.sources = map[string]*allowance{}
	}
	if len(g.sources) >= maxSources {
		g.forget(now)
	}
	a := &allowance{tokens: badKeyBurst, at: now}
	g.sources[src] = a
	return a
}

// forget makes room for one more source: it forgets those back to every
// token, then, if still full, one with no guess being checked (or, with
// none such, any one).
func (g *guesses) forget(now time.Time) {
	var quiet, busy string
	for src, a := range g.sources {
		a.refill(now)
		switch {
		case a.full():
			delete(g.sources, src)
		case a.checking == 0:
			quiet = src
		default:
			busy = src
		}
	}
	if len(g.sources) < maxSources {
		return
	}
	if quiet != "" {
		delete(g.sources, quiet)
	} else {
		delete(g.sources, busy)
	}
}

func (a *allowance) refill(now time.Time) {
	a.tokens = min(a.tokens+float64(now.Sub(a.at))/float64(badKeyEvery), badKeyBurst)
	a.at = now
}

// full reports an allowance no different from none: every token back,
// no guess being checked.
func (a *allowance) full() bool { return a.tokens >= badKeyBurst && a.checking == 0 }

// source is the address a request's wrong keys are counted by.
func source(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	if ip = ip.Unmap(); ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}
