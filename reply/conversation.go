package reply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/redact"
	"github.com/harkbox/hark/reply/tooltext"
	"github.com/harkbox/hark/storage"
)

// conversation is what lives only as long as a conversation: its
// placeholders and its cache of small-model answers.
type conversation struct {
	id       string
	started  time.Time
	redactor *redact.Redactor

	mu    sync.Mutex
	cache map[string]any
	tools []string // offered in the last turn, in prompt order
}

// offered is the tools of the last turn, in the order the prompt gave them.
func (c *conversation) offered() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.tools)
}

// offer records the tools of this turn.
func (c *conversation) offer(names []string) {
	c.mu.Lock()
	c.tools = slices.Clone(names)
	c.mu.Unlock()
}

func newConversation(id string, started time.Time) *conversation {
	return &conversation{id: id, started: started, redactor: redact.New(), cache: map[string]any{}}
}

// remember memoises a small-model answer for the conversation.
func (c *conversation) remember(key string, v any) {
	c.mu.Lock()
	c.cache[key] = v
	c.mu.Unlock()
}

func (c *conversation) recall(key string) (any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.cache[key]
	return v, ok
}

// past is the conversation so far as the store has it.
type past struct {
	exchanges []storage.Exchange // of the open conversation, oldest first
	id        string             // the open conversation, or a new id
	isNew     bool
}

// Microphone is the client of the box's own microphone: the person in the
// room, whose turns go first to the model server. A Query without a Client
// is its.
const Microphone = "microphone"

// The errors of a conversation asked for by its id.
var (
	ErrNoConversation = errors.New("reply: no such conversation")
	ErrNotYours       = errors.New("reply: that conversation is another asker's")
)

// owner is the client an exchange was said by: before clients were
// recorded, everything was the box's microphone's.
func owner(x storage.Exchange) string {
	if x.Client == "" {
		return Microphone
	}
	return x.Client
}

// keepLooking is how far back a conversation asked for by its id is looked
// for.
const keepLooking = 366 * 24 * time.Hour

// recent finds the client's open conversation: its exchanges each within
// the lapse of the next, not closed by the user. live is the conversation
// the engine holds for the client ("" for none), looked at first. When
// want is set, it is that conversation of the client's instead, however
// old: ErrNoConversation when there is none, ErrNotYours when another
// client's.
func (e *Engine) recent(ctx context.Context, client, live, want string, now time.Time) (past, error) {
	p := past{id: newID(now), isNew: true}
	if e.o.Conversation != "" {
		p.id, live, want = e.o.Conversation, e.o.Conversation, ""
	}
	if e.o.Dialogue == nil {
		if want != "" {
			p.id = want
		}
		return p, nil
	}
	limit := 4*e.o.HistoryTurns + 8
	var all []storage.Exchange
	var err error
	switch {
	case want != "":
		all, err = e.o.Dialogue.RecentIn(ctx, want, now.Add(-keepLooking), limit)
		switch {
		case err != nil:
		case len(all) == 0:
			return p, fmt.Errorf("%w: %s", ErrNoConversation, want)
		case owner(all[0]) != client:
			return p, fmt.Errorf("%w: %s", ErrNotYours, want)
		default:
			return past{exchanges: all, id: want}, nil // asked for: however long ago
		}
	case live != "":
		all, err = e.o.Dialogue.RecentIn(ctx, live, now.Add(-24*time.Hour), limit)
	default:
		// The newest exchanges of everyone, of which the client's: enough
		// to find its open conversation among the others' in its lapse.
		all, err = e.o.Dialogue.Recent(ctx, now.Add(-24*time.Hour), max(limit, 200))
		all = slices.DeleteFunc(all, func(x storage.Exchange) bool { return owner(x) != client })
	}
	if err != nil {
		e.log.Warn("read dialogue failed; answering without history", "err", err)
		return p, nil
	}
	if n := len(all); n == 0 || all[n-1].Closed {
		return p, nil
	}
	// Exchanges come in the order they were stored; a gap that runs
	// backwards (the clock was behind, or stepped back, in between) ends
	// the conversation as a long one does, so a clock behind never reopens
	// an old conversation.
	last, first := now, len(all)
	for i := len(all) - 1; i >= 0; i-- {
		if gap := last.Sub(all[i].At); gap < 0 || gap > e.o.ConversationLapse {
			break
		}
		if i < len(all)-1 && all[i].Closed {
			break
		}
		first, last = i, all[i].At
	}
	if first == len(all) {
		return p, nil
	}
	id := all[len(all)-1].Conversation
	for _, x := range all[first:] {
		if x.Conversation == id {
			p.exchanges = append(p.exchanges, x)
		}
	}
	p.id, p.isNew = id, false
	return p, nil
}

