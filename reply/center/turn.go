package center

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/reply"
)

// run is one reply of the engine, which may wait on the node between
// requests.
type run struct {
	voice   string
	events  chan event
	results chan ToolResult
	// stop ends the reply: the model's generation, its tool calls.
	stop context.CancelFunc
	// led records what the reply's tools did, for the same request asked
	// again.
	led     *ledger
	mu      sync.Mutex
	waiting string // the tool call id the reply waits for
	began   bool   // the reply said a sentence or ran a tool
}

// event is what a reply does next: say a sentence, call a client tool,
// or end.
type event struct {
	sentence string
	hold     bool // sentence is the line said while the turn waits for the model
	call     *ToolCall
	done     *reply.Result
	err      error
}

// outcome is what a reply did until it needs the node again: the
// sentences it said, then the client tool it calls, or its end.
type outcome struct {
	said []string
	call *ToolCall
	done *reply.Result
	// finished says the reply ended without an error: once its answer is
	// out, the same words are a new request.
	finished bool
}

// spoken reports an outcome that is a complete answer with words to say:
// no tool to call, no question to ask.
func (oc outcome) spoken() bool {
	return oc.call == nil && oc.done != nil && !oc.done.FollowUp && strings.TrimSpace(strings.Join(oc.said, "")) != ""
}

// errEnded: the conversation ended before its reply could begin.
var errEnded = errors.New("center: the conversation ended")

// begin starts a reply to text, unless one is under way or the
// conversation ended (errEnded); led records what its tools do. The
// reply's goroutine is the server's (session.work), and the last to use
// the engine of a conversation that ended closes it.
func (sess *session) begin(text string, led *ledger, log *slog.Logger) (*run, error) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	switch {
	case sess.ended:
		return nil, errEnded
	case sess.turn != nil:
		return nil, fmt.Errorf("conversation %s is still answering the last request", sess.id)
	}
	ctx, stop := context.WithCancel(sess.ctx)
	tr := &run{voice: text, events: make(chan event, 64), results: make(chan ToolResult, 1), stop: stop, led: led}
	sess.turn, sess.held = tr, nil
	sess.replies++
	sess.work.Add(1)
	go func() {
		defer sess.work.Done()
		defer sess.unwound()
		defer stop()
		q := reply.Query{Text: text, Client: sess.node, Hold: func(h reply.Hold) {
			tr.send(sess.ctx, event{sentence: h.Line, hold: true})
		}}
		res, err := sess.engine.Reply(withRun(ctx, tr), q, func(sentence string) {
			tr.send(sess.ctx, event{sentence: sentence})
		})
		if err != nil && ctx.Err() == nil {
			log.Warn("reply failed", "conversation", sess.id, "err", err)
		}
		// The record of what its tools did outlives the reply: it goes
		// once the answer is out to the node (Server.answered).
		sess.release(tr)
		tr.send(sess.ctx, event{done: &res, err: err})
	}()
	return tr, nil
}

// release stops the reply tr, if it is still the conversation's, and
// frees the conversation for the next request.
func (sess *session) release(tr *run) {
	tr.stop()
	sess.mu.Lock()
	if sess.turn == tr {
		sess.turn = nil
	}
	sess.mu.Unlock()
}

// send hands an event to the request that is waiting, or waits for the
// next one, until the conversation ends.
func (tr *run) send(ctx context.Context, ev event) {
	if ev.sentence != "" || ev.call != nil {
		tr.begun()
	}
	select {
	case tr.events <- ev:
	case <-ctx.Done():
	}
}

// begun marks the reply as begun: something of it came out, or acted.
func (tr *run) begun() {
	tr.mu.Lock()
	tr.began = true
	tr.mu.Unlock()
}

type runKey struct{}

func withRun(ctx context.Context, tr *run) context.Context {
	return context.WithValue(ctx, runKey{}, tr)
}

// cut says why a reply's outcome is not whole.
type cut int

const (
	whole   cut = iota
	gaveUp      // the node's request ended: it gave up, or went away
	ended       // the conversation ended (it lapsed, was started again, or the center stops)
	stopped     // the reply was stopped in the middle
)

