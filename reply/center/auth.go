package center

import (
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
		src := source(r)
		if !s.guesses.may(src) {
			w.Header().Set("Retry-After", "10")
			fail(w, http.StatusTooManyRequests, "too many wrong keys from this address: wait and try again")
			return
		}
		node, err := s.o.Keys.Check(r.Context(), cred)
		if errors.Is(err, ErrBadCredential) {
			s.guesses.wrong(src)
			s.log.Warn("a request with an unknown node or a wrong key", "from", r.RemoteAddr)
			fail(w, http.StatusUnauthorized, "unknown node or wrong key")
			return
		}
		if err != nil {
			fail(w, http.StatusInternalServerError, err.Error())
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
// as one): a burst of badKeyBurst, then one each badKeyEvery; at most
// maxSources addresses are remembered.
type guesses struct {
	mu      sync.Mutex
	sources map[string]*rate.Limiter
}

const (
	badKeyBurst = 10
	badKeyEvery = 10 * time.Second
	maxSources  = 4096
)

// may reports whether src may try a key now.
func (g *guesses) may(src string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	l, ok := g.sources[src]
	return !ok || l.Tokens() >= 1
}

// wrong counts a wrong key from src.
func (g *guesses) wrong(src string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sources == nil {
		g.sources = map[string]*rate.Limiter{}
	}
	l, ok := g.sources[src]
	if !ok {
		for k := range g.sources { // full: forget one, any
			if len(g.sources) < maxSources {
				break
			}
			delete(g.sources, k)
		}
		l = rate.NewLimiter(rate.Every(badKeyEvery), badKeyBurst)
		g.sources[src] = l
	}
	l.Allow()
}

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
