package storage

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
)

// DiaryEntry is a summary of one finished conversation.
type DiaryEntry struct {
	Conversation string    `json:"conversation"`
	Date         time.Time `json:"date"` // when the conversation started
	Summary      string    `json:"summary"`
	Keywords     []string  `json:"keywords,omitempty"`
	// Through is the time of the last exchange the summary covers: a
	// conversation that went on after it (reopened) is summarised again.
	// Zero in the entries of versions before it was kept, which are
	// stored without it.
	Through time.Time `json:"through,omitzero"`
}

// Diary is the record of conversation summaries, for recall by keyword and
// time range.
type Diary struct{ db *DB }

// Diary returns the diary of db.
func (db *DB) Diary() *Diary { return &Diary{db: db} }

const diaryPrefix = "diary/"

func diaryKey(e DiaryEntry) string {
	k := binary.BigEndian.AppendUint64([]byte(diaryPrefix), uint64(e.Date.UnixNano()))
	return string(k) + "/" + e.Conversation
}

// Add stores an entry, replacing one for the same conversation and date.
// The replacement is one write: the old entry stays whole until the new
// one is stored.
func (d *Diary) Add(ctx context.Context, e DiaryEntry) error {
	if e.Conversation == "" {
		return fmt.Errorf("storage: write diary: no conversation")
	}
	return d.db.put(ctx, "write diary", diaryKey(e), e)
}

// entryOf is the conversation a diary key is the entry of: what follows
// its date.
func entryOf(key string) (string, bool) {
	n := len(diaryPrefix) + 8
	if len(key) <= n || !strings.HasPrefix(key, diaryPrefix) || key[n] != '/' {
		return "", false
	}
	return key[n+1:], true
}

// Has reports whether the conversation has an entry.
func (d *Diary) Has(ctx context.Context, conversation string) (bool, error) {
	missing, err := d.Missing(ctx, []string{conversation})
	return err == nil && len(missing) == 0, err
}

// Missing returns those of conversations that have no entry, in the order
// given and each once. It reads the diary once however many are asked
// about.
func (d *Diary) Missing(ctx context.Context, conversations []string) ([]string, error) {
	if len(conversations) == 0 {
		return nil, nil
	}
	written := make(map[string]bool, len(conversations))
	for _, c := range conversations {
		written[c] = false
	}
	err := d.db.scan(ctx, "read diary", diaryPrefix, func(key string, _ []byte) error {
		if c, ok := entryOf(key); ok {
			if _, asked := written[c]; asked {
				written[c] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range conversations {
		if !written[c] {
			out = append(out, c)
			written[c] = true // once
		}
	}
	return out, nil
}

// Entries returns the entries of those of conversations that have one,
// by conversation, reading the diary once however many are asked about.
// An entry that does not decode is passed over as Search does, but still
// counted: it is returned with only its conversation and date (from its
// key), so that a rewrite replaces it rather than adding a second one.
func (d *Diary) Entries(ctx context.Context, conversations []string) (map[string]DiaryEntry, error) {
	out := map[string]DiaryEntry{}
	if len(conversations) == 0 {
		return out, nil
	}
	asked := make(map[string]bool, len(conversations))
	for _, c := range conversations {
		asked[c] = true
	}
	err := d.db.scan(ctx, "read diary", diaryPrefix, func(key string, b []byte) error {
		c, ok := entryOf(key)
		if !ok || !asked[c] {
			return nil
		}
		var e DiaryEntry
		if err := json.Unmarshal(b, &e); err != nil {
			d.db.passOver("read diary", key, err)
			ns := binary.BigEndian.Uint64([]byte(key[len(diaryPrefix):]))
			e = DiaryEntry{Conversation: c, Date: time.Unix(0, int64(ns))}
		}
		out[c] = e // the latest dated, should there be two
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Search returns up to limit entries dated within [from, to] (either may
// be zero for no bound) that share words with keywords, best match first
// and newest first among equals. With no keywords it returns the newest
// entries in the range.
func (d *Diary) Search(ctx context.Context, keywords []string, from, to time.Time, limit int) ([]DiaryEntry, error) {
	want := ContentWords(strings.Join(keywords, " "))
	var hits []hit[DiaryEntry]
	err := records(ctx, d.db, "read diary", diaryPrefix, func(_ string, e DiaryEntry) error {
		if !from.IsZero() && e.Date.Before(from) || !to.IsZero() && e.Date.After(to) {
			return nil
		}
		have := ContentWords(e.Summary + " " + strings.Join(e.Keywords, " "))
		n := 0
		for w := range want {
			if have[w] {
				n++
			}
		}
		if n > 0 || len(want) == 0 {
			hits = append(hits, hit[DiaryEntry]{e, n, e.Date})
		}
		return nil
	})
	return best(hits, limit), err
}

// hit is a search result with its score (matched words) and its time.
type hit[T any] struct {
	v  T
	n  int
	at time.Time
}

// best returns up to limit results, the highest scores first and, among
// equal scores, the newest.
func best[T any](hits []hit[T], limit int) []T {
	slices.SortStableFunc(hits, func(a, b hit[T]) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return b.at.Compare(a.at)
	})
	var out []T
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.v)
	}
	return out
}
