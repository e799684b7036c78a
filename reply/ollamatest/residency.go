package ollamatest

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"
)

// Residency: a model with a LoadDelay starts unloaded, as on a server that
// has just started, and is loaded by the first request that needs it, as
// Ollama's scheduler does: the load takes LoadDelay; requests that come
// meanwhile wait for it; a client that goes away before the load is done
// aborts it ("client connection closed before server finished loading,
// aborting load"), and the model stays unloaded. A request with keep_alive
// 0 and no messages (or /api/generate with no prompt) unloads it; with no
// messages otherwise, it only loads it.
//
// /api/ps lists a model from the moment its load begins, as Ollama v0.17
// does for a model its own engine runs (gemma3, qwen3, and any model with
// OLLAMA_NEW_ENGINE=1; a model on llama.cpp's engine is listed only once
// loaded). Its expiry is Ollama's: set when a request that used the model
// ends with no other under way (then plus the keep-alive the requests last
// gave), and left alone while requests are under way, which a model never
// expires during. Until the first such end after a load there is none, and
// /api/ps shows one computed afresh at each listing, now plus the
// keep-alive: a loading model's expiry moves from one listing to the next,
// a loaded one's stands still. (server/routes.go PsHandler and
// server/sched.go in Ollama v0.17.4; the real server's test in
// reply/ollama_test.go watches it do so.)

// residency is one model's place in memory.
type residency struct {
	loaded bool
	// session is the keep-alive the model's requests last gave it.
	session time.Duration
	// expires is when the model is unloaded: set when its last request
	// under way ends; zero until one has, since the model was loaded.
	expires time.Time
	busy    int // requests using the model now
	// loading is closed when the load under way ends, loaded or aborted.
	loading chan struct{}
	began   time.Time
}

// defaultKeepAlive is Ollama's default keep_alive.
const defaultKeepAlive = 5 * time.Minute

// forever is the keep-alive of a negative keep_alive, as Ollama reads it:
// the longest duration, whose expiry lands in the 2300s.
const forever = time.Duration(math.MaxInt64)

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
			return forever, true
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
			return forever, true
		}
		return d, true
	}
	return defaultKeepAlive, false
}

// resident returns the residency of a model, made on first use: a model
// without a LoadDelay is loaded from the start, as if it had answered a
// request a moment before.
func (s *Server) resident(m Model) *residency {
	if s.residents == nil {
		s.residents = map[string]*residency{}
	}
	name := normalize(m.Name)
	r, ok := s.residents[name]
	if !ok {
		r = &residency{loaded: m.LoadDelay == 0, session: defaultKeepAlive}
		if r.loaded {
			r.expires = time.Now().Add(defaultKeepAlive)
		}
		s.residents[name] = r
	}
	if r.loaded && r.busy == 0 && !r.expires.IsZero() && time.Now().After(r.expires) {
		r.loaded = false // it expired
	}
	return r
}

// ensureLoaded waits until m is loaded, loading it for this request when
// nobody is (with the request's keep_alive raw, or the default), and
// reports how long this request spent loading it. It returns false when
// the client went away first; a load this request was doing is then
// aborted.
func (s *Server) ensureLoaded(r *http.Request, rec *Request, m Model, raw json.RawMessage) (time.Duration, bool) {
	session, _ := keepAlive(raw)
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
		res.session, res.expires = session, time.Time{} // a new runner: no expiry yet
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
// "load"), a request that ends as soon as the model is in memory, or with
// keep_alive 0 unloads it at once ("unload"). It is false when the load
// did not finish (the error is answered).
func (s *Server) loadOrUnload(r *http.Request, rec *Request, m Model, raw json.RawMessage) (reason string, ok bool) {
	if d, set := keepAlive(raw); set && d == 0 {
		s.mu.Lock()
		s.resident(m).loaded = false
		s.mu.Unlock()
		return "unload", true
	}
	if _, ok := s.ensureLoaded(r, rec, m, raw); !ok {
		return "", false
	}
	s.use(m, raw)()
	return "load", true
}

// use counts a request that uses the loaded model m until the returned
// func is called, as Ollama's scheduler does: the request's keep_alive,
// when it gives one, becomes the model's, and when the last request under
// way ends the model expires that long after (keep_alive 0: it is unloaded
// then).
func (s *Server) use(m Model, raw json.RawMessage) (done func()) {
	d, set := keepAlive(raw)
	s.mu.Lock()
	res := s.resident(m)
	res.busy++
	if set {
		res.session = d
	}
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if res.busy--; res.busy > 0 {
			return
		}
		if res.session == 0 {
			res.loaded, res.expires = false, time.Time{}
			return
		}
		res.expires = time.Now().Add(res.session)
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
		if res.loading != nil || exp.IsZero() {
			exp = time.Now().Add(res.session) // none set yet: now plus the keep-alive, afresh
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
