package center

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/command"
)

// Conversation is what the engine of one node conversation is built from.
type Conversation struct {
	ID   string
	Node NodeContext
	// Location is the node's time zone (time.Local when it sent none).
	Location *time.Location
	// Commands holds the server's tools and the node's client tools.
	Commands *command.Registry
}

// Options configure a Server.
type Options struct {
	Keys *Keys
	// ServerTools are the tools the center runs itself, for a node in loc
	// (memory, weather, arithmetic...); called per conversation.
	ServerTools func(loc *time.Location) []*command.Command
	// Engine builds the reply engine of a conversation; the caller gives
	// it the model, the household's memory and the persona. The engine
	// must keep exactly c.ID (reply.Options.Conversation).
	Engine func(c Conversation) (*reply.Engine, error)
	// Lapse ends a conversation nobody used for this long; default 5 min.
	Lapse time.Duration
	// ToolTimeout bounds the wait for a node's tool result; default 30 s.
	ToolTimeout time.Duration
	// BodyLimit bounds a request body; default 64 KiB.
	BodyLimit int64
	// Rate and Burst limit each node's requests; defaults 5/s and 20.
	Rate  float64
	Burst int
	// Version is reported by the status endpoint.
	Version string
	Log     *slog.Logger
}

// Server is the center's side of the protocol. Serve it with Handler.
type Server struct {
	o   Options
	log *slog.Logger

	mu       sync.Mutex
	sessions map[string]*session
	expired  map[string]time.Time // conversation ids that lapsed, and when
	limits   map[string]*rate.Limiter
}

// NewServer returns a Server; run Expire in the background.
func NewServer(o Options) (*Server, error) {
	if o.Keys == nil || o.Engine == nil {
		return nil, errors.New("center: a server needs keys and an engine")
	}
	if o.Lapse == 0 {
		o.Lapse = 5 * time.Minute
	}
	if o.ToolTimeout == 0 {
		o.ToolTimeout = 30 * time.Second
	}
	if o.BodyLimit == 0 {
		o.BodyLimit = 64 << 10
	}
	if o.Rate == 0 {
		o.Rate = 5
	}
	if o.Burst == 0 {
		o.Burst = 20
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Server{o: o, log: o.Log.With("pkg", "center"), sessions: map[string]*session{},
		expired: map[string]time.Time{}, limits: map[string]*rate.Limiter{}}, nil
}

// session is one node conversation.
type session struct {
	id, node string
	nc       NodeContext
	engine   *reply.Engine
	ctx      context.Context // ends when the conversation lapses
	cancel   context.CancelFunc

	mu   sync.Mutex
	used time.Time
	turn *run // the reply under way, or nil
}

// run is one reply of the engine, which may wait on the node between
// requests.
type run struct {
	voice   string
	events  chan event
	results chan ToolResult
	mu      sync.Mutex
	waiting string // the tool call id the reply waits for
}

// event is what a reply does next: say a sentence, call a client tool,
// or end.
type event struct {
	sentence string
	call     *ToolCall
	done     *reply.Result
	err      error
}

// Handler serves the protocol's endpoints.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+PathStart, s.authed(s.start))
	mux.HandleFunc("POST "+PathCommand, s.authed(s.command))
	mux.HandleFunc("POST "+PathContinue, s.authed(s.continueTurn))
	mux.HandleFunc("GET "+PathStatus, s.authed(s.status))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
	})
	return mux
}

// authed checks the node's key, its request rate and the body's size.
func (s *Server) authed(h func(w http.ResponseWriter, r *http.Request, node string)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		cred, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok {
			fail(w, http.StatusUnauthorized, "missing Authorization: Bearer NODE_ID:KEY")
			return
		}
		node, err := s.o.Keys.Check(r.Context(), strings.TrimSpace(cred))
		if errors.Is(err, ErrBadCredential) {
			fail(w, http.StatusUnauthorized, "unknown node or wrong key")
			return
		}
		if err != nil {
			fail(w, http.StatusInternalServerError, err.Error())
			return
		}
		if !s.limiter(node).Allow() {
			w.Header().Set("Retry-After", "1")
			fail(w, http.StatusTooManyRequests, fmt.Sprintf("too many requests from node %s", node))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.o.BodyLimit)
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

func (s *Server) status(w http.ResponseWriter, r *http.Request, node string) {
	s.mu.Lock()
	n := len(s.sessions)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "version": s.o.Version, "node_id": node, "conversations": n})
}