// await gathers the reply's events until it calls a client tool or ends;
// onSentence, when set, sees each sentence as it comes, and onWaiting
// every waiting while the reply waits for the model after its line. It
// says why it stopped short when the request (ctx) or the conversation
// (conv) ended first, or the reply was stopped.
func (tr *run) await(ctx, conv context.Context, onSentence func(string), onWaiting func(), waiting time.Duration) (oc outcome, why cut) {
	var tick <-chan time.Time
	var ticker *time.Ticker
	defer func() {
		if ticker != nil {
			ticker.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return oc, gaveUp
		case <-conv.Done():
			return oc, ended
		case <-tick:
			onWaiting()
		case ev := <-tr.events:
			if ticker != nil {
				ticker.Stop()
				ticker, tick = nil, nil
			}
			if ev.hold && onWaiting != nil {
				ticker = time.NewTicker(waiting)
				tick = ticker.C
			}
			switch {
			case ev.done != nil && errors.Is(ev.err, context.Canceled):
				return oc, stopped
			case ev.call != nil:
				oc.call = ev.call
				return oc, whole
			case ev.done != nil:
				oc.done, oc.finished = ev.done, ev.err == nil
				return oc, whole
			}
			oc.said = append(oc.said, ev.sentence)
			if onSentence != nil {
				onSentence(ev.sentence)
			}
		}
	}
}

// final is the answer a node gets for an outcome: a client tool call, a
// question for the user (the reply ended waiting for an answer), or the
// end.
func (sess *session) final(voice string, oc outcome) Response {
	resp := Response{Commands: []json.RawMessage{}, RequestInformation: RequestInformation{VoiceCommand: voice, ConversationID: sess.id},
		StopReason: StopComplete, AssistantMessage: strings.Join(oc.said, " ")}
	switch {
	case oc.call != nil:
		resp.StopReason, resp.ToolCalls = StopToolCalls, []ToolCall{*oc.call}
	case oc.done != nil && oc.done.FollowUp && len(oc.said) > 0:
		// The node says the question and sends the answer back for this
		// id, or as a validation_response.
		n := len(oc.said)
		q := &ValidationRequest{Question: oc.said[n-1], ToolCallID: newID("ask_")}
		if c := oc.done.Choice; c != nil {
			q.ParameterName, q.Options = c.Parameter, c.Options
		}
		sess.mu.Lock()
		sess.asked = q.ToolCallID
		sess.mu.Unlock()
		resp.StopReason, resp.AssistantMessage, resp.ValidationRequest = StopValidation, strings.Join(oc.said[:n-1], " "), q
	}
	return resp
}

// respond answers a request with what the reply does next: its sentences
// (as they come, to a node that streams them), then a client tool call, a
// question, or the end, with status.
//
// A node that gives up (its user pressed the button, or it went away)
// stops the model at once and frees the conversation; a reply cut short by
// the center stopping is an apology on the node, never half an answer
// taken for a whole one.
func (s *Server) respond(w http.ResponseWriter, r *http.Request, sess *session, tr *run, status int) {
	stream := strings.Contains(r.Header.Get("Accept"), NDJSON)
	var enc *json.Encoder
	var oc outcome
	var why cut
	if stream {
		w.Header().Set("Content-Type", NDJSON)
		w.WriteHeader(http.StatusOK)
		flusher, _ := w.(http.Flusher)
		enc = json.NewEncoder(w)
		line := func(l Line) {
			enc.Encode(l)
			if flusher != nil {
				flusher.Flush()
			}
		}
		oc, why = tr.await(r.Context(), sess.ctx, func(sentence string) { line(Line{Sentence: sentence}) },
			func() { line(Line{Waiting: true}) }, s.o.Waiting)
	} else {
		oc, why = tr.await(r.Context(), sess.ctx, nil, nil, 0)
	}
	switch why {
	case whole:
		if stream {
			enc.Encode(sess.final(tr.voice, oc))
		} else {
			writeJSON(w, status, sess.final(tr.voice, oc))
		}
		s.answered(r.Context(), w, sess, tr, oc)
	case gaveUp:
		sess.release(tr)
		s.log.Info("the node gave up on the reply; stopped it", "conversation", sess.id)
	case ended, stopped:
		if s.stoppedUnbegun(tr) {
			if stream {
				enc.Encode(Error{Error: "center: " + stopping})
			} else {
				fail(w, http.StatusServiceUnavailable, stopping)
			}
			return
		}
		reason := midway
		if why == ended {
			reason = "conversation " + sess.id + " ended while answering (it lapsed, was started again, or the center is stopping)"
		}
		s.log.Warn("the reply ended without an answer", "conversation", sess.id, "why", reason)
		if stream {
			enc.Encode(Error{Error: "center: " + reason})
		} else {
			s.cutShort(w, sess, why)
		}
	}
}

