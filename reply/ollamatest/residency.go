package ollamatest

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// Residency: a model with a LoadDelay starts unloaded, as on a server that
// has just started, and is loaded by the first request that needs it, as
// Ollama's scheduler does: the load takes LoadDelay; requests that come
// meanwhile wait for it; a client that goes away before the load is done
// aborts it ("client connection closed before server finished loading,
// aborting load"), and the model stays unloaded. /api/ps lists a model from
// the moment its load begins, as Ollama does, with when it expires. A
// request with keep_alive 0 and no messages (or /api/generate with no
// prompt) unloads it; with no messages otherwise, it only loads it.

// residency is one model's place in memory.
type residency struct {
	loaded  bool
	expires time.Time
	// loading is closed when the load under way ends, loaded or aborted.
	loading chan struct{}
	began   time.Time
}

// defaultKeepAlive is Ollama's default keep_alive.
const defaultKeepAlive = 5 * time.Minute

// keepAlive reads a request's keep_alive as Ollama does: seconds as a
// number, a duration as a string, negative for ever; absent is the default.
func keepAlive(raw json.RawMessage) (time.Duration, bool) {
	if len(raw) == 0 {
		return defaultKeepAlive, false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return defaultKeepAlive, false
	}
	switch t := v.(type) {
	case float64:
		if t < 0 {
			return -1, true
		}
		return time.Duration(t * float64(time.Second)), true
	case string:
		d, err := time.ParseDuration(t)
		if err != nil {
			if n, err := strconv.ParseFloat(t, 64); err == nil {
				return time.Duration(n * float64(time.Second)), true
			}
			return defaultKeepAlive, false
		}
		if d < 0 {
			return -1, true
		}
		return d, true
	}
	return defaultKeepAlive, false
}

// resident returns the residency of a model, made on first use: a model
// without a LoadDelay is loaded from the start.
func (s *Server) resident(m Model) *residency {
	if s.residents == nil {
		s.residents = map[string]*residency{}
	}
	name := normalize(m.Name)
	r, ok := s.residents[name]
	if !ok {
		r = &residency{loaded: m.LoadDelay == 0, expires: time.Now().Add(defaultKeepAlive)}
		s.residents[name] = r
	}
	if r.loaded && !r.expires.IsZero() && time.Now().After(r.expires) {
		r.loaded = false // it expired
	}
	return r
}

// ensureLoaded waits until m is loaded, loading it for this request when
// nobody is, and reports how long this request spent loading it. It
// returns false when the client went away first; a load this request was
// doing is then aborted.
func (s *Server) ensureLoaded(r *http.Request, rec *Request, m Model) (time.Duration, bool) {
	for {
		s.mu.Lock()
		res := s.resident(m)
		if res.loaded {
			s.mu.Unlock()
			return 0, true
		}
		if wait := res.loading; wait != nil {
			s.mu.Unlock()
			select {
			case <-wait:
				continue // loaded, or aborted: look again
			case <-r.Context().Done():
				s.cancelled(rec)
				return 0, false
			}
		}
		done := make(chan struct{})
		res.loading, res.began = done, time.Now()
		s.mu.Unlock()
		ok := s.load(r.Context(), m)
		s.mu.Lock()
		res.loading = nil
		if ok {
			res.loaded = true
			s.loads++
		} else {
			s.aborted++
		}
		close(done)
		took := time.Since(res.began)
		s.mu.Unlock()
		if !ok {
			s.cancelled(rec)
			return 0, false
		}
		return took, true
	}
}

// load takes m's LoadDelay, unless ctx ends first.
func (s *Server) load(ctx context.Context, m Model) bool {
	t := time.NewTimer(m.LoadDelay)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// loadOrUnload does what a request without words asks: loads m (reason
// "load"), or with keep_alive 0 unloads it ("unload"). It is false when
// the load did not finish (the error is answered).
func (s *Server) loadOrUnload(r *http.Request, rec *Request, m Model, raw json.RawMessage) (reason string, ok bool) {
	reason = "load"
	if d, set := keepAlive(raw); set && d == 0 {
		reason = "unload"
	} else if _, ok := s.ensureLoaded(r, rec, m); !ok {
		return "", false
	}
	s.keep(m, raw)
	return reason, true
}

// keep sets when m expires after a request with keep_alive raw: 0
// unloads it at once.
func (s *Server) keep(m Model, raw json.RawMessage) {
	d, _ := keepAlive(raw)
	s.mu.Lock()
	defer s.mu.Unlock()
	res := s.resident(m)
	switch {
	case d == 0:
		res.loaded = false
	case d < 0:
		res.expires = time.Time{}
	default:
		res.expires = time.Now().Add(d)
	}
}

// Unload unloads a model at once, as another client's keep_alive 0 or a
// server that needs the memory for another model does.
func (s *Server) Unload(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if res, ok := s.residents[normalize(name)]; ok {
		res.loaded = false
	}
}

// Loaded reports whether a model is loaded now.
func (s *Server) Loaded(name string) bool {
	m, ok := s.model(name)
	if !ok {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resident(m).loaded
}

// Loads counts the loads that finished, and Aborted those a client's
// leaving cut short.
func (s *Server) Loads() (loads, aborted int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.loads, s.aborted
}

// psModel is one model of /api/ps.
type psModel struct {
	Name      string    `json:"name"`
	Model     string    `json:"model"`
	Size      int64     `json:"size"`
	Digest    string    `json:"digest"`
	Details   details   `json:"details"`
	ExpiresAt time.Time `json:"expires_at"`
	SizeVRAM  int64     `json:"size_vram"`
	Context   int       `json:"context_length"`
}

// ps lists the models loaded or loading, as GET /api/ps does.
func (s *Server) ps(w http.ResponseWriter, r *http.Request, _ *Request) {
	s.mu.Lock()
	models := append([]Model(nil), s.models...)
	out := struct {
		Models []psModel `json:"models"`
	}{Models: []psModel{}}
	for _, m := range models {
		res := s.resident(m)
		if !res.loaded && res.loading == nil {
			continue
		}
		exp := res.expires
		switch {
		case res.loading != nil:
			exp = time.Now().Add(defaultKeepAlive) // Ollama's guess while loading
		case exp.IsZero():
			exp = time.Date(2318, 1, 1, 0, 0, 0, 0, time.UTC) // for ever
		}
		out.Models = append(out.Models, psModel{Name: normalize(m.Name), Model: normalize(m.Name),
			Size: parameterCount(m.ParameterSize) / 2, Details: m.details(), ExpiresAt: exp, Context: 4096})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, out)
}

// generate answers POST /api/generate for what Hark and its tests use it
// for: with no prompt, loading a model, or unloading it with keep_alive 0.
func (s *Server) generate(w http.ResponseWriter, r *http.Request, rec *Request) {
	var req struct {
		Model     string          `json:"model"`
		Prompt    string          `json:"prompt"`
		KeepAlive json.RawMessage `json:"keep_alive"`
	}
	if err := json.Unmarshal(rec.Body, &req); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return
	}
	m, ok := s.model(req.Model)
	if !ok {
		writeError(w, http.StatusNotFound, "model '"+req.Model+"' not found")
		return
	}
	if req.Prompt != "" {
		writeError(w, http.StatusNotImplemented, "ollamatest: /api/generate only loads and unloads")
		return
	}
	reason, ok := s.loadOrUnload(r, rec, m, req.KeepAlive)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"model": req.Model, "created_at": time.Now().UTC(), "response": "", "done": true, "done_reason": reason})
}