func (s *Server) start(w http.ResponseWriter, r *http.Request, node string) {
	var req StartRequest
	if !decode(w, r, &req) {
		return
	}
	if req.ConversationID == "" {
		fail(w, http.StatusBadRequest, "conversation_id is required")
		return
	}
	for i, t := range req.ClientTools {
		if t.Function.Name == "" {
			fail(w, http.StatusBadRequest, fmt.Sprintf("client_tools[%d].function.name is required", i))
			return
		}
	}
	sess, status, msg := s.session(req.ConversationID, node, req.NodeContext, req.ClientTools, true)
	if sess == nil {
		fail(w, status, msg)
		return
	}
	writeJSON(w, http.StatusOK, StartResponse{Status: "success", ConversationID: sess.id})
}

func (s *Server) command(w http.ResponseWriter, r *http.Request, node string) {
	var req CommandRequest
	if !decode(w, r, &req) {
		return
	}
	switch {
	case req.ConversationID == "":
		fail(w, http.StatusBadRequest, "conversation_id is required")
		return
	case strings.TrimSpace(req.VoiceCommand) == "":
		fail(w, http.StatusBadRequest, "voice_command is empty")
		return
	}
	sess, status, msg := s.session(req.ConversationID, node, req.NodeContext, nil, false)
	if sess == nil {
		fail(w, status, msg)
		return
	}
	tr, err := sess.begin(req.VoiceCommand, s.o.Log)
	if err != nil {
		fail(w, http.StatusConflict, err.Error())
		return
	}
	s.respond(w, r, sess, tr)
}

func (s *Server) continueTurn(w http.ResponseWriter, r *http.Request, node string) {
	var req ContinueRequest
	if !decode(w, r, &req) {
		return
	}
	switch {
	case req.ConversationID == "":
		fail(w, http.StatusBadRequest, "conversation_id is required")
		return
	case len(req.ToolResults) == 0 && req.ValidationResponse == nil:
		fail(w, http.StatusBadRequest, "tool_results or validation_response is required")
		return
	case len(req.ToolResults) > 0 && req.ValidationResponse != nil:
		fail(w, http.StatusBadRequest, "send tool_results or validation_response, not both")
		return
	}
	sess, status, msg := s.existing(req.ConversationID, node)
	if sess == nil {
		fail(w, status, msg)
		return
	}
	if req.ValidationResponse != nil {
		if strings.TrimSpace(*req.ValidationResponse) == "" {
			fail(w, http.StatusBadRequest, "validation_response is empty")
			return
		}
		tr, err := sess.begin(*req.ValidationResponse, s.o.Log)
		if err != nil {
			fail(w, http.StatusConflict, err.Error())
			return
		}
		s.respond(w, r, sess, tr)
		return
	}
	tr := sess.current()
	if tr == nil {
		fail(w, http.StatusConflict, "conversation "+sess.id+" waits for no tool result")
		return
	}
	if len(req.ToolResults) != 1 {
		fail(w, http.StatusBadRequest, fmt.Sprintf("tool_results: send the one result the center waits for, not %d", len(req.ToolResults)))
		return
	}
	res := req.ToolResults[0]
	tr.mu.Lock()
	waiting := tr.waiting
	if res.ToolCallID == waiting {
		tr.waiting = ""
	}
	tr.mu.Unlock()
	if waiting == "" || res.ToolCallID != waiting {
		fail(w, http.StatusBadRequest, fmt.Sprintf("tool_results[0].tool_call_id %q is not the call the center waits for (%q)", res.ToolCallID, waiting))
		return
	}
	tr.results <- res
	s.respond(w, r, sess, tr)
}

