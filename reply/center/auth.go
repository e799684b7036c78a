package center

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

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
		node, err := s.o.Keys.Check(r.Context(), cred)
		if errors.Is(err, ErrBadCredential) {
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
