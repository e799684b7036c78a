package reply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/planner"
	"github.com/harkbox/hark/reply/redact"
	"github.com/harkbox/hark/storage"
)

// turn is the state of one reply under way.
type turn struct {
	e      *Engine
	client string // who asks
	conv   *conversation
	past   past
	q      Query  // redacted: what the model and the logs see
	raw    string // as the user said it: what local commands get
	now    time.Time
	began  time.Time
	// origin is when the turn could first ask the model: its start, or
	// the end of its wait for the model to load or for its turn. The
	// reply budget counts from it.
	origin time.Time
	say    func(string)
	onHold func(Hold) // the query's Hold; nil says the line
	// ticket is the turn's place in the engine's Queue, once it asked;
	// slack widens its budget when the queue let it through on trial.
	ticket *llm.Ticket
	slack  time.Duration
	res    Result
	// lang is what the offline core and the fixed sentences speak: the
	// utterance's language when Hark has phrases for it, else English.
	lang locale.Lang
	// understood is what the offline path made of an utterance it did not
	// carry out, for the sentence said when the model cannot be asked.
	understood command.Understood

	// The reply budget: the first words by deadline, the auxiliary calls
	// done by auxDeadline; auxSpent once one of them timed out.
	deadline, auxDeadline time.Time
	auxSpent              bool
	spoke                 atomic.Bool // a sentence was said; read by the budget's timer

	closed  bool                 // the user ended the conversation
	records []storage.ToolRecord // tool calls, for the dialogue record
	aux     llm.Chatter          // the small model, counted

	// The price of the chat call as first estimated, the cache reuse it
	// expects, and its time-out.
	chatEst     cost.Estimate
	chatCost    time.Duration
	chatTimeout time.Duration

	// Decided before the loop.
	small     bool
	toolsMove bool            // the model's template puts tools in the last user message
	size      modelSize       // what the server said of the model
	thought   int             // answers that were reasoning only
	bare      map[string]bool // tools offered without their example, for the budget
	plan      planner.Plan
	memory    string   // the memory block for the prompt
	allowed   []string // tool names offered

	// Loop state.
	text      bool            // tools described in text
	seen      map[string]bool // tool calls made, for duplicate suppression
	invalid   map[string]int  // invalid calls per tool
	searches  int             // search_tools calls
	stepsDone int             // plan tool steps executed directly
	parts     []string        // compound query parts, in text mode
	answered  int             // tool results received, in text mode
	malformed bool            // an answer failed the guard
	lastSaid  string          // the last candidate reply, for out of turns
	// lastResult and lastSpoken are the last successful tool call's
	// result and own answer; askedAgain is set once an empty answer after
	// it was asked for again.
	lastResult, lastSpoken string
	askedAgain             bool
	results                map[string]string // tool results by call, for the out-of-turns digest
}

// speak hands a sentence to the caller.
func (t *turn) speak(s string) {
	if !strings.ContainsFunc(s, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) {
		return // nothing to say: a lone "." or "..."
	}
	if t.res.Timings.FirstSentence == 0 {
		t.res.Timings.FirstSentence = time.Since(t.began)
	}
	t.res.Sentences = append(t.res.Sentences, s)
	t.spoke.Store(true)
	t.say(t.conv.redactor.Speakable(s, t.lang.T("a secret"))) // a secret asked for is said, never sent back
}

// speakText says a complete text, cleaned for speech, sentence by sentence.
func (t *turn) speakText(text string) {
	st := speechStream{Language: t.q.Language}
	for _, s := range st.Write(text) {
		t.speak(s)
	}
	for _, s := range st.Flush() {
		t.speak(s)
	}
}

// offline runs the utterance through the commands' deterministic path and
// reports whether it was handled.
func (t *turn) offline(ctx context.Context) bool {
	reg := t.e.o.Commands
	if reg == nil {
		return false
	}
	u := reg.Understand(ctx, t.lang, t.raw)
	if !u.OK {
		t.understood = u
		t.e.log.Debug("not carried out offline", "intent", u.Intent, "reason", u.Reason, "detail", u.Detail)
		return false
	}
	rt := u.Route
	resp := reg.RunRoute(ctx, rt, t.raw)
	t.res.Offline = true
	t.ran(rt.Command.Name, rt.Claim.Arguments, resp)
	t.settle(resp)
	t.speakText(resp.Spoken)
	t.res.FollowUp = t.res.FollowUp || resp.Kind == command.Invalid && resp.Spoken != ""
	return true
}

