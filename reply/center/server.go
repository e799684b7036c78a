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
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

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
	// Location is the center's own time zone, for nodes that send none or
	// one the center cannot read; default time.Local.
	Location *time.Location
	// Lapse ends a conversation nobody used for this long; default 5 min.
	Lapse time.Duration
	// Waiting is how often a streamed answer that waits for the model
	// (its load, or the other nodes' turns) tells the node it still does,
	// so that a node that times each silence keeps waiting; default 5 s.
	Waiting time.Duration
	// ToolTimeout bounds the wait for a node's tool result; default 30 s.
	ToolTimeout time.Duration
	// BodyLimit bounds a request body; default 64 KiB. A conversation's
	// start (a Jarvis node's tools and house context) may take StartLimit,
	// default 1 MiB, and a recording MediaLimit, default 16 MiB.
	BodyLimit, StartLimit, MediaLimit int64
	// Rate and Burst limit each node's requests; defaults 5/s and 20.
	Rate  float64
	Burst int
	// PerNode bounds the conversations a node holds open at once, each
	// with its engine and client tools in memory; default 16. A new one
	// ends the node's least recently used that has no reply under way.
	PerNode int
	// Media is what the center does for nodes too small to do it
	// themselves; each part may be nil, and its endpoints then answer 503.
	Media Media
	// Now is the clock of the date context; default time.Now.
	Now func() time.Time
	// Version is reported by the status endpoint.
	Version string
	Log     *slog.Logger
}

// Server is the center's side of the protocol. Serve it with Handler.
type Server struct {
	o   Options
	log *slog.Logger
	// engines builds a conversation's engine: Options.Engine's.
	engines func(Conversation) (engine, error)

	mu        sync.Mutex
	sessions  map[string]*session
	expired   map[string]time.Time // conversation ids that lapsed, and when
	limits    map[string]*rate.Limiter
	guesses   guesses // wrong keys, by source address
	keptTools keptTools

	zonesWarned warnedZones // time zones a node sent that the center cannot read
	greeted     atomic.Uint64

	closed  bool           // Close was called: no reply begins
	replies sync.WaitGroup // the replies' goroutines
}

