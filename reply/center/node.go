package center

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// NodeOptions configure a Node.
type NodeOptions struct {
	Client *Client
	// Commands are the node's own: the offline core answers from them
	// first, and the ones named in Tools are offered to the center.
	Commands *command.Registry
	Tools    []string
	Room     string
	Timezone string
	// Lapse starts a new conversation after this much quiet, and an
	// unanswered question of the center's lapses with the old one;
	// default 5 min.
	Lapse time.Duration
	// Budget bounds each silence of the center: before its first
	// sentence (the conversation's start included), and between one
	// sentence and the next; default 30 s. A center that says nothing for
	// that long is taken for a hung one.
	Budget time.Duration
	Log    *slog.Logger
}

// Unreachable is said when the center cannot be reached; TooSlow when it
// says nothing within the budget; Interrupted when it stopped in the
// middle of an answer (a restart); ShuttingDown when it was stopping
// before any of the answer came (a restart).
var (
	Unreachable  = locale.Key("I can't reach the command center right now.")
	TooSlow      = locale.Key("The command center is taking too long. Please try again in a moment.")
	Interrupted  = locale.Key("The command center stopped in the middle of that answer. Please ask again.")
	ShuttingDown = locale.Key("The command center is shutting down. Please try again in a moment.")
)

// ErrTooSlow: the center said nothing within the node's budget.
var ErrTooSlow = errors.New("center: nothing from the center within the budget")

// Node is a speaker's side: it answers what it can itself, asks the center
// for the rest, and runs the center's client tool calls. Safe for
// concurrent use, though a speaker asks one question at a time.
type Node struct {
	o   NodeOptions
	log *slog.Logger

	mu       sync.Mutex
	conv     string                // the conversation under way
	last     time.Time             // its last exchange
	started  bool                  // its client tools are registered
	ran      map[string]ToolOutput // what its tool calls did, by call id
	question bool                  // the center asked the user something
	spoke    bool                  // the last answer's sentences were said as they streamed
	link     Link
	zone     string // the household's time zone: NodeOptions.Timezone until SetTimezone

	// The background look at a down center: stopRetry ends it, looks
	// waits for it; none starts once the node is closed.
	stopRetry context.CancelFunc // nil while none runs
	looks     sync.WaitGroup
	closed    bool
}

// Link is the node's connection to its center.
type Link struct {
	Up      bool
	RTT     time.Duration // of the last request that succeeded
	Checked time.Time
	Err     string
}