// ran notes a command the turn ran itself, not the model: in the result
// and in the conversation's record.
func (t *turn) ran(name string, args map[string]any, resp command.Response) {
	failed := resp.Kind == command.Failure || resp.Kind == command.Invalid
	t.res.Tools = append(t.res.Tools, ToolUse{Name: name, Arguments: args, Failed: failed})
	result, _ := t.conv.redactor.Redact(toolResult(resp))
	t.records = append(t.records, storage.ToolRecord{Name: name, Arguments: t.redactArgs(args), Result: result, Failed: failed})
}

// settle applies what a command's response means for the conversation.
func (t *turn) settle(resp command.Response) {
	if resp.Kind == command.FollowUp {
		t.res.FollowUp = true
	}
	if resp.EndConversation {
		t.closed = true
		if t.e.o.Commands != nil {
			t.e.o.Commands.Forget(t.client)
		}
	}
}

// lastCall is the client's last command call, for the exchange to keep
// while a follow-up may still change it; nil when there is none, or when
// it holds a secret, which the store never keeps in clear, or more than a
// follow-up needs.
func (t *turn) lastCall() *storage.LastCall {
	if t.e.o.Commands == nil || t.closed {
		return nil
	}
	l, ok := t.e.o.Commands.Last(t.client)
	if !ok {
		return nil
	}
	b, err := json.Marshal(l)
	if err != nil || len(b) > maxLastCall || holdsSecret(l.Args, false) || holdsSecret(l.Data, true) {
		return nil
	}
	return &storage.LastCall{Command: l.Command, Arguments: l.Args, Data: l.Data, At: l.At, Language: l.Language}
}

// holdsSecret reports a string in v that redaction would hide, each read
// alone: the values, not the keys that name them. Of a command's data
// (made, say) only sentences are read, where what the user said comes
// back (a fact with its password); a single word there is the command's
// own (a timer's id, shaped like a token).
func holdsSecret(v any, sentences bool) bool {
	switch x := v.(type) {
	case string:
		if sentences && !strings.Contains(strings.TrimSpace(x), " ") {
			return false
		}
		_, kinds := redact.New().Redact(x)
		return len(kinds) > 0
	case map[string]any:
		for _, val := range x {
			if holdsSecret(val, sentences) {
				return true
			}
		}
	case []any:
		for _, val := range x {
			if holdsSecret(val, sentences) {
				return true
			}
		}
	}
	return false
}

// maxLastCall bounds the last call an exchange keeps, as JSON: a
// command's data beyond it (a long lookup) is the model's to follow up.
const maxLastCall = 4 << 10

// redactArgs redacts a call's string arguments for the record.
func (t *turn) redactArgs(args map[string]any) map[string]any {
	if len(args) == 0 {
		return nil
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		if s, ok := v.(string); ok {
			v, _ = t.conv.redactor.Redact(s)
		}
		out[k] = v
	}
	return out
}

// counted wraps the small model so its calls count in the turn's timings.
type counted struct {
	inner llm.Chatter
	t     *turn
}

// It also keeps the reply budget: every auxiliary call ends by the turn's
// auxDeadline, and once one has timed out the others are skipped, so a
// server that accepts and never answers costs one timeout, not one each.
func (c counted) Chat(ctx context.Context, req llm.Request, onChunk func(llm.Chunk) error) (llm.Response, error) {
	t := c.t
	if t.auxSpent || !time.Now().Before(t.auxDeadline) {
		return llm.Response{}, ErrAuxSkipped
	}
	actx, cancel := context.WithDeadline(ctx, t.auxDeadline)
	defer cancel()
	resp, err := t.metered(actx, c.inner, t.e.auxKey(), req, onChunk)
	if err != nil && ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
		t.auxTimedOut("auxiliary call")
		return resp, fmt.Errorf("reply: auxiliary call timed out after the budget's %v: %w", t.e.o.ReplyBudget/2, context.DeadlineExceeded)
	}
	return resp, err
}

// auxTimedOut notes that an auxiliary request ran out of the budget's share:
// the rest of them are skipped in this reply.
func (t *turn) auxTimedOut(what string) {
	t.auxSpent = true
	t.e.log.Warn("model request timed out; skipping the other auxiliary calls of this reply",
		"request", what, "budget_ms", t.e.o.ReplyBudget.Milliseconds()/2)
}

// ErrAuxSkipped is what an auxiliary call returns once the reply budget's
// share for them is spent; each caller fails open, as on a timeout.
var ErrAuxSkipped = errors.New("reply: auxiliary call skipped: the reply budget is spent")

// ErrTooSlow reports a reply that said nothing within the reply budget.
var ErrTooSlow = errors.New("reply: the model is taking too long")
