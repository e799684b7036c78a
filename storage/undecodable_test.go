package storage

import (
	"errors"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

// tear writes, with the store closed, a record under prefix that does not
// decode, just after the first one there: a bit flipped on the card, or a
// record a newer build wrote before its update was rolled back.
func tear(t *testing.T, dir, prefix string) {
	t.Helper()
	bdb, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		t.Fatal(err)
	}
	defer bdb.Close()
	err = bdb.Update(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefix)})
		it.Rewind()
		if !it.Valid() {
			it.Close()
			return errors.New("nothing stored under " + prefix)
		}
		key := append(it.Item().KeyCopy(nil), 0)
		it.Close()
		return txn.Set(key, []byte(`{"at":"2026-11-2`))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// One record that does not decode hides none of the others: the
// household's alarms, facts, diary and conversations still read.
func TestOneBadRecordHidesNoOther(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	ctx := t.Context()
	base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for i, text := range []string{"My sister's birthday is on March 3rd", "The spare key is under the blue flower pot"} {
		if _, err := db.Facts().Add(ctx, text, base.Add(time.Duration(i)*time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range []string{"a", "b"} {
		if err := db.Schedule().Put(ctx, Item{ID: id, Kind: Timer, Name: id, Created: base, Due: base.Add(time.Duration(i+1) * time.Minute), Duration: time.Minute, State: Pending}); err != nil {
			t.Fatal(err)
		}
	}
	for i, id := range []string{"a@1", "b@2"} {
		if err := db.Missed().Put(ctx, MissedAlert{ID: id, Item: Item{ID: id[:1], Kind: Timer, Rang: base.Add(time.Duration(i) * time.Minute)}}); err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range []string{"c1", "c2"} {
		if err := db.Diary().Add(ctx, DiaryEntry{Conversation: c, Date: base.Add(time.Duration(i) * time.Hour), Summary: "talked about the garden " + c}); err != nil {
			t.Fatal(err)
		}
		if err := db.Dialogue().Append(ctx, Exchange{At: base.Add(time.Duration(i) * time.Minute), Conversation: c, User: "q " + c, Assistant: "a"}); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	for _, prefix := range []string{factPrefix, schedulePrefix, missedPrefix, diaryPrefix, dialoguePrefix} {
		tear(t, dir, prefix)
	}
	db = open(t, dir)
	defer db.Close()

	if got, err := db.Facts().Search(ctx, "where is the spare key?", 5); err != nil || len(got) == 0 || got[0].Text != "The spare key is under the blue flower pot" {
		t.Errorf("facts searched for the key: %+v, %v", got, err)
	}
	if got, err := db.Schedule().List(ctx); err != nil || len(got) != 2 {
		t.Errorf("schedule: %+v, %v; want the two timers", got, err)
	}
	if got, err := db.Missed().List(ctx); err != nil || len(got) != 2 {
		t.Errorf("missed alerts: %+v, %v; want both", got, err)
	}
	if got, err := db.Diary().Search(ctx, []string{"garden"}, time.Time{}, time.Time{}, 5); err != nil || len(got) != 2 {
		t.Errorf("diary: %+v, %v; want both entries", got, err)
	}
	if got, err := db.Dialogue().Recent(ctx, base, 10); err != nil || len(got) != 2 {
		t.Errorf("recent dialogue: %+v, %v; want both exchanges", got, err)
	}
	if got, err := db.Dialogue().Conversations(ctx); err != nil || len(got) != 2 {
		t.Errorf("conversations: %+v, %v; want both", got, err)
	}
	if n, err := db.Dialogue().DeleteConversation(ctx, "c1"); err != nil || n != 1 {
		t.Errorf("deleting a conversation: %d, %v; want its one exchange", n, err)
	}
	if n, err := db.Dialogue().Restamp(ctx, time.Hour); err != nil {
		t.Errorf("restamp: %d, %v", n, err)
	}
}

// A write that comes after Close fails and names why; it does not bring
// the daemon down.
func TestWriteAfterCloseFails(t *testing.T) {
	db := open(t, t.TempDir())
	db.Close()
	if err := db.Settings().Set(t.Context(), "volume", 5); !errors.Is(err, ErrClosed) {
		t.Errorf("a write after Close: %v; want ErrClosed", err)
	}
	if err := db.Schedule().Put(t.Context(), Item{ID: "a", Kind: Timer, State: Pending}); !errors.Is(err, ErrClosed) {
		t.Errorf("a schedule write after Close: %v; want ErrClosed", err)
	}
}
