package storage

import (
	"encoding/binary"
	"encoding/json"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// TestDialogueOrderIsTheStoreOrder: an exchange made while the clock is
// behind (a board before NTP) is still the newest, found by Recent and
// listed first. Before, exchanges were keyed by wall time: with the clock
// behind the new exchange was filed before the old ones and left out of
// the history, and at 1970 nothing was found at all.
func TestDialogueOrderIsTheStoreOrder(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	d := db.Dialogue()
	then := time.Date(2026, 5, 9, 20, 0, 0, 0, time.UTC)
	d.Append(ctx, Exchange{At: then, Conversation: "yesterday", User: "good night"})
	db.Close()

	db, err = Open(dir, Options{}) // the board restarts, its clock behind
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d = db.Dialogue()
	boot := time.Unix(5, 0).UTC()
	d.Append(ctx, Exchange{At: boot, Conversation: "today", User: "what's the weather"})
	d.Append(ctx, Exchange{At: boot.Add(time.Minute), Conversation: "today", User: "and tomorrow?"})
	got, err := d.Recent(ctx, boot.Add(-24*time.Hour), 10)
	if err != nil || len(got) != 3 || got[2].User != "and tomorrow?" || got[1].User != "what's the weather" || got[0].User != "good night" {
		t.Fatalf("recent: %+v, %v; want the two new exchanges newest", got, err)
	}
	convs, _ := d.Conversations(ctx)
	if len(convs) != 2 || convs[0].ID != "today" {
		t.Errorf("conversations %+v, want today's first", convs)
	}

	// NTP steps the clock 56 years forward: this start's exchanges move
	// with it, the earlier one stays.
	step := then.Add(12 * time.Hour).Sub(boot.Add(2 * time.Minute))
	if n, err := d.Restamp(ctx, step); n != 2 || err != nil {
		t.Fatalf("restamp: %d, %v; want 2", n, err)
	}
	got, _ = d.Recent(ctx, then, 10)
	if len(got) != 3 || !got[0].At.Equal(then) || !got[2].At.Equal(boot.Add(time.Minute).Add(step)) {
		t.Errorf("after the step: %+v", got)
	}
	now := boot.Add(2 * time.Minute).Add(step)
	d.Append(ctx, Exchange{At: now, Conversation: "today", User: "thanks"})
	if got, _ := d.Recent(ctx, now.Add(-time.Hour), 1); len(got) != 1 || got[0].User != "thanks" {
		t.Errorf("newest after the step: %+v", got)
	}
}

// TestDialogueKeysStayCompatible: on a store written by an older Hark
// (keys are the wall clock's nanoseconds), new exchanges come after the
// old ones, and while the clock is right their keys are its nanoseconds.
func TestDialogueKeysStayCompatible(t *testing.T) {
	db, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	old := time.Date(2026, 5, 9, 20, 0, 0, 0, time.UTC)
	v, _ := json.Marshal(Exchange{At: old, Conversation: "c", User: "old"})
	k := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64([]byte(dialoguePrefix), uint64(old.UnixNano())), 7)
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(k, v) }); err != nil {
		t.Fatal(err)
	}
	d := db.Dialogue()
	now := old.Add(time.Hour)
	d.Append(t.Context(), Exchange{At: now, Conversation: "c", User: "new"})
	d.Append(t.Context(), Exchange{At: time.Unix(5, 0), Conversation: "c", User: "behind"})
	var keys []uint64
	db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(dialoguePrefix)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			keys = append(keys, binary.BigEndian.Uint64(it.Item().Key()[len(dialoguePrefix):]))
		}
		return nil
	})
	if len(keys) != 3 || keys[1] != uint64(now.UnixNano()) || keys[2] != keys[1]+1 {
		t.Errorf("keys %v: want the old one, then the wall clock's nanoseconds, then one more", keys)
	}
}
