package storage

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// Exchange is one turn of dialogue: what the user said and what Hark said.
// Its text is stored as given; the reply engine redacts before it stores.
type Exchange struct {
	At           time.Time `json:"at"`
	Conversation string    `json:"conversation"`
	// Client is who asked ("microphone", a hark ask session, a node): the
	// conversation is theirs. Empty in exchanges from before it was kept.
	Client    string `json:"client,omitempty"`
	User      string `json:"user"`
	Assistant string `json:"assistant"`
	Model     string `json:"model,omitempty"`
	// Server is the model server that answered (a fallback chain's
	// endpoint), when a model did.
	Server string `json:"server,omitempty"`
	// Failed marks an exchange whose reply was an apology for a failure; it is
	// kept for the record but not offered to the model as history.
	Failed bool `json:"failed,omitempty"`
	// Closed marks the last exchange of a conversation the user ended
	// ("stop"); the next one starts afresh.
	Closed bool `json:"closed,omitempty"`
	// Tools are the tool calls made while answering, in order, so that a
	// follow-up can reuse their results.
	Tools []ToolRecord `json:"tools,omitempty"`
	// Last is the asker's last command call when the exchange was stored,
	// while a follow-up may still change it or answer its question: a
	// later process continuing the conversation takes it up. Nil for none.
	Last *LastCall `json:"last_call,omitempty"`
}

