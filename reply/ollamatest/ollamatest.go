// Package ollamatest is an Ollama-compatible HTTP server for tests. It speaks
// the wire format of Ollama's REST API (/api/chat as streaming NDJSON or one
// JSON object, tool calls, thinking, /api/show, /api/tags, /api/ps,
// /api/version, /api/generate to load and unload), answers from a script,
// shows the faults a real server shows (a connection dropped mid-stream,
// 400 "... does not support tools" and other refusals, 404 for a model that
// is not pulled, 500, an error line mid-stream, a slow first token), and records every request
// so that tests can check exactly what Hark sent.
//
// Like Ollama it can take time to load a model (Model.LoadDelay), aborting
// a load whose client goes away, and answer a limited number of chats at
// once (Limit), the others waiting their turn. It stops an answer at the
// request's num_predict (or the model's own, Model.Parameters, when the
// request sets none), a chunk counting as a token, and says so with
// done_reason "length".
//
// Hark's tests point the real Ollama client at it. Its wire structs are
// written out here from Ollama's API documentation and server, not borrowed
// from the client package, so a client that drifts from the wire format fails
// against it.
package ollamatest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Version is what /api/version reports.
const Version = "0.17.4"

// Model is a model the server pretends to have pulled.
type Model struct {
	Name          string   // "llama3.2:1b"; ":latest" is assumed when there is no tag
	Family        string   // "llama"
	ParameterSize string   // "1.2B"
	Quantization  string   // "Q8_0"
	Capabilities  []string // "completion", "tools", "thinking"
	ContextLength int
	// Template is what /api/show reports; default "{{ .Prompt }}".
	Template string
	// Parameters are the model's own options as its Modelfile sets them,
	// in /api/show's text form: a line each, the name, blanks and the
	// value ("num_predict    128"). Its num_predict bounds an answer
	// whose request sets none.
	Parameters string
	// PromptRate and GenRate, in tokens per second, are the speeds the
	// server reports in each answer's counters (it does not wait for
	// them); defaults 5,000 and 500, a GPU's.
	PromptRate, GenRate float64
	// LoadDelay, when set, is how long loading the model takes: it starts
	// unloaded, and the first request that needs it loads it (see
	// residency.go). Zero: the model is always loaded.
	LoadDelay time.Duration
}

// Fault is a failure the server shows instead of, or in the middle of, a reply.
type Fault int

// The scripted faults. Requests for a model the server does not have, tools
// for a model without the "tools" capability and thinking for one without
// "thinking" fail on their own, as on a real server.
const (
	NoFault Fault = iota
	// DropMidStream sends Reply.DropAfter chunks, then cuts the connection
	// without the final done chunk.
	DropMidStream
	// StreamError sends Reply.DropAfter chunks, then an error line, as Ollama
	// does when the model runner fails mid-answer.
	StreamError
	// ServerError answers 500 with Reply.Error.
	ServerError
	// NoTools answers 400 "<model> does not support tools".
	NoTools
	// ModelNotFound answers 404 as for a model that was never pulled.
	ModelNotFound
	// BadRequest answers 400 with Reply.Error, as Ollama refuses a request
	// it cannot take (an invalid format, options it does not know).
	BadRequest
)

// Reply is one scripted answer to a chat request.
type Reply struct {
	Content   string
	Thinking  string
	ToolCalls []ToolCall
	// Tokens, when set, are the content chunks to stream; otherwise Content
	// streams a word at a time.
	Tokens []string
	// FirstTokenDelay passes before the first chunk, TokenDelay between
	// chunks. Both end early when the client goes away.
	FirstTokenDelay time.Duration
	TokenDelay      time.Duration
	Fault           Fault
	DropAfter       int    // chunks before DropMidStream or StreamError
	Error           string // message for ServerError and StreamError
	// Gate, when set, holds the stream after GateAfter chunks until it is
	// closed, so a test can act while an answer is half written.
	Gate      <-chan struct{}
	GateAfter int
}

// ToolCall is a tool call the scripted model makes.
type ToolCall struct {
	Name      string
	Arguments map[string]any
}

// Request is one request the server received.
type Request struct {
	Method string
	Path   string
	Body   []byte
	// Chat is the decoded body of a /api/chat request.
	Chat *ChatRequest
	// Cancelled is set when the client went away before the response ended.
	Cancelled bool
}