// NewNode returns a Node for o.
func NewNode(o NodeOptions) *Node {
	if o.Lapse == 0 {
		o.Lapse = 5 * time.Minute
	}
	if o.Budget == 0 {
		o.Budget = 30 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Node{o: o, log: o.Log.With("pkg", "center", "node", o.Client.NodeID()), link: Link{Up: true}, zone: o.Timezone}
}

// SetTimezone changes the zone name (an IANA name) the center is told
// with each question from now on; the household set another.
func (n *Node) SetTimezone(name string) {
	n.mu.Lock()
	n.zone = name
	n.mu.Unlock()
}

// Link reports the connection to the center.
func (n *Node) Link() Link {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.link
}

// Reply answers text, saying each sentence as it comes. FollowUp is set
// when the center asked the user something: the next utterance is the
// answer, unless the conversation lapses first (NodeOptions.Lapse).
//
// The node's offline core answers what it can before the center is
// asked, and, when the center cannot be reached, also what was taken for
// the answer to the center's question. When the center is lost after the
// node ran its tools for it, the node says what they did.
//
// The turn's language in ctx (locale.WithLanguage), or else the one text
// reads as, is what the node's own commands hear and its sentences are
// said in.
func (n *Node) Reply(ctx context.Context, text string, say func(string)) (followUp bool, err error) {
	if locale.LanguageOf(ctx) == "" { // a caller that decided none
		ctx = locale.WithLanguage(ctx, locale.Decide("", text, locale.English))
	}
	lang := locale.Speaking(ctx)
	n.mu.Lock()
	answering := n.question && time.Since(n.last) <= n.o.Lapse // the question lapses with its conversation
	n.question = false
	n.mu.Unlock()
	if !answering && n.offline(ctx, lang, text, say) {
		return false, nil
	}
	// A center known to be down or timing out costs a short look, not a
	// whole budget per question.
	if err := n.stillDown(ctx); err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if answering && n.offline(ctx, lang, text, say) {
			return false, nil
		}
		say(lang.T(Unreachable))
		return false, err
	}
	spoke := false
	heard := func(s string) {
		spoke = spoke || s != ""
		say(s)
	}
	resp, streamed, err := n.ask(ctx, text, answering, heard)
	var did []string // what the node's tools did for the center, as they said it
	for err == nil && resp.StopReason == StopToolCalls {
		var done []string
		resp, streamed, done, err = n.runTools(ctx, resp, text, heard)
		did = append(did, done...)
	}
	if err != nil && ctx.Err() == nil {
		// The center may have lost the conversation (it stopped, or
		// restarted): the next question starts it again, with the node's
		// tools, rather than find it there without them.
		n.unstart()
		// The center will not tell what the node did for it: the node
		// does. A question's answer it never took may be the offline
		// core's.
		for _, s := range did {
			say(s)
		}
		if answering && !spoke && len(did) == 0 && n.offline(ctx, lang, text, say) {
			if !isStatus(err, http.StatusServiceUnavailable) {
				n.down(err)
			}
			return false, nil
		}
	}
	switch {
	case ctx.Err() != nil:
		return false, ctx.Err()
	case errors.Is(err, ErrTooSlow):
		n.down(err) // the link is timing out: the status shows it
		say(lang.T(TooSlow))
		return false, err
	case isStatus(err, http.StatusServiceUnavailable):
		if stoppingBefore(err) && !spoke && len(did) == 0 {
			say(lang.T(ShuttingDown)) // nothing of the answer came: none was cut
		} else {
			say(lang.T(Interrupted))
		}
		return false, err
	case err != nil:
		n.down(err)
		say(lang.T(Unreachable))
		return false, err
	case resp.StopReason == StopValidation && resp.ValidationRequest != nil:
		n.mu.Lock()
		n.question, n.last = true, time.Now()
		n.mu.Unlock()
		if !streamed {
			say(resp.ValidationRequest.Question)
		}
		return true, nil
	}
	return false, nil
}

// offline runs the node's own deterministic path (time, timers, volume,
// stop, arithmetic), which works without the center.
func (n *Node) offline(ctx context.Context, lang locale.Lang, text string, say func(string)) bool {
	u := n.o.Commands.Understand(ctx, lang, text)
	if !u.OK {
		return false
	}
	resp := n.o.Commands.RunRoute(ctx, u.Route, text)
	if resp.Spoken != "" {
		say(resp.Spoken)
	}
	return true
}

// ask sends text to the center: a new command, or the answer to the
// center's question. A conversation the center does not hold (it
// restarted) is started again once, with the node's tools; one that
// lapsed there, or that it holds for an answer given up on, is replaced
// by a new one.
func (n *Node) ask(ctx context.Context, text string, answering bool, say func(string)) (resp Response, streamed bool, err error) {
	for attempt := 0; ; attempt++ {
		var conv string
		began := time.Now()
		err = n.budgeted(ctx, say, func(ctx context.Context, say func(string)) (err error) {
			// Starting the conversation is inside the budget too.
			if conv, err = n.conversation(ctx); err != nil {
				return err
			}
			if answering {
				resp, err = n.o.Client.Continue(ctx, ContinueRequest{ConversationID: conv, ValidationResponse: &text}, n.streamed(say))
			} else {
				resp, err = n.o.Client.commandStarted(ctx, CommandRequest{VoiceCommand: text, ConversationID: conv, NodeContext: n.context()}, n.streamed(say))
			}
			return err
		})
		var se *StatusError
		switch {
		case !errors.As(err, &se) || attempt > 0:
		case se.Code == 404:
			// The center does not hold the conversation (it restarted
			// since the start, quietly or not): started again, with the
			// node's tools, it goes on from its history in the store.
			n.log.Info("the center does not hold the conversation; starting it again", "conversation", conv)
			n.unstart()
			answering = false // the question went with the center's memory; its words are in the history
			continue
		case se.Code == 410 || se.Code == 409:
			// 410: the conversation lapsed on the center; 409: the center
			// still holds it for an answer this node gave up on (a cancel
			// that never reached it).
			n.log.Info("the conversation lapsed on the center, or is held there still; starting a new one", "conversation", conv, "status", se.Code)
			n.forget()
			answering = false // the question went with the conversation
			continue
		}
		if err == nil {
			n.up(time.Since(began))
			streamed = n.streaming()
			if !streamed && resp.AssistantMessage != "" {
				say(resp.AssistantMessage)
			}
		}
		return resp, streamed, err
	}
}