// NewServer returns a Server; run Expire in the background, and Close it
// when it stops.
func NewServer(o Options) (*Server, error) {
	if o.Keys == nil || o.Engine == nil {
		return nil, errors.New("center: a server needs keys and an engine")
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Lapse == 0 {
		o.Lapse = 5 * time.Minute
	}
	if o.Waiting == 0 {
		o.Waiting = 5 * time.Second
	}
	if o.ToolTimeout == 0 {
		o.ToolTimeout = 30 * time.Second
	}
	if o.BodyLimit == 0 {
		o.BodyLimit = 64 << 10
	}
	o.StartLimit = max(o.StartLimit, o.BodyLimit, 1<<20)
	if o.MediaLimit == 0 {
		o.MediaLimit = 16 << 20
	}
	if o.Rate == 0 {
		o.Rate = 5
	}
	if o.Burst == 0 {
		o.Burst = 20
	}
	if o.PerNode == 0 {
		o.PerNode = 16
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	o.Media.defaults()
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	s := &Server{o: o, log: o.Log.With("pkg", "center"), sessions: map[string]*session{},
		expired: map[string]time.Time{}, limits: map[string]*rate.Limiter{}}
	s.engines = func(c Conversation) (engine, error) {
		e, err := o.Engine(c)
		if err != nil {
			return nil, err
		}
		return e, nil
	}
	return s, nil
}

// engine is a conversation's reply engine, as the server uses it.
type engine interface {
	Reply(ctx context.Context, q reply.Query, say func(sentence string)) (reply.Result, error)
	// Close lets the engine go; nothing uses it after.
	Close()
}

var _ engine = (*reply.Engine)(nil)

// session is one node conversation.
type session struct {
	id, node string
	nc       NodeContext
	engine   engine
	ctx      context.Context // ends when the conversation ends (end)
	cancel   context.CancelFunc
	work     *sync.WaitGroup // the server's, which holds the replies' goroutines
	closeEng sync.Once       // the engine's Close

	mu      sync.Mutex
	used    time.Time
	claimed time.Time // when the record of whose it is was last written
	turn    *run      // the reply under way, or nil
	asked   string    // the tool_call_id of the question the reply ended on
	held    *parked   // what the reply did after a result a stream could not voice
	replies int       // goroutines of replies (one under way, others unwinding)
	ended   bool      // the conversation ended: no reply begins
}

// end ends the conversation (it lapsed, was replaced, or the center
// stops): the reply under way is stopped, no other begins, and the engine
// is closed once no reply uses it, now or as the last one unwinds.
func (sess *session) end() {
	sess.cancel()
	sess.mu.Lock()
	sess.ended = true
	idle := sess.replies == 0
	sess.mu.Unlock()
	if idle {
		sess.closeEngine()
	}
}

// unwound is a reply's goroutine's last word: the engine of a
// conversation that ended is closed with the last reply that used it.
func (sess *session) unwound() {
	sess.mu.Lock()
	sess.replies--
	last := sess.ended && sess.replies == 0
	sess.mu.Unlock()
	if last {
		sess.closeEngine()
	}
}

func (sess *session) closeEngine() { sess.closeEng.Do(sess.engine.Close) }

// parked is what a reply did after the tool result with id callID, taken
// by a /continue/stream that could not voice it: the node sends the same
// result to /continue next, which answers with it.
type parked struct {
	callID string
	tr     *run
	oc     outcome
}

// Handler serves the protocol's endpoints.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	small, start, media := s.o.BodyLimit, s.o.StartLimit, s.o.MediaLimit
	mux.HandleFunc("POST "+PathStart, s.authed(start, s.start))
	mux.HandleFunc("POST "+PathCommand, s.authed(small, s.command))
	mux.HandleFunc("POST "+PathCommandStream, s.authed(small, s.commandStream))
	mux.HandleFunc("POST "+PathContinue, s.authed(small, s.continueTurn))
	mux.HandleFunc("POST "+PathContinueStream, s.authed(small, s.continueStream))
	mux.HandleFunc("POST "+PathAcknowledge, s.authed(small, s.acknowledge))
	mux.HandleFunc("GET "+PathDateContext, s.authed(small, s.dateContext))
	mux.HandleFunc("POST "+PathTranscribe, s.authed(media, s.transcribe))
	mux.HandleFunc("POST "+PathSpeak, s.authed(small, s.speak))
	mux.HandleFunc("POST "+PathSpeakStream, s.authed(small, s.speakStream))
	mux.HandleFunc("POST "+PathWakeResponse, s.authed(small, s.wakeResponse))
	mux.HandleFunc("GET "+PathWakeResponse, s.authed(small, s.wakeResponse))
	mux.HandleFunc("POST "+PathChat, s.authed(4*small, s.chat))
	mux.HandleFunc("GET "+PathStatus, s.authed(small, s.status))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		fail(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path)
	})
	return mux
}

func (s *Server) status(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	s.mu.Lock()
	n := len(s.sessions)
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "version": s.o.Version, "node_id": node.ID, "conversations": n})
}

func (s *Server) start(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	var req StartRequest
	if !decode(w, r, &req) {
		return
	}
	if err := checkConversationID(req.ConversationID); err != nil {
		fail(w, http.StatusBadRequest, err.Error())
		return
	}
	for i, t := range req.ClientTools {
		if t.Function.Name == "" {
			fail(w, http.StatusBadRequest, fmt.Sprintf("client_tools[%d].function.name is required", i))
			return
		}
	}
	tools := described(req.ClientTools, req.AvailableCommands)
	sess, status, msg := s.session(r.Context(), req.ConversationID, node, req.NodeContext, tools, true)
	if sess == nil {
		fail(w, status, msg)
		return
	}
	s.keepTools(r.Context(), node.ID, tools)
	writeJSON(w, http.StatusOK, StartResponse{Status: "success", ConversationID: sess.id})
}

// maxConversationID bounds a conversation id: a Jarvis node sends a UUID
// (36 bytes), a Hark node its id, the time and a random tail (at most 93).
const maxConversationID = 128