// midway is what a node is told of a reply the center stopping stopped
// after it had begun.
const midway = "the reply was stopped in the middle (the center is stopping)"

// cutShort answers a request for a whole answer whose reply began and
// was cut short: its conversation ended (410), or the center stopping
// stopped it in the middle (503), however the reply heard of it first.
func (s *Server) cutShort(w http.ResponseWriter, sess *session, why cut) {
	if why == ended && !s.closing() {
		s.ended(w, sess)
		return
	}
	fail(w, http.StatusServiceUnavailable, midway)
}

// answered deletes the record of what the tools of tr did once the answer
// of oc, a reply that finished, is out to the node: the same words are a
// new request from then on. Until then the record is kept, so that a node
// that never had the answer (the center stopped, or lost its power, as it
// wrote it) and asks again does not have the tools run twice. An answer
// that could not be sent keeps the record, which lapses.
func (s *Server) answered(ctx context.Context, w http.ResponseWriter, sess *session, tr *run, oc outcome) {
	if !oc.finished {
		return
	}
	if err := http.NewResponseController(w).Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		s.log.Info("the answer did not reach the node; what its tools did is kept for the request asked again", "conversation", sess.id, "err", err)
		return
	}
	tr.led.end(ctx)
}

// stoppedUnbegun reports a reply that the center stopping ended before any
// of its answer came out: to the node no answer began, and the center
// says, as to a request that comes while it stops, that it is stopping
// and to ask again. A reply that had said something, or run a tool (the
// node's or the center's), was stopped in the middle, and the node is
// told so.
func (s *Server) stoppedUnbegun(tr *run) bool {
	if !s.closing() {
		return false
	}
	tr.mu.Lock()
	defer tr.mu.Unlock()
	return !tr.began
}

// ended answers a request whose conversation ended while it waited: it
// lapsed, a new start replaced it, or the center is stopping.
func (s *Server) ended(w http.ResponseWriter, sess *session) {
	if s.closing() {
		fail(w, http.StatusServiceUnavailable, stopping)
		return
	}
	fail(w, http.StatusGone, "conversation "+sess.id+" ended while answering (it lapsed or was started again)")
}

// refused answers a request whose reply could not begin: the conversation
// still answers the last request, or it ended meanwhile.
func (s *Server) refused(w http.ResponseWriter, sess *session, err error) {
	if errors.Is(err, errEnded) {
		s.ended(w, sess)
		return
	}
	fail(w, http.StatusConflict, err.Error())
}

func (s *Server) command(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	s.ask(w, r, node, false)
}

// commandStream is /voice/command/stream: the answer spoken (200
// audio/raw) when the center has a voice and the reply is complete, the
// usual JSON with 202 otherwise.
func (s *Server) commandStream(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	s.ask(w, r, node, true)
}

func (s *Server) ask(w http.ResponseWriter, r *http.Request, node NodeInfo, stream bool) {
	var req CommandRequest
	if !decode(w, r, &req) {
		return
	}
	switch err := checkConversationID(req.ConversationID); {
	case err != nil:
		fail(w, http.StatusBadRequest, err.Error())
		return
	case strings.TrimSpace(req.VoiceCommand) == "":
		fail(w, http.StatusBadRequest, "voice_command is empty")
		return
	}
	var sess *session
	var status int
	var msg string
	if r.Header.Get(HeaderStartAgain) != "" {
		// A node that starts the conversation again, its tools with it,
		// when the center does not hold it (it restarted since).
		sess, status, msg = s.existing(req.ConversationID, node.ID)
	} else {
		// Another (a Jarvis node) takes any answer but 200 for a failure
		// and loses the question; a conversation the center does not hold
		// is made anew, with the tools the node last registered.
		sess, status, msg = s.session(r.Context(), req.ConversationID, node, req.NodeContext, nil, false)
	}
	if sess == nil {
		fail(w, status, msg)
		return
	}
	s.owned(r.Context(), sess)
	tr, err := sess.begin(req.VoiceCommand, s.openLedger(r.Context(), sess, req.VoiceCommand), s.o.Log)
	if err != nil {
		s.refused(w, sess, err)
		return
	}
	if !stream {
		s.respond(w, r, sess, tr, http.StatusOK)
		return
	}
	s.voiced(w, r, sess, tr, func(oc outcome) {
		writeJSON(w, http.StatusAccepted, sess.final(tr.voice, oc))
		s.answered(r.Context(), w, sess, tr, oc)
	})
}