// budgeted runs one request to the center, cancelling it when the center
// says nothing for the budget: before its first sentence, or between one
// sentence and the next.
func (n *Node) budgeted(ctx context.Context, say func(string), do func(context.Context, func(string)) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	timer := time.AfterFunc(n.o.Budget, func() { cancel(ErrTooSlow) })
	defer timer.Stop()
	err := do(ctx, func(s string) {
		timer.Stop()
		if s != "" { // "" is the center saying it waits for its model
			say(s) // the time it takes to say is not the center's silence
		}
		timer.Reset(n.o.Budget)
	})
	if err != nil && errors.Is(context.Cause(ctx), ErrTooSlow) {
		return fmt.Errorf("%w (%v)", ErrTooSlow, n.o.Budget)
	}
	return err
}

// streamed says the sentences of a streamed answer as they come.
func (n *Node) streamed(say func(string)) func(string) {
	return func(s string) {
		if s != "" {
			n.mu.Lock()
			n.spoke = true
			n.mu.Unlock()
		}
		say(s)
	}
}

// streaming reports, and resets, whether the last answer's sentences were
// said as they streamed.
func (n *Node) streaming() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	s := n.spoke
	n.spoke = false
	return s
}

// runTools runs the center's client tool calls and sends the results. did
// are the sentences of the calls that did what they were asked, for the
// node to say should the center not answer.
//
// A call the center asks for again, by the id it had (the center lost
// its result: it stopped before the result reached it, and the request
// came again), is not run again: the center gets what it did.
func (n *Node) runTools(ctx context.Context, resp Response, text string, say func(string)) (next Response, streamed bool, did []string, err error) {
	var results []ToolResult
	for _, call := range resp.ToolCalls {
		if out, ok := n.already(call.ID); ok {
			n.log.Info("the center asked again for a call this node ran; it gets what the call did", "tool", call.Function.Name, "call", call.ID)
			results = append(results, ToolResult{ToolCallID: call.ID, Output: out})
			continue
		}
		var args map[string]any
		out := ToolOutput{}
		if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil {
			out.Message = fmt.Sprintf("the arguments are not a JSON object: %v", err)
		} else if _, ok := n.o.Commands.Lookup(call.Function.Name); !ok {
			out.Message = "this speaker has no tool " + call.Function.Name
		} else {
			r := n.o.Commands.Call(ctx, call.Function.Name, args, text)
			if r.Kind == command.Success && r.Spoken != "" {
				did = append(did, r.Spoken)
			}
			out = outputOf(r)
		}
		n.keepRan(call.ID, out)
		results = append(results, ToolResult{ToolCallID: call.ID, Output: out})
	}
	n.mu.Lock()
	conv := n.conv
	n.mu.Unlock()
	began := time.Now()
	err = n.budgeted(ctx, say, func(ctx context.Context, say func(string)) (err error) {
		next, err = n.o.Client.Continue(ctx, ContinueRequest{ConversationID: conv, ToolResults: results}, n.streamed(say))
		return err
	})
	var se *StatusError
	if errors.As(err, &se) && (se.Code == 404 || se.Code == 410) {
		// The center lost the conversation mid-reply. It restarted (404):
		// the same request in the same conversation, started again, finds
		// what the reply's tools did. It lapsed there (410): ask again in
		// a new one.
		if se.Code == 404 {
			n.unstart()
		} else {
			n.forget()
		}
		next, streamed, err = n.ask(ctx, text, false, say)
		return next, streamed, did, err
	}
	if err == nil {
		n.up(time.Since(began))
		streamed = n.streaming()
		if !streamed && next.AssistantMessage != "" {
			say(next.AssistantMessage)
		}
	}
	return next, streamed, did, err
}

// conversation is the conversation id to use, started on the center with
// the node's client tools when it is new.
func (n *Node) conversation(ctx context.Context) (string, error) {
	n.mu.Lock()
	if n.conv == "" || time.Since(n.last) > n.o.Lapse {
		n.conv, n.started, n.ran = newConversationID(n.o.Client.NodeID()), false, nil
	}
	n.last = time.Now()
	conv, started := n.conv, n.started
	n.mu.Unlock()
	if started {
		return conv, nil
	}
	var tools []*command.Command
	for _, name := range n.o.Tools {
		if c, ok := n.o.Commands.Lookup(name); ok {
			tools = append(tools, c)
		}
	}
	if err := n.o.Client.Start(ctx, StartRequest{ConversationID: conv, NodeContext: n.context(), ClientTools: ToolsOf(tools)}); err != nil {
		return "", err
	}
	n.mu.Lock()
	n.started = true
	n.mu.Unlock()
	return conv, nil
}