// LastCall is a command call a follow-up may change ("make it 10
// minutes") or that waits for the answer to its question ("For how
// long?"): the command, its arguments and its result's data as JSON
// carries them, when it was made, and the language of the turn that made
// it ("de"; empty in calls from before it was kept).
type LastCall struct {
	Command   string         `json:"command"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Data      map[string]any `json:"data,omitempty"`
	At        time.Time      `json:"at"`
	Language  string         `json:"language,omitempty"`
}

// ToolRecord is one tool call and what it returned, as sent to the model.
type ToolRecord struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
	Result    string         `json:"result"`
	// Failed is set when the tool reported failure; the next turn offers
	// the tool again so the user can supply what was missing.
	Failed bool `json:"failed,omitempty"`
}

// Dialogue is the record of exchanges, oldest to newest. Their order is
// the order they were stored in, not their wall-clock times: a clock that
// booted behind, or was stepped back, never files a new exchange before
// old ones.
type Dialogue struct{ db *DB }

// dialogueOrder hands out the exchanges' order numbers: one more than the
// last stored, and never below the wall clock's nanoseconds, so keys stay
// the times that older Hark versions wrote while the clock is right.
type dialogueOrder struct {
	mu     sync.Mutex
	loaded bool
	last   uint64 // the newest exchange's order
	first  uint64 // the first order handed out since the store opened; 0 for none
}

const dialoguePrefix = "dialogue/"

// Dialogue returns the dialogue record of db.
func (db *DB) Dialogue() *Dialogue { return &Dialogue{db: db} }

// key is the next exchange's: its order number, then a sequence number
// (kept from the older keys' form). o.mu is held.
func (d *Dialogue) key(ctx context.Context, at time.Time) ([]byte, error) {
	o := &d.db.order
	if !o.loaded {
		last, err := d.newest(ctx)
		if err != nil {
			return nil, err
		}
		o.last, o.loaded = last, true
	}
	n := o.last + 1
	if ns := at.UnixNano(); ns > 0 && uint64(ns) > n {
		n = uint64(ns)
	}
	o.last = n
	if o.first == 0 {
		o.first = n
	}
	k := make([]byte, 0, len(dialoguePrefix)+12)
	k = append(k, dialoguePrefix...)
	k = binary.BigEndian.AppendUint64(k, n)
	return binary.BigEndian.AppendUint32(k, d.db.seq.Add(1)), nil
}

// newest is the order of the newest exchange, stored or held.
func (d *Dialogue) newest(ctx context.Context) (uint64, error) {
	last, err := view(d.db, ctx, "read dialogue", func(txn *badger.Txn) (uint64, error) {
		it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: []byte(dialoguePrefix)})
		defer it.Close()
		it.Seek(binary.BigEndian.AppendUint64([]byte(dialoguePrefix), ^uint64(0)))
		if it.Valid() {
			if k := it.Item().Key(); len(k) >= len(dialoguePrefix)+8 {
				return binary.BigEndian.Uint64(k[len(dialoguePrefix):]), nil
			}
		}
		return 0, nil
	})
	if err != nil {
		return 0, err
	}
	d.db.mu.Lock()
	held := d.db.held.under(dialoguePrefix)
	d.db.mu.Unlock()
	for _, k := range held {
		if len(k) >= len(dialoguePrefix)+8 {
			last = max(last, binary.BigEndian.Uint64([]byte(k[len(dialoguePrefix):])))
		}
	}
	return last, nil
}

// Append stores e. It returns once e is on disk, or held in memory while
// the card cannot take it.
func (d *Dialogue) Append(ctx context.Context, e Exchange) error {
	v, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("storage: append exchange: %w", err)
	}
	o := &d.db.order
	o.mu.Lock()
	defer o.mu.Unlock()
	last, first := o.last, o.first
	k, err := d.key(ctx, e.At)
	if err != nil {
		return fmt.Errorf("storage: append exchange: %w", err)
	}
	if err := d.db.apply(ctx, "append exchange", []kv{{key: string(k), value: v}}, false); err != nil {
		o.last, o.first = last, first // the number was not used
		return err
	}
	return nil
}

// Restamp moves the time of every exchange stored since the store was
// opened by step: the wall clock was stepped (NTP set a clock that booted
// behind), and they were stamped on the clock before the step. It returns
// how many it moved.
func (d *Dialogue) Restamp(ctx context.Context, step time.Duration) (int, error) {
	o := &d.db.order
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.first == 0 || step == 0 {
		return 0, nil
	}
	from := string(binary.BigEndian.AppendUint64([]byte(dialoguePrefix), o.first))
	var moved []kv
	err := records(ctx, d.db, "restamp exchanges", dialoguePrefix, func(key string, e Exchange) error {
		if key < from {
			return nil
		}
		e.At = e.At.Add(step)
		v, err := json.Marshal(e)
		if err != nil {
			return err
		}
		moved = append(moved, kv{key: key, value: v})
		return nil
	})
	if err != nil {
		return 0, err
	}
	if len(moved) == 0 {
		return 0, nil
	}
	if err := d.db.apply(ctx, "restamp exchanges", moved, false); err != nil {
		return 0, err
	}
	return len(moved), nil
}

// Recent returns up to limit of the newest exchanges (in the order they
// were stored) back to the first made before since, oldest first.
func (d *Dialogue) Recent(ctx context.Context, since time.Time, limit int) ([]Exchange, error) {
	return d.recent(ctx, "", since, limit)
}

// RecentIn is Recent for one conversation: up to limit of its newest
// exchanges since a time, oldest first, however many other conversations
// (other speakers of a center) came in between.
func (d *Dialogue) RecentIn(ctx context.Context, conversation string, since time.Time, limit int) ([]Exchange, error) {
	return d.recent(ctx, conversation, since, limit)
}

func (d *Dialogue) recent(ctx context.Context, conversation string, since time.Time, limit int) ([]Exchange, error) {
	d.db.mu.Lock()
	heldKeys := len(d.db.held.under(dialoguePrefix))
	d.db.mu.Unlock()
	// Enough stored ones that those held (newer, or deleted) still leave
	// limit.
	want := limit + heldKeys
	stored, err := view(d.db, ctx, "read dialogue", func(txn *badger.Txn) ([]kv, error) {
		var out []kv
		it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: []byte(dialoguePrefix)})
		defer it.Close()
		seek := binary.BigEndian.AppendUint64([]byte(dialoguePrefix), ^uint64(0))
		n := 0
		for it.Seek(seek); it.Valid() && n < want; it.Next() {
			key := string(it.Item().Key())
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return nil, err
			}
			var e Exchange
			if err := json.Unmarshal(v, &e); err != nil {
				d.db.passOver("read dialogue", key, err)
				continue
			}
			if e.At.Before(since) {
				break // the newest exchanges come first, in the order stored
			}
			if conversation == "" || e.Conversation == conversation {
				out = append(out, kv{key: key, value: v})
				n++
			}
		}
		slices.Reverse(out)
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	var out []Exchange
	for _, c := range d.db.overlay(stored, dialoguePrefix) {
		var e Exchange
		if err := json.Unmarshal(c.value, &e); err != nil {
			d.db.passOver("read dialogue", c.key, err)
			continue
		}
		if e.At.Before(since) {
			out = out[:0] // an older exchange: only those stored after it count
			continue
		}
		if conversation == "" || e.Conversation == conversation {
			out = append(out, e)
		}
	}
	return out[max(0, len(out)-limit):], nil
}

// Conversation is the exchanges of one conversation, oldest first.
type Conversation struct {
	ID        string
	Exchanges []Exchange
}

// Conversations returns the dialogue grouped by conversation, the most
// recently active (in the order stored) first.
func (d *Dialogue) Conversations(ctx context.Context) ([]Conversation, error) {
	var out []Conversation
	at := map[string]int{}
	var latest []int // each conversation's newest exchange, by its place in the store
	n := 0
	err := records(ctx, d.db, "read dialogue", dialoguePrefix, func(_ string, e Exchange) error {
		i, ok := at[e.Conversation]
		if !ok {
			i = len(out)
			at[e.Conversation] = i
			out = append(out, Conversation{ID: e.Conversation})
			latest = append(latest, 0)
		}
		out[i].Exchanges = append(out[i].Exchanges, e)
		latest[i] = n
		n++
		return nil
	})
	if err != nil {
		return nil, err
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return latest[b] - latest[a] })
	sorted := make([]Conversation, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	return sorted, nil
}

// DeleteConversation deletes every exchange of one conversation and its
// diary summary, and returns how many exchanges there were.
func (d *Dialogue) DeleteConversation(ctx context.Context, id string) (int, error) {
	var keys []string
	err := records(ctx, d.db, "delete conversation", dialoguePrefix, func(key string, e Exchange) error {
		if e.Conversation == id {
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	err = d.db.scan(ctx, "delete conversation", diaryPrefix, func(key string, _ []byte) error {
		if of, ok := entryOf(key); ok && of == id {
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil || len(keys) == 0 {
		return 0, err
	}
	cs := make([]kv, len(keys))
	for i, k := range keys {
		cs[i] = kv{key: k, deleted: true}
	}
	if err := d.db.apply(ctx, "delete conversation", cs, false); err != nil {
		return 0, err
	}
	n := 0
	for _, k := range keys {
		if strings.HasPrefix(k, dialoguePrefix) {
			n++
		}
	}
	return n, nil
}