// session finds or makes the conversation id for node. A new one is made
// for an unknown id (conversation/start is optional, and a center that
// restarted knows no conversation: its history is in the store); an
// expired id is gone (410), another node's is not this node's (403).
func (s *Server) session(id, node string, nc NodeContext, tools []Tool, starting bool) (*session, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess, ok := s.sessions[id]; ok {
		if sess.node != node {
			return nil, http.StatusForbidden, "conversation " + id + " belongs to another node"
		}
		if starting {
			return nil, http.StatusConflict, "conversation " + id + " has already started"
		}
		sess.touch()
		return sess, 0, ""
	}
	if _, ok := s.expired[id]; ok {
		return nil, http.StatusGone, "conversation " + id + " has expired; start a new one"
	}
	nc.NodeID = node
	loc := time.Local
	if nc.Timezone != "" {
		l, err := time.LoadLocation(nc.Timezone)
		if err != nil {
			return nil, http.StatusBadRequest, fmt.Sprintf("node_context.timezone: unknown time zone %q", nc.Timezone)
		}
		loc = l
	}
	reg := command.NewRegistry(command.Options{Location: loc, Log: s.log})
	var cmds []*command.Command
	if s.o.ServerTools != nil {
		cmds = s.o.ServerTools(loc)
	}
	sess := &session{id: id, node: node, nc: nc, used: time.Now()}
	sess.ctx, sess.cancel = context.WithCancel(context.Background())
	for _, t := range tools {
		c, err := clientCommand(t, sess, s.o.ToolTimeout)
		if err != nil {
			sess.cancel()
			return nil, http.StatusBadRequest, err.Error()
		}
		// A client tool replaces a server tool of the same name: the node
		// that heard the request runs it.
		for i, sc := range cmds {
			if sc.Name == c.Name {
				cmds = append(cmds[:i], cmds[i+1:]...)
				break
			}
		}
		cmds = append(cmds, c)
	}
	if err := reg.Register(cmds...); err != nil {
		sess.cancel()
		return nil, http.StatusBadRequest, "client_tools: " + err.Error()
	}
	eng, err := s.o.Engine(Conversation{ID: id, Node: nc, Location: loc, Commands: reg})
	if err != nil {
		sess.cancel()
		return nil, http.StatusInternalServerError, err.Error()
	}
	sess.engine = eng
	s.sessions[id] = sess
	s.log.Info("conversation started", "conversation", id, "node", node, "client_tools", len(tools))
	return sess, 0, ""
}

// existing is a conversation that must already be running.
func (s *Server) existing(id, node string) (*session, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[id]
	switch {
	case ok && sess.node != node:
		return nil, http.StatusForbidden, "conversation " + id + " belongs to another node"
	case ok:
		sess.touch()
		return sess, 0, ""
	}
	if _, gone := s.expired[id]; gone {
		return nil, http.StatusGone, "conversation " + id + " has expired; start a new one"
	}
	return nil, http.StatusNotFound, "no conversation " + id + " (the center may have restarted); start a new one"
}

func (sess *session) touch() {
	sess.mu.Lock()
	sess.used = time.Now()
	sess.mu.Unlock()
}

func (sess *session) current() *run {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.turn
}

// begin starts a reply to text, unless one is under way.
func (sess *session) begin(text string, log *slog.Logger) (*run, error) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if sess.turn != nil {
		return nil, fmt.Errorf("conversation %s is still answering the last request", sess.id)
	}
	tr := &run{voice: text, events: make(chan event, 64), results: make(chan ToolResult, 1)}
	sess.turn = tr
	go func() {
		res, err := sess.engine.Reply(withRun(sess.ctx, tr), reply.Query{Text: text, Client: sess.node}, func(sentence string) {
			tr.send(sess.ctx, event{sentence: sentence})
		})
		if err != nil && sess.ctx.Err() == nil {
			log.Warn("reply failed", "conversation", sess.id, "err", err)
		}
		sess.mu.Lock()
		sess.turn = nil
		sess.mu.Unlock()
		tr.send(sess.ctx, event{done: &res, err: err})
	}()
	return tr, nil
}

// send hands an event to the request that is waiting, or waits for the
// next one, until the conversation ends.
func (tr *run) send(ctx context.Context, ev event) {
	select {
	case tr.events <- ev:
	case <-ctx.Done():
	}
}

type runKey struct{}

func withRun(ctx context.Context, tr *run) context.Context {
	return context.WithValue(ctx, runKey{}, tr)
}

