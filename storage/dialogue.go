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
	User         string    `json:"user"`
	Assistant    string    `json:"assistant"`
	Model        string    `json:"model,omitempty"`
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
// (kept from the older keys' form).
func (d *Dialogue) key(txn *badger.Txn, at time.Time) []byte {
	o := &d.db.order
	if !o.loaded {
		it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: []byte(dialoguePrefix)})
		it.Seek(binary.BigEndian.AppendUint64([]byte(dialoguePrefix), ^uint64(0)))
		if it.Valid() {
			if k := it.Item().Key(); len(k) >= len(dialoguePrefix)+8 {
				o.last = binary.BigEndian.Uint64(k[len(dialoguePrefix):])
			}
		}
		it.Close()
		o.loaded = true
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
	return binary.BigEndian.AppendUint32(k, d.db.seq.Add(1))
}

// Append stores e. It returns once e is on disk.
func (d *Dialogue) Append(ctx context.Context, e Exchange) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("storage: append exchange: %w", err)
	}
	v, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("storage: append exchange: %w", err)
	}
	if err := d.db.res.check(); err != nil {
		return fmt.Errorf("storage: append exchange: %w", err)
	}
	o := &d.db.order
	o.mu.Lock()
	defer o.mu.Unlock()
	last, first := o.last, o.first
	err = d.db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(d.key(txn, e.At), v) })
	if err != nil {
		if o.loaded {
			o.last, o.first = last, first // the number was not used
		}
		return fmt.Errorf("storage: append exchange: %w", err)
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
	if err := d.db.res.check(); err != nil {
		return 0, fmt.Errorf("storage: restamp exchanges: %w", err)
	}
	n := 0
	err := d.db.bdb.Update(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(dialoguePrefix)})
		defer it.Close()
		type kv struct{ k, v []byte }
		var moved []kv
		for it.Seek(binary.BigEndian.AppendUint64([]byte(dialoguePrefix), o.first)); it.Valid(); it.Next() {
			if err := ctx.Err(); err != nil {
				return err
			}
			var e Exchange
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
				return fmt.Errorf("exchange %x: %w", it.Item().Key(), err)
			}
			e.At = e.At.Add(step)
			v, err := json.Marshal(e)
			if err != nil {
				return err
			}
			moved = append(moved, kv{it.Item().KeyCopy(nil), v})
		}
		for _, m := range moved {
			if err := txn.Set(m.k, m.v); err != nil {
				return err
			}
		}
		n = len(moved)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("storage: restamp exchanges: %w", err)
	}
	return n, nil
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
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("storage: read dialogue: %w", err)
	}
	var out []Exchange
	err := d.db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Reverse: true, Prefix: []byte(dialoguePrefix)})
		defer it.Close()
		seek := binary.BigEndian.AppendUint64([]byte(dialoguePrefix), ^uint64(0))
		for it.Seek(seek); it.Valid() && len(out) < limit; it.Next() {
			var e Exchange
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
				return fmt.Errorf("exchange %x: %w", it.Item().Key(), err)
			}
			if e.At.Before(since) {
				break // the newest exchanges come first, in the order stored
			}
			if conversation == "" || e.Conversation == conversation {
				out = append(out, e)
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("storage: read dialogue: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
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
	err := d.db.scan(ctx, "read dialogue", dialoguePrefix, func(_ string, v []byte) error {
		var e Exchange
		if err := json.Unmarshal(v, &e); err != nil {
			return err
		}
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
	err := d.db.scan(ctx, "delete conversation", dialoguePrefix, func(key string, v []byte) error {
		var e Exchange
		if err := json.Unmarshal(v, &e); err != nil {
			return err
		}
		if e.Conversation == id {
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	err = d.db.scan(ctx, "delete conversation", diaryPrefix, func(key string, _ []byte) error {
		if strings.HasSuffix(key, "/"+id) {
			keys = append(keys, key)
		}
		return nil
	})
	if err != nil || len(keys) == 0 {
		return 0, err
	}
	if err := d.db.res.check(); err != nil {
		return 0, fmt.Errorf("storage: delete conversation: %w", err)
	}
	wb := d.db.bdb.NewWriteBatch()
	defer wb.Cancel()
	for _, k := range keys {
		if err := wb.Delete([]byte(k)); err != nil {
			return 0, fmt.Errorf("storage: delete conversation: %w", err)
		}
	}
	if err := wb.Flush(); err != nil {
		return 0, fmt.Errorf("storage: delete conversation: %w", err)
	}
	n := 0
	for _, k := range keys {
		if strings.HasPrefix(k, dialoguePrefix) {
			n++
		}
	}
	return n, nil
}