// Server is a running test server. Its methods are safe for concurrent use.
type Server struct {
	// URL is the server's base URL, for OLLAMA_HOST or a client.
	URL string

	srv       *httptest.Server
	mu        sync.Mutex
	models    []Model
	script    []Reply
	responder func(ChatRequest) Reply
	requests  []*Request
	inflight  int               // requests being answered, guarded by mu
	settled   *sync.Cond        // signalled when inflight drops to zero
	cached    map[string]string // the last prompt of each model: its one cache slot
	// residents are the models' places in memory; loads and aborted
	// count the loads finished and cut short.
	residents       map[string]*residency
	loads, aborted  int
	slots           chan struct{} // the answers made at once, when Limit set it
	answering, most int           // chats being answered now, and the most at once
}

// New starts a server that has the given models pulled.
func New(models ...Model) *Server {
	s := &Server{models: models}
	s.settled = sync.NewCond(&s.mu)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/chat", s.track(s.chat))
	mux.HandleFunc("POST /api/show", s.track(s.show))
	mux.HandleFunc("GET /api/tags", s.track(s.tags))
	mux.HandleFunc("GET /api/ps", s.track(s.ps))
	mux.HandleFunc("POST /api/generate", s.track(s.generate))
	mux.HandleFunc("GET /api/version", s.track(func(w http.ResponseWriter, r *http.Request, _ *Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": Version})
	}))
	mux.HandleFunc("/{$}", s.track(func(w http.ResponseWriter, r *http.Request, _ *Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Write([]byte("Ollama is running"))
	}))
	s.srv = httptest.NewServer(mux)
	s.URL = s.srv.URL
	return s
}

// Close shuts the server down, cutting open connections.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// CloseEach makes the server close each connection once it has answered
// on it, as a server without keep-alive does. A client in a synctest
// bubble then keeps no connection idle: a goroutine waiting on a socket
// is not durably blocked, and the bubble's clock would stand still. Call
// it before the first request.
func (s *Server) CloseEach() { s.srv.Config.SetKeepAlivesEnabled(false) }

// Enqueue adds replies to the script; each chat request takes the next one.
func (s *Server) Enqueue(r ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.script = append(s.script, r...)
}

// Limit makes the server answer at most n chats at once, as Ollama does
// with OLLAMA_NUM_PARALLEL=n (its default is 1): the others wait their
// turn, and the time they waited counts in their total_duration only.
// Call it before the first request.
func (s *Server) Limit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slots = make(chan struct{}, n)
}

// MostAtOnce is the most chats the server answered at the same time.
func (s *Server) MostAtOnce() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.most
}

// Respond sets the function that answers chat requests when the script is
// empty. Without one, an unscripted request gets a 500 that says so.
func (s *Server) Respond(f func(ChatRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.responder = f
}

// Requests returns a copy of every request received so far, oldest first.
// Call Quiet first to see the final state of requests still being answered.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Request, len(s.requests))
	for i, r := range s.requests {
		out[i] = *r
	}
	return out
}

// Chats returns the decoded /api/chat requests received so far.
func (s *Server) Chats() []ChatRequest {
	var out []ChatRequest
	for _, r := range s.Requests() {
		if r.Chat != nil {
			out = append(out, *r.Chat)
		}
	}
	return out
}

// Quiet waits until no request is being answered.
func (s *Server) Quiet() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for s.inflight > 0 {
		s.settled.Wait()
	}
}

// track records each request and counts it in flight while it is answered.
func (s *Server) track(h func(http.ResponseWriter, *http.Request, *Request)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body) // a short body is the handler's to reject
		rec := &Request{Method: r.Method, Path: r.URL.Path, Body: body}
		s.mu.Lock()
		s.requests = append(s.requests, rec)
		s.inflight++
		s.mu.Unlock()
		defer func() {
			s.mu.Lock()
			if s.inflight--; s.inflight == 0 {
				s.settled.Broadcast()
			}
			s.mu.Unlock()
		}()
		h(w, r, rec)
	}
}

func (s *Server) model(name string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.models {
		if normalize(m.Name) == normalize(name) {
			return m, true
		}
	}
	return Model{}, false
}

// normalize adds the ":latest" tag Ollama assumes for an untagged name.
func normalize(name string) string {
	if i := strings.LastIndex(name, "/"); !strings.Contains(name[i+1:], ":") {
		return name + ":latest"
	}
	return name
}

// qualified is the full name Ollama uses in capability errors.
func qualified(name string) string {
	name = normalize(name)
	switch strings.Count(name, "/") {
	case 0:
		return "registry.ollama.ai/library/" + name
	case 1:
		return "registry.ollama.ai/" + name
	}
	return name
}

func (m Model) has(capability string) bool {
	for _, c := range m.Capabilities {
		if c == capability {
			return true
		}
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}