// Owner is the client whose conversation id is: ErrNoConversation when
// the dialogue has none.
func (e *Engine) Owner(ctx context.Context, id string) (string, error) {
	if e.o.Dialogue != nil {
		x, err := e.o.Dialogue.RecentIn(ctx, id, e.o.Now().Add(-keepLooking), 1)
		if err != nil {
			return "", err
		}
		if len(x) > 0 {
			return owner(x[0]), nil
		}
	}
	return "", fmt.Errorf("%w: %s", ErrNoConversation, id)
}

// Latest is the newest conversation of the clients whose names begin with
// prefix, among the last exchanges of the past year, and whose it is; ok
// is false when there is none.
func (e *Engine) Latest(ctx context.Context, prefix string) (client, id string, ok bool) {
	if e.o.Dialogue == nil {
		return "", "", false
	}
	all, err := e.o.Dialogue.Recent(ctx, e.o.Now().Add(-keepLooking), 1000)
	if err != nil {
		e.log.Warn("read dialogue failed", "err", err)
		return "", "", false
	}
	for i := len(all) - 1; i >= 0; i-- {
		if c := owner(all[i]); strings.HasPrefix(c, prefix) {
			return c, all[i].Conversation, true
		}
	}
	return "", "", false
}

var idSeq atomic.Uint32

// newID names a new conversation after its start, unique within a process.
func newID(now time.Time) string {
	return fmt.Sprintf("c%s-%d", now.UTC().Format("20060102T150405.000"), idSeq.Add(1))
}

// live is the conversation the engine holds for client; "" for none.
func (e *Engine) live(client string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if c := e.convs[client]; c != nil {
		return c.id
	}
	return ""
}

// TakeUp takes up, before a turn of client's in the conversation id, the
// last call its last exchange kept, as Reply would: so that what is
// decided before the turn, its language (command.Registry.Decide), knows
// the conversation's. It does nothing when the engine holds that
// conversation already, or when client has none by that id.
func (e *Engine) TakeUp(ctx context.Context, client, id string) {
	if id == "" || e.o.Dialogue == nil || e.live(client) == id {
		return
	}
	x, err := e.o.Dialogue.RecentIn(ctx, id, e.o.Now().Add(-keepLooking), 1)
	if err != nil || len(x) == 0 || owner(x[0]) != client {
		return // Reply says what is wrong
	}
	e.resume(client, x[0])
}

// resume takes up the client's last call as the exchange x, the last of
// its conversation, kept it.
func (e *Engine) resume(client string, x storage.Exchange) {
	if l := x.Last; l != nil && !x.Closed && e.o.Commands != nil {
		e.o.Commands.Resume(client, command.Last{Command: l.Command, Args: l.Arguments, Data: l.Data, At: l.At, Language: l.Language})
	}
}

// conversationFor returns the state of the client's conversation p,
// starting it (and closing the client's previous one, whose diary entry is
// then written) when it is new to the engine. A stored conversation new
// to the engine (another process's, or this one's before a restart) takes
// up the client's last call as its last exchange kept it.
func (e *Engine) conversationFor(client string, p past, now time.Time) *conversation {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.convs[client]
	if c != nil && c.id == p.id {
		return c
	}
	if n := len(p.exchanges); !p.isNew && n > 0 {
		e.resume(client, p.exchanges[n-1])
	}
	if c != nil {
		e.finished(c.id)
	}
	started := now
	if len(p.exchanges) > 0 {
		started = p.exchanges[0].At
	}
	c = newConversation(p.id, started)
	e.convs[client] = c
	if p.isNew && e.o.Commands != nil {
		e.o.Commands.Forget(client) // a new conversation refines nothing
	}
	return c
}

// history turns the conversation's earlier exchanges into messages, newest
// kept when the caps bite: the user's words, the tool calls made and their
// results (the last CarryTurns exchanges with tools, each result cut to
// CarryChars with its framing kept), and the answer.
func (e *Engine) history(p past, textTools bool) []llm.Message {
	var msgs []llm.Message
	chars, turns, carried := 0, 0, 0
	for i := len(p.exchanges) - 1; i >= 0 && turns < e.o.HistoryTurns; i-- {
		x := p.exchanges[i]
		if x.Failed && len(x.Tools) == 0 {
			continue // an apology carries nothing
		}
		n := len(x.User) + len(x.Assistant)
		if chars+n > e.o.HistoryChars {
			break
		}
		chars += n
		turns++
		var block []llm.Message
		block = append(block, llm.Message{Role: llm.RoleUser, Content: e.stamp(x.At) + "\n" + x.User})
		if len(x.Tools) > 0 && carried < e.o.CarryTurns {
			carried++
			block = append(block, e.carry(x.Tools, textTools)...)
		}
		if x.Assistant != "" {
			block = append(block, llm.Message{Role: llm.RoleAssistant, Content: x.Assistant})
		}
		msgs = append(block, msgs...)
	}
	return msgs
}

