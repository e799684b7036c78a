package center

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/reply/command"
)

// A request a node sends again after the center stopped in the middle of
// its reply must not do twice what the reply's tools did: set a second
// timer, keep a fact twice. The wire has no request id; what a node sends
// again is the same words in the same conversation (a Hark node at once,
// when its tool result finds the conversation gone; a household asking
// again). So the center keeps, in its store, the tool calls of each reply
// under way by the request it answers (the node, its conversation, the
// words), and a reply to the same request gets each tool's stored result,
// call by call in order of each tool's calls, instead of calling the tool
// again. A call is the same one only with the same arguments: a timer of
// ten minutes where the reply before set five is another call, and runs.
// A node's tool whose result never came back is asked for again
// under the id it first had, so that a node that ran it (a Hark node
// remembers) answers with what it did rather than run it twice. The
// record is deleted once the reply's answer is out to the node (its
// exchange is in the conversation's history by then), so that a center
// stopping as it answers leaves it for the request asked again; one whose
// answer never went out lapses after turnLifetime. The record is kept in
// clear: a result that reveals a secret the household asked for (a
// password recalled from the sealed memory) is never written to it; such
// a call only reads, and runs again when the request is asked again.

// turnPrefix is where the records of the replies under way are kept, by
// node: center/turn/NODE/HASH.
const turnPrefix = "center/turn/"

// turnLifetime bounds how long a request is taken for the same one asked
// again, and so how long the record of what its tools did stays on the
// card after a reply cut short: a node asks again at once, a household
// within minutes of the center coming back, and a quarter of an hour
// covers both; the record is not kept longer than a private speaker
// needs it.
const turnLifetime = 15 * time.Minute

// turnKey is where the record of the reply to text, in conversation of
// node, is kept. Case and spacing do not make another request.
func turnKey(node, conversation, text string) string {
	words := strings.Join(strings.Fields(strings.ToLower(text)), " ")
	sum := sha256.Sum256([]byte(conversation + "\x00" + words))
	return turnPrefix + node + "/" + hex.EncodeToString(sum[:16])
}

// turnRecord is what a reply's tools did, as kept.
type turnRecord struct {
	Node         string    `json:"node"`
	Conversation string    `json:"conversation"`
	At           time.Time `json:"at"` // when the request first came
	Calls        []made    `json:"calls"`
}

// made is one tool call of a reply.
type made struct {
	Name string `json:"name"`
	// Args is the digest of the call's arguments (argsSum). A record kept
	// before calls had one has none: its calls are met by name alone.
	Args string `json:"args,omitempty"`
	// ID is the id a node's tool call was sent with.
	ID string `json:"id,omitempty"`
	// Done says Result is the tool's: a node's tool call that was sent
	// but whose result never came back is not done.
	Done   bool             `json:"done,omitempty"`
	Result command.Response `json:"result"`
}

// ledger is the record of one reply's tool calls; safe for concurrent use.
// A nil ledger keeps nothing.
type ledger struct {
	s   Settings
	key string
	log *slog.Logger

	mu      sync.Mutex
	rec     turnRecord
	again   []bool // the calls of rec that came from the reply before, not yet met again
	written bool   // rec is in the store
}

// openLedger is the ledger of a reply to text in sess, with what a reply
// to the same request did before, if the store has it.
func (s *Server) openLedger(ctx context.Context, sess *session, text string) *ledger {
	l := &ledger{s: s.o.Keys.s, key: turnKey(sess.node, sess.id, text), log: s.log.With("conversation", sess.id),
		rec: turnRecord{Node: sess.node, Conversation: sess.id, At: time.Now()}}
	var rec turnRecord
	ok, err := l.s.Get(ctx, l.key, &rec)
	switch {
	case err != nil:
		l.log.Warn("reading what the tools did for this request before failed; they run again if called", "err", err)
	case ok && time.Since(rec.At) <= turnLifetime && len(rec.Calls) > 0:
		l.rec, l.written = rec, true
		l.again = make([]bool, len(rec.Calls))
		for i := range l.again {
			l.again[i] = true
		}
		l.log.Info("a request asked again: what its tools did is answered from the record", "calls", len(rec.Calls))
	case ok:
		l.written = true // a lapsed record: this reply's replaces it
	}
	return l
}