// continuation reads a /continue request: tool results, or the user's
// answer.
func (s *Server) continuation(w http.ResponseWriter, r *http.Request, node NodeInfo) (ContinueRequest, *session) {
	var req ContinueRequest
	if !decode(w, r, &req) {
		return req, nil
	}
	switch err := checkConversationID(req.ConversationID); {
	case err != nil:
		fail(w, http.StatusBadRequest, err.Error())
		return req, nil
	case len(req.ToolResults) == 0 && req.ValidationResponse == nil:
		fail(w, http.StatusBadRequest, "tool_results or validation_response is required")
		return req, nil
	case len(req.ToolResults) > 0 && req.ValidationResponse != nil:
		fail(w, http.StatusBadRequest, "send tool_results or validation_response, not both")
		return req, nil
	case len(req.ToolResults) > 1:
		fail(w, http.StatusBadRequest, fmt.Sprintf("tool_results: send the one result the center waits for, not %d", len(req.ToolResults)))
		return req, nil
	}
	sess, status, msg := s.existing(req.ConversationID, node.ID)
	if sess == nil {
		fail(w, status, msg)
		return req, nil
	}
	return req, sess
}

func (s *Server) continueTurn(w http.ResponseWriter, r *http.Request, node NodeInfo) {
	req, sess := s.continuation(w, r, node)
	if sess == nil {
		return
	}
	if req.ValidationResponse != nil {
		s.answer(w, r, sess, *req.ValidationResponse)
		return
	}
	res := req.ToolResults[0]
	if text, ok := sess.answerIn(res); ok {
		s.answer(w, r, sess, text)
		return
	}
	if p := sess.take(res.ToolCallID); p != nil {
		writeJSON(w, http.StatusOK, sess.final(p.tr.voice, p.oc))
		s.answered(r.Context(), w, sess, p.tr, p.oc)
		return
	}
	tr, status, msg := sess.deliver(res)
	if tr == nil {
		fail(w, status, msg)
		return
	}
	s.respond(w, r, sess, tr, http.StatusOK)
}

// answerIn reads a tool result that answers the reply's question: it
// names the question's id (or the stand-in a node uses when the question
// had none), or carries an answer.
func (sess *session) answerIn(res ToolResult) (string, bool) {
	sess.mu.Lock()
	asked := sess.asked
	sess.mu.Unlock()
	o := res.Output
	if o.Answer == nil && res.ToolCallID != ValidationAnswerID && (asked == "" || res.ToolCallID != asked) {
		return "", false
	}
	if o.Answer != nil {
		return *o.Answer, true
	}
	return o.Message, true
}

// answer starts the reply to the user's answer to a question.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, sess *session, text string) {
	if strings.TrimSpace(text) == "" {
		fail(w, http.StatusBadRequest, "the answer to the question is empty")
		return
	}
	s.owned(r.Context(), sess)
	// An answer is the same request only as the answer to the same
	// question: "yes" to another is another.
	sess.mu.Lock()
	asked := sess.asked
	sess.mu.Unlock()
	tr, err := sess.begin(text, s.openLedger(r.Context(), sess, asked+"\x00"+text), s.o.Log)
	if err != nil {
		s.refused(w, sess, err)
		return
	}
	sess.mu.Lock()
	sess.asked = ""
	sess.mu.Unlock()
	s.respond(w, r, sess, tr, http.StatusOK)
}

// deliver hands a tool result to the reply that waits for it.
func (sess *session) deliver(res ToolResult) (*run, int, string) {
	tr := sess.current()
	if tr == nil {
		return nil, http.StatusConflict, "conversation " + sess.id + " waits for no tool result"
	}
	tr.mu.Lock()
	waiting := tr.waiting
	if waiting != "" && res.ToolCallID == waiting {
		tr.waiting = ""
	}
	tr.mu.Unlock()
	if waiting == "" || res.ToolCallID != waiting {
		return nil, http.StatusBadRequest, fmt.Sprintf("tool_results[0].tool_call_id %q is not the call the center waits for (%q)", res.ToolCallID, waiting)
	}
	tr.results <- res
	return tr, 0, ""
}

// park keeps what the reply did after the result for callID until the
// node sends that result again to /continue.
func (sess *session) park(callID string, tr *run, oc outcome) {
	sess.mu.Lock()
	sess.held = &parked{callID: callID, tr: tr, oc: oc}
	sess.mu.Unlock()
}

// take returns, and forgets, what was parked for callID.
func (sess *session) take(callID string) *parked {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	p := sess.held
	if p == nil || p.callID != callID {
		return nil
	}
	sess.held = nil
	return p
}
