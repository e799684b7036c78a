package storage

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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

// Dialogue is the record of exchanges, oldest to newest.
type Dialogue struct{ db *DB }

const dialoguePrefix = "dialogue/"

// Dialogue returns the dialogue record of db.
func (db *DB) Dialogue() *Dialogue { return &Dialogue{db: db} }

// key orders exchanges by time; the sequence number keeps two exchanges in
// the same nanosecond apart.
func (d *Dialogue) key(at time.Time) []byte {
	k := make([]byte, 0, len(dialoguePrefix)+12)
	k = append(k, dialoguePrefix...)
	k = binary.BigEndian.AppendUint64(k, uint64(at.UnixNano()))
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
	if err := d.db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(d.key(e.At), v) }); err != nil {
		return fmt.Errorf("storage: append exchange: %w", err)
	}
	return nil
}

// Recent returns up to limit of the newest exchanges made at or after since,
// oldest first.
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
		floor := binary.BigEndian.AppendUint64([]byte(dialoguePrefix), uint64(since.UnixNano()))
		for it.Seek(seek); it.Valid() && len(out) < limit; it.Next() {
			if string(it.Item().Key()[:len(floor)]) < string(floor) {
				break
			}
			var e Exchange
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &e) }); err != nil {
				return fmt.Errorf("exchange %x: %w", it.Item().Key(), err)
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
// recently active first.
func (d *Dialogue) Conversations(ctx context.Context) ([]Conversation, error) {
	var out []Conversation
	at := map[string]int{}
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
		}
		out[i].Exchanges = append(out[i].Exchanges, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b Conversation) int {
		return b.Exchanges[len(b.Exchanges)-1].At.Compare(a.Exchanges[len(a.Exchanges)-1].At)
	})
	return out, nil
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