// before returns, and marks met, the next call of tool name with the
// arguments of digest args that the reply before made and this one has
// not met yet; i is its index.
func (l *ledger) before(name, args string) (m made, i int, ok bool) {
	if l == nil {
		return made{}, -1, false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i, left := range l.again {
		c := l.rec.Calls[i]
		if left && c.Name == name && (c.Args == "" || c.Args == args) {
			l.again[i] = false
			return l.rec.Calls[i], i, true
		}
	}
	return made{}, -1, false
}

// sent records a node's tool call about to be sent, with the digest of
// its arguments, and returns its index.
func (l *ledger) sent(ctx context.Context, name, args, id string) int {
	if l == nil {
		return -1
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rec.Calls = append(l.rec.Calls, made{Name: name, Args: args, ID: id})
	l.again = append(l.again, false)
	l.write(ctx)
	return len(l.rec.Calls) - 1
}

// done records the result of call i, one sent or met again.
func (l *ledger) done(ctx context.Context, i int, r command.Response) {
	if l == nil || i < 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rec.Calls[i].Done, l.rec.Calls[i].Result = true, r
	l.write(ctx)
}

// ran records a call of tool name the center made itself, with the digest
// of its arguments, and its result.
func (l *ledger) ran(ctx context.Context, name, args string, r command.Response) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.rec.Calls = append(l.rec.Calls, made{Name: name, Args: args, Done: true, Result: r})
	l.again = append(l.again, false)
	l.write(ctx)
}

// write keeps the record; a call's result is kept even when the reply is
// being stopped. Failing, the reply goes on: only a request asked again
// would find less. The caller holds l.mu.
func (l *ledger) write(ctx context.Context) {
	if err := l.s.Set(context.WithoutCancel(ctx), l.key, l.rec); err != nil {
		l.log.Warn("keeping what a tool did for this request failed; asked again, it runs again", "err", err)
		return
	}
	l.written = true
}

// end deletes the record: the reply's answer is out, and the same words
// are a new request from now on.
func (l *ledger) end(ctx context.Context) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.written {
		return
	}
	if err := l.s.Delete(context.WithoutCancel(ctx), l.key); err != nil {
		l.log.Warn("deleting the record of an ended reply's tools failed; it lapses", "err", err)
		return
	}
	l.written = false
}

// recorded is c with its runs recorded in the ledger of the reply that
// makes them, and answered from it when the reply before made them.
func recorded(c *command.Command) *command.Command {
	do := c.Run
	if do == nil {
		return c
	}
	k := *c
	k.Run = func(ctx context.Context, call command.Call) (command.Response, error) {
		tr, _ := ctx.Value(runKey{}).(*run)
		if tr == nil {
			return do(ctx, call)
		}
		args := argsSum(call.Args)
		if m, _, ok := tr.led.before(k.Name, args); ok && m.Done {
			tr.led.log.Info("a tool call answered from the record of the request's reply before", "tool", k.Name)
			return m.Result, nil
		}
		tr.begun() // a tool acts: the reply stopped from now on is cut short
		r, err := do(ctx, call)
		if err == nil && len(r.Reveal) == 0 {
			tr.led.ran(ctx, k.Name, args, r)
		}
		return r, err
	}
	return &k
}

// argsSum is the digest of a call's arguments, taken over their canonical
// JSON (keys in order, no spacing, every number a JSON number), so that
// the same arguments written otherwise are the same call. The digest, not
// the arguments, is kept: a fact to remember may be a secret.
func argsSum(args any) string {
	b, err := json.Marshal(args)
	if err == nil {
		var v any
		if err = json.Unmarshal(b, &v); err == nil {
			if v == nil {
				v = map[string]any{} // no arguments are none
			}
			b, err = json.Marshal(v)
		}
	}
	if err != nil { // not JSON: its Go form, which orders a map's keys too
		b = fmt.Appendf(nil, "%#v", args)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// lapseTurns deletes the records of replies that came more than
// turnLifetime before now, and reports how many it deleted. A record it
// cannot read is left as it is, and the first failure returned once the
// others are gone over.
func lapseTurns(ctx context.Context, s Settings, now time.Time) (int, error) {
	keys, err := s.Keys(ctx, turnPrefix)
	if err != nil {
		return 0, fmt.Errorf("center: list the records of replies: %w", err)
	}
	n := 0
	var failed error
	for _, key := range keys {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		var rec turnRecord
		ok, err := s.Get(ctx, key, &rec)
		if err == nil && ok && now.Sub(rec.At) > turnLifetime {
			if err = s.Delete(ctx, key); err == nil {
				n++
			}
		}
		if err != nil && failed == nil {
			failed = fmt.Errorf("center: lapse the record of a reply: %w", err)
		}
	}
	return n, failed
}

// deleteTurns deletes the records of node's replies.
func deleteTurns(ctx context.Context, s Settings, node string) error {
	keys, err := s.Keys(ctx, turnPrefix+node+"/")
	if err != nil {
		return fmt.Errorf("list the records of its replies: %w", err)
	}
	for _, key := range keys {
		if err := s.Delete(ctx, key); err != nil {
			return fmt.Errorf("delete the record of a reply: %w", err)
		}
	}
	return nil
}