// checkConversationID says what is wrong with a conversation id a node
// sent, if anything. An id is kept in the store for good (whose it is),
// and named in the log and in answers: it must be short and printable.
func checkConversationID(id string) error {
	switch {
	case id == "":
		return errors.New("conversation_id is required")
	case len(id) > maxConversationID:
		return fmt.Errorf("conversation_id is %d bytes long; want at most %d", len(id), maxConversationID)
	case !utf8.ValidString(id):
		return errors.New("conversation_id is not UTF-8")
	}
	for i, r := range id {
		if unicode.IsControl(r) {
			return fmt.Errorf("conversation_id has a control character (%U) at byte %d", r, i)
		}
	}
	return nil
}

// session finds or makes the conversation id for node. A new one is made
// for an unknown id (conversation/start is optional, and a center that
// restarted knows no conversation: its history is in the store, and so are
// the client tools the node last registered, which a conversation made for
// a command gets); an expired id is gone (410), another node's is not this
// node's (403). A start of a running conversation replaces it: its tools
// and context are the new ones, its history (in the store) stays.
func (s *Server) session(ctx context.Context, id string, node NodeInfo, nc NodeContext, tools []Tool, starting bool) (*session, int, string) {
	s.mu.Lock()
	old, ok := s.sessions[id]
	switch {
	case s.closed:
		s.mu.Unlock()
		return nil, http.StatusServiceUnavailable, stopping
	case ok && old.node != node.ID:
		s.mu.Unlock()
		return nil, http.StatusForbidden, "conversation " + id + " belongs to another node"
	case ok && !starting:
		s.mu.Unlock()
		old.touch()
		return old, 0, ""
	}
	if _, gone := s.expired[id]; gone && !ok {
		s.mu.Unlock()
		return nil, http.StatusGone, "conversation " + id + " has expired; start a new one"
	}
	s.mu.Unlock()
	if !starting {
		tools = s.lastTools(ctx, node.ID)
	}
	sess, status, msg := s.open(id, node, nc, tools)
	if sess == nil && !starting && status == http.StatusBadRequest && len(tools) > 0 {
		// Tools kept by a center before this one that this one will not
		// take: the conversation goes on without them.
		s.log.Warn("the node's last client tools are refused; the conversation is made anew without them", "conversation", id, "node", node.ID, "why", msg)
		tools = nil
		sess, status, msg = s.open(id, node, nc, nil)
	}
	if sess == nil {
		return nil, status, msg
	}
	if !starting {
		s.log.Info("a command in a conversation the center does not hold: it is made anew, with the client tools the node last registered",
			"conversation", id, "node", node.ID, "client_tools", len(tools))
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		sess.end()
		return nil, http.StatusServiceUnavailable, stopping
	}
	if cur, ok := s.sessions[id]; ok && cur != old { // another request made it meanwhile
		s.mu.Unlock()
		sess.end()
		if cur.node != node.ID {
			return nil, http.StatusForbidden, "conversation " + id + " belongs to another node"
		}
		return cur, 0, ""
	}
	room, full := s.room(node.ID, id)
	if full {
		s.mu.Unlock()
		sess.end()
		s.log.Warn("a node's every conversation is answering: another is refused", "conversation", id, "node", node.ID, "open", s.o.PerNode)
		return nil, http.StatusTooManyRequests, fmt.Sprintf("node %s has %d conversations answering; let one end first", node.ID, s.o.PerNode)
	}
	s.sessions[id] = sess
	s.mu.Unlock()
	if room != nil {
		room.end()
		s.log.Info("conversation ended for the node's newer one", "conversation", room.id, "node", node.ID, "open", s.o.PerNode)
	}
	if old != nil {
		old.end()
		s.log.Info("conversation started again: its tools are replaced", "conversation", id, "node", node.ID, "client_tools", len(tools))
	} else {
		s.log.Info("conversation started", "conversation", id, "node", node.ID, "client_tools", len(tools))
	}
	return sess, 0, ""
}