func (n *Node) forget() {
	n.mu.Lock()
	n.conv = ""
	n.mu.Unlock()
}

// unstart keeps the conversation, to be started again on the center with
// the next request.
func (n *Node) unstart() {
	n.mu.Lock()
	n.started = false
	n.mu.Unlock()
}

// maxRan bounds the calls of a conversation the node remembers.
const maxRan = 64

// keepRan remembers what the conversation's call id did.
func (n *Node) keepRan(id string, out ToolOutput) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.ran == nil || len(n.ran) >= maxRan {
		n.ran = map[string]ToolOutput{}
	}
	n.ran[id] = out
}

// already is what the conversation's call id did, when the node ran it.
func (n *Node) already(id string) (ToolOutput, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	out, ok := n.ran[id]
	return out, ok
}

func (n *Node) context() NodeContext {
	n.mu.Lock()
	zone := n.zone
	n.mu.Unlock()
	return NodeContext{NodeID: n.o.Client.NodeID(), Room: n.o.Room, Timezone: zone}
}

// stillDown looks, briefly, whether a center known to be down answers
// again; nil when the link is up or the center answers.
func (n *Node) stillDown(ctx context.Context) error {
	n.mu.Lock()
	up := n.link.Up
	n.mu.Unlock()
	if up {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, pingBudget)
	defer cancel()
	began := time.Now()
	if err := n.o.Client.Ping(ctx); err != nil {
		return fmt.Errorf("center: still unreachable: %w", err)
	}
	n.up(time.Since(began))
	return nil
}

// pingBudget bounds a look at whether the center is back.
const pingBudget = 3 * time.Second

func isStatus(err error, code int) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == code
}

// stoppingBefore reports the center's answer that it is stopping, which it
// gives when none of the answer had come out (see Server.stoppedUnbegun).
func stoppingBefore(err error) bool {
	var se *StatusError
	return errors.As(err, &se) && se.Code == http.StatusServiceUnavailable && se.Message == "center: "+stopping
}

func (n *Node) up(rtt time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.link.Up {
		n.log.Info("the center is back")
	}
	n.link = Link{Up: true, RTT: rtt, Checked: time.Now()}
}

// down marks the link down, once, and retries in the background with
// backoff until the center answers again, or the node is closed.
func (n *Node) down(err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.link.Up {
		n.link.Err = err.Error()
	} else {
		n.log.Warn("the center is unreachable; answering from the offline core until it is back", "err", err)
		n.link = Link{Up: false, Checked: time.Now(), Err: err.Error()}
	}
	if n.stopRetry != nil || n.closed {
		return
	}
	ctx, stop := context.WithCancel(context.Background())
	n.stopRetry = stop
	n.looks.Go(func() {
		defer stop()
		n.retry(ctx)
	})
}

// retry pings the center, waiting longer each time, until it answers or
// ctx ends (the node is closed).
func (n *Node) retry(ctx context.Context) {
	wait := time.Second
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		began := time.Now()
		err := n.o.Client.Ping(pctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			n.mu.Lock()
			n.stopRetry = nil // a center down again is looked at anew
			n.mu.Unlock()
			n.up(time.Since(began))
			return
		}
		n.mu.Lock()
		n.link.Err = err.Error() // Checked stays when it went down
		n.mu.Unlock()
		wait = min(2*wait, time.Minute)
		t.Reset(wait)
	}
}

// Close stops the node's background look at a down center and waits for
// it to end. The node still answers after Close, but a center it finds
// down is no longer looked at in the background.
func (n *Node) Close() {
	n.mu.Lock()
	n.closed = true
	stop := n.stopRetry
	n.mu.Unlock()
	if stop != nil {
		stop()
	}
	n.looks.Wait()
}

func newConversationID(node string) string {
	b := make([]byte, 6)
	rand.Read(b)
	return node + "-" + time.Now().UTC().Format("20060102T150405") + "-" + hex.EncodeToString(b)
}