// respond answers a request with what the reply does next: its sentences
// (as they come, to a node that streams), then a client tool call, a
// question, or the end.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, sess *session, tr *run) {
	stream := strings.Contains(r.Header.Get("Accept"), NDJSON)
	if stream {
		w.Header().Set("Content-Type", NDJSON)
		w.WriteHeader(http.StatusOK)
	}
	flusher, _ := w.(http.Flusher)
	enc := json.NewEncoder(w)
	var said []string
	final := func(resp Response) {
		resp.Commands = []json.RawMessage{}
		resp.RequestInformation = RequestInformation{VoiceCommand: tr.voice, ConversationID: sess.id}
		if stream {
			enc.Encode(resp)
			return
		}
		writeJSON(w, http.StatusOK, resp)
	}
	for {
		select {
		case <-r.Context().Done():
			return // the node went away; the reply goes on, and its tool calls time out
		case ev := <-tr.events:
			switch {
			case ev.call != nil:
				final(Response{StopReason: StopToolCalls, AssistantMessage: strings.Join(said, " "), ToolCalls: []ToolCall{*ev.call}})
				return
			case ev.done != nil:
				res := ev.done
				resp := Response{StopReason: StopComplete, AssistantMessage: strings.Join(said, " ")}
				if res.FollowUp && len(said) > 0 {
					// The reply ends waiting for the user: the node asks
					// and sends the answer back.
					resp.StopReason = StopValidation
					resp.AssistantMessage = strings.Join(said[:len(said)-1], " ")
					resp.ValidationRequest = &ValidationRequest{Question: said[len(said)-1]}
				}
				final(resp)
				return
			default:
				said = append(said, ev.sentence)
				if stream {
					enc.Encode(Line{Sentence: ev.sentence})
					if flusher != nil {
						flusher.Flush()
					}
				}
			}
		}
	}
}

// Expire ends conversations unused for the lapse, until ctx is done.
func (s *Server) Expire(ctx context.Context) {
	t := time.NewTicker(max(s.o.Lapse/4, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			s.closeAll()
			return
		case <-t.C:
		}
		s.expire(time.Now())
	}
}

func (s *Server) expire(now time.Time) {
	s.mu.Lock()
	var gone []*session
	for id, sess := range s.sessions {
		sess.mu.Lock()
		idle := now.Sub(sess.used) > s.o.Lapse
		sess.mu.Unlock()
		if idle {
			gone = append(gone, sess)
			delete(s.sessions, id)
			s.expired[id] = now
		}
	}
	for id, at := range s.expired {
		if now.Sub(at) > 24*time.Hour {
			delete(s.expired, id)
		}
	}
	s.mu.Unlock()
	for _, sess := range gone {
		sess.cancel()
		sess.engine.Close()
		s.log.Info("conversation expired", "conversation", sess.id, "node", sess.node)
	}
}

func (s *Server) closeAll() {
	s.mu.Lock()
	all := s.sessions
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	for _, sess := range all {
		sess.cancel()
		sess.engine.Close()
	}
}

// Conversations is how many conversations are open.
func (s *Server) Conversations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.sessions)
}

// decode reads a JSON body, answering 413 for one over the limit and 400
// naming what is wrong otherwise.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	dec := json.NewDecoder(r.Body)
	err := dec.Decode(v)
	if err == nil && dec.More() {
		err = errors.New("more than one JSON value in the body")
	}
	var tooBig *http.MaxBytesError
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case err == nil:
		return true
	case errors.As(err, &tooBig):
		fail(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is over the limit of %d bytes", tooBig.Limit))
	case errors.As(err, &typeErr):
		fail(w, http.StatusBadRequest, fmt.Sprintf("%s: want %s, got %s", typeErr.Field, typeErr.Type, typeErr.Value))
	case errors.As(err, &syntaxErr):
		fail(w, http.StatusBadRequest, fmt.Sprintf("malformed JSON at byte %d: %v", syntaxErr.Offset, err))
	case errors.Is(err, io.EOF):
		fail(w, http.StatusBadRequest, "the body is empty; want a JSON object")
	default:
		fail(w, http.StatusBadRequest, "malformed JSON: "+err.Error())
	}
	return false
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func fail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, Error{Error: "center: " + msg})
}

func newCallID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "call_" + hex.EncodeToString(b)
}