// room makes room for conversation id of node among the node's open
// conversations: when they are PerNode already (id aside), it takes the
// one used least recently with no reply under way (one waiting for the
// answer to its question last) out of the server's, for the caller to end
// once s.mu is released; full reports that every one has a reply under
// way. The caller holds s.mu.
func (s *Server) room(node, id string) (out *session, full bool) {
	n := 0
	var pick *session
	var pickAsked bool
	var pickUsed time.Time
	for cid, sess := range s.sessions {
		if sess.node != node || cid == id {
			continue
		}
		n++
		sess.mu.Lock()
		busy := sess.turn != nil || sess.held != nil
		asked, used := sess.asked != "", sess.used
		sess.mu.Unlock()
		if busy {
			continue
		}
		if pick == nil || !asked && pickAsked || asked == pickAsked && used.Before(pickUsed) {
			pick, pickAsked, pickUsed = sess, asked, used
		}
	}
	switch {
	case n < s.o.PerNode:
		return nil, false
	case pick == nil:
		return nil, true
	}
	delete(s.sessions, pick.id)
	return pick, false
}

// open makes a conversation's session: its zone, its room, its tools and
// its engine.
func (s *Server) open(id string, node NodeInfo, nc NodeContext, tools []Tool) (*session, int, string) {
	// Whose the conversation is outlives the center's memory: its history
	// is in the store, and another node naming its id must not read it.
	other, err := s.o.Keys.Claim(context.Background(), id, node.ID)
	if err != nil {
		return nil, http.StatusInternalServerError, s.internal("keeping whose the conversation is", err)
	}
	if other != "" {
		s.log.Warn("a node named another node's conversation", "conversation", id, "node", node.ID, "owner", other)
		return nil, http.StatusForbidden, "conversation " + id + " belongs to another node"
	}
	nc.NodeID = node.ID
	if node.Room != "" {
		nc.Room = node.Room
	}
	loc := s.zone(node.ID, nc.Timezone)
	reg := command.NewRegistry(command.Options{Location: loc, Log: s.log})
	var cmds []*command.Command
	if s.o.ServerTools != nil {
		for _, c := range s.o.ServerTools(loc) {
			cmds = append(cmds, recorded(c))
		}
	}
	sess := &session{id: id, node: node.ID, nc: nc, used: time.Now(), claimed: time.Now(), work: &s.replies}
	sess.ctx, sess.cancel = context.WithCancel(context.Background())
	for _, t := range tools {
		c, err := clientCommand(t, sess, s.o.ToolTimeout)
		if err != nil {
			sess.cancel()
			return nil, http.StatusBadRequest, err.Error()
		}
		// A client tool replaces a server tool of the same name: the node
		// that heard the request runs it.
		cmds = slices.DeleteFunc(cmds, func(sc *command.Command) bool { return sc.Name == c.Name })
		cmds = append(cmds, c)
	}
	if err := reg.Register(cmds...); err != nil {
		sess.cancel()
		return nil, http.StatusBadRequest, "client_tools: " + err.Error()
	}
	eng, err := s.engines(Conversation{ID: id, Node: nc, Location: loc, Commands: reg})
	if err != nil {
		sess.cancel()
		return nil, http.StatusInternalServerError, s.internal("starting the conversation", err)
	}
	sess.engine = eng
	return sess, 0, ""
}

// existing is a conversation that must already be running.
func (s *Server) existing(id, node string) (*session, int, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[id]
	switch {
	case s.closed:
		return nil, http.StatusServiceUnavailable, stopping
	case ok && sess.node != node:
		return nil, http.StatusForbidden, "conversation " + id + " belongs to another node"
	case ok:
		sess.touch()
		return sess, 0, ""
	}
	if _, gone := s.expired[id]; gone {
		return nil, http.StatusGone, "conversation " + id + " has expired; start a new one"
	}
	return nil, http.StatusNotFound, "no conversation " + id + " on the center (it may have restarted); start it again"
}