// carry renders earlier tool calls and results as the protocol in use
// expects them.
func (e *Engine) carry(tools []storage.ToolRecord, textTools bool) []llm.Message {
	var out []llm.Message
	if textTools {
		for _, t := range tools {
			args, _ := json.Marshal(t.Arguments)
			out = append(out,
				llm.Message{Role: llm.RoleAssistant, Content: "```tool_call\n" + `{"name": "` + t.Name + `", "arguments": ` + string(args) + "}\n```"},
				llm.Message{Role: llm.RoleUser, Content: tooltext.Result(t.Name, truncate(t.Result, e.o.CarryChars))})
		}
		return out
	}
	call := llm.Message{Role: llm.RoleAssistant}
	for _, t := range tools {
		call.ToolCalls = append(call.ToolCalls, llm.ToolCall{Name: t.Name, Arguments: t.Arguments})
	}
	out = append(out, call)
	for _, t := range tools {
		out = append(out, llm.Message{Role: llm.RoleTool, ToolName: t.Name, Content: truncate(t.Result, e.o.CarryChars)})
	}
	return out
}

// failedTools are the tools of the last exchange that reported failure:
// the user is likely to answer with what was missing, so they stay
// offered. Only the stored flag counts, never the result's words.
func failedTools(p past) []string {
	if len(p.exchanges) == 0 {
		return nil
	}
	var out []string
	for _, t := range p.exchanges[len(p.exchanges)-1].Tools {
		if t.Failed {
			out = append(out, t.Name)
		}
	}
	return out
}

// toolResults are the results carried in the conversation, for the recall
// gate.
func toolResults(p past) []string {
	var out []string
	for _, x := range p.exchanges {
		for _, t := range x.Tools {
			out = append(out, t.Result)
		}
	}
	return out
}

// truncate cuts a tool result to n characters keeping its framing: a JSON
// object stays a JSON object with its long strings shortened; a fenced or
// bracketed block keeps its first and last lines.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if command.Fenced(s) {
		return command.Shorten(s, n)
	}
	var obj map[string]any
	if strings.HasPrefix(s, "{") && json.Unmarshal([]byte(s), &obj) == nil {
		for limit := n / 2; limit >= 16; limit /= 2 {
			shortenStrings(obj, limit)
			if b, err := json.Marshal(obj); err == nil && len(b) <= n {
				return string(b)
			}
		}
	}
	lines := strings.Split(s, "\n")
	if len(lines) >= 3 {
		head, tail := lines[0], lines[len(lines)-1]
		if room := n - len(head) - len(tail) - 4; room > 0 {
			body := strings.Join(lines[1:len(lines)-1], "\n")
			if len(body) > room {
				body = body[:room] + "…"
			}
			return head + "\n" + body + "\n" + tail
		}
	}
	return s[:max(0, n-1)] + "…"
}

func shortenStrings(v any, limit int) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if s, ok := val.(string); ok && len(s) > limit {
				x[k] = command.Shorten(s, limit)
			} else {
				shortenStrings(val, limit)
			}
		}
	case []any:
		for i, val := range x {
			if s, ok := val.(string); ok && len(s) > limit {
				x[i] = command.Shorten(s, limit)
			} else {
				shortenStrings(val, limit)
			}
		}
	}
}

// Maintain closes the conversations that have lapsed, writing their diary
// entries, and catches up on the entries not written yet (see diarist),
// at once and then every interval until ctx is done. The daemon runs it;
// hark ask relies on the next reply noticing the lapse.
func (e *Engine) Maintain(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		e.catchUp()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		e.mu.Lock()
		held := maps.Clone(e.convs)
		e.mu.Unlock()
		for client, c := range held {
			p, _ := e.recent(ctx, client, c.id, "", e.o.Now())
			if p.id == c.id {
				continue
			}
			e.mu.Lock()
			if e.convs[client] == c {
				delete(e.convs, client)
				e.finished(c.id)
			}
			e.mu.Unlock()
		}
	}
}

// CloseWait is how long Close waits for diary entries being written
// before it gives them up: a stopping box must not wait on a model server
// that no longer answers.
const CloseWait = 3 * time.Second

// Close waits for the diary entries of the conversations the engine let
// go of, CloseWait at most, and begins no others; those still being
// written then, and one it was catching up on, are given up (the
// exchanges themselves are in the dialogue, and the next start writes
// them). An engine with a Diarist lets go of its conversation, which the
// Diarist writes once it has lapsed.
func (e *Engine) Close() {
	if e.closeDiary() && e.o.Diarist != nil {
		e.o.Diarist.letGo(e.o.Conversation)
	}
	done := make(chan struct{})
	go func() { e.wg.Wait(); close(done) }()
	t := time.NewTimer(CloseWait)
	defer t.Stop()
	select {
	case <-done:
		return
	case <-t.C:
	}
	e.log.Warn("stopping: a diary entry still being written is given up", "waited", CloseWait)
	e.giveUp()
	<-done
}