// owned writes the record of whose sess's conversation is again when it
// is ownerRefresh old, so that a conversation in use never lapses.
func (s *Server) owned(ctx context.Context, sess *session) {
	sess.mu.Lock()
	due := time.Since(sess.claimed) > ownerRefresh
	if due {
		sess.claimed = time.Now()
	}
	sess.mu.Unlock()
	if !due {
		return
	}
	other, err := s.o.Keys.Claim(ctx, sess.id, sess.node)
	switch {
	case err != nil:
		s.log.Warn("keeping whose a conversation is failed", "conversation", sess.id, "err", err)
	case other != "":
		s.log.Warn("a served conversation's record names another node", "conversation", sess.id, "node", sess.node, "owner", other)
	}
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

// Expire ends conversations unused for the lapse, deletes the records of
// replies past turnLifetime at each look (every quarter of the lapse),
// and deletes the records of whose each conversation is once they guard
// nothing (at its first look, then hourly), until ctx is done; Close
// ends the others.
func (s *Server) Expire(ctx context.Context) {
	t := time.NewTicker(max(s.o.Lapse/4, time.Second))
	defer t.Stop()
	var swept time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := time.Now()
		s.expire(now)
		if now.Sub(swept) >= sweepEvery {
			s.sweep(ctx, now)
			swept = now
		} else {
			s.lapseTurns(ctx, now)
		}
	}
}

// sweepEvery is how often the records kept for conversations are looked
// over for those that lapsed.
const sweepEvery = time.Hour

// sweep deletes the records kept for conversations that guard nothing as
// of now (see Keys.lapse), an open conversation's kept, and those of
// replies past turnLifetime.
func (s *Server) sweep(ctx context.Context, now time.Time) {
	s.mu.Lock()
	open := make(map[string]bool, len(s.sessions))
	for id := range s.sessions {
		open[id] = true
	}
	s.mu.Unlock()
	n, err := s.o.Keys.lapse(ctx, now, func(conv string) bool { return open[conv] })
	if err != nil && ctx.Err() == nil {
		s.log.Warn("lapsing the conversations' records failed; the next sweep tries again", "err", err)
	}
	if n > 0 {
		s.log.Info("records of conversations lapsed", "deleted", n)
	}
	s.lapseTurns(ctx, now)
}

// lapseTurns deletes the records of replies past turnLifetime as of now.
func (s *Server) lapseTurns(ctx context.Context, now time.Time) {
	n, err := lapseTurns(ctx, s.o.Keys.s, now)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("lapsing the records of replies failed; the next look tries again", "err", err)
	}
	if n > 0 {
		s.log.Info("records of replies that never ended lapsed", "deleted", n)
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
		sess.end()
		s.log.Info("conversation expired", "conversation", sess.id, "node", sess.node)
	}
}

// stopping is what a node is told once the center is closing.
const stopping = "the center is stopping; ask again in a moment"

// Close ends the server's conversations: a request from now on begins
// none and no reply (503), the replies under way are stopped, and the
// engine of each conversation is closed once its replies have unwound.
// It waits for that, and for every reply's goroutine to end, until ctx is
// done, and then reports ctx's error; the engines of replies still
// unwinding are closed as they end. Call it when the server stops, beside
// the end of the Handler's serving and of Expire's context; a second call
// waits again.
func (s *Server) Close(ctx context.Context) error {
	s.mu.Lock()
	s.closed = true
	all := s.sessions
	s.sessions = map[string]*session{}
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		var ends sync.WaitGroup
		for _, sess := range all {
			ends.Go(sess.end) // an engine's Close may wait a little (reply.CloseWait)
		}
		ends.Wait()
		s.replies.Wait()
	}()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("center: close: replies still unwinding: %w", context.Cause(ctx))
	}
}

// closing reports whether Close was called.
func (s *Server) closing() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
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

// writeJSON answers v, as a JSON line, with status. Its length is told
// up front, so that an answer flushed before the handler returns (see
// Server.answered) goes as one whole body, as every other does.
func writeJSON(w http.ResponseWriter, status int, v any) {
	body, err := json.Marshal(v)
	if err == nil {
		body = append(body, '\n')
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	w.Write(body)
}

func fail(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, Error{Error: "center: " + msg})
}

// internal is the message of a fault of the center's own (its store, its
// engine) for a node: what failed, not how; the log has the rest, and a
// node's request learns nothing of the center's files.
func (s *Server) internal(op string, err error) string {
	s.log.Error("center: "+op+" failed", "err", err)
	return op + " failed on the center; its log says why"
}

// newID is a fresh id for a tool call ("call_") or a question ("ask_").
func newID(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}
