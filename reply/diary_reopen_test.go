package reply

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/storage"
)

// echoDiary makes f's model answer diary calls with what it was given to
// summarise, so that an entry shows what went into it; the other calls
// are f's script's. While fail is set, diary calls fail as a model server
// that restarts does.
func echoDiary(f *fixture) (fail *atomic.Bool) {
	fail = &atomic.Bool{}
	f.srv.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
		if kindOf(r) != kindDiary {
			return f.model.respond(r)
		}
		if fail.Load() {
			return ollamatest.Reply{Fault: ollamatest.ServerError, Error: "llama runner process has terminated"}
		}
		b, _ := json.Marshal(map[string]any{"summary": r.Messages[len(r.Messages)-1].Content, "keywords": []string{"chat"}})
		return ollamatest.Reply{Content: string(b)}
	})
	return fail
}

// entryOf is conversation id's diary entry; ok is false when it has none.
func entryOf(t *testing.T, f *fixture, id string) (storage.DiaryEntry, bool) {
	t.Helper()
	got, err := f.db.Diary().Entries(t.Context(), []string{id})
	if err != nil {
		t.Fatal(err)
	}
	e, ok := got[id]
	return e, ok
}

// found reports whether recall's diary search for word finds conversation
// id, and that only once.
func found(t *testing.T, f *fixture, word, id string) bool {
	t.Helper()
	got, err := f.db.Diary().Search(t.Context(), []string{word}, time.Time{}, time.Time{}, 10)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range got {
		if e.Conversation == id {
			n++
		}
	}
	if n > 1 {
		t.Errorf("conversation %s has %d diary entries, want one", id, n)
	}
	return n == 1
}

// continueIn asks in the microphone's conversation id, however long ago
// it was (a follow-up that names it, as hark ask --continue does), and
// waits for the diary rounds that follow.
func continueIn(t *testing.T, f *fixture, id, text string) {
	t.Helper()
	if _, err := f.eng.Reply(t.Context(), Query{Text: text, Conversation: id}, func(string) {}); err != nil {
		t.Fatal(err)
	}
	f.eng.wg.Wait()
}

// A conversation whose entry was written goes on: once it is over again,
// its entry is rewritten to cover what was said since, under the same
// date, so that recall finds it; the model is given the old summary and
// the exchanges it does not cover.
func TestDiaryEntryOfAReopenedConversation(t *testing.T) {
	c := &settable{now: clock}
	f := newFixture(t, smallModel, Options{PlannerOff: true, Now: c.Now})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Noted."})
	echoDiary(f)
	first, _, err := f.ask(t, "my sister Clara arrives from Lisbon on Friday")
	if err != nil {
		t.Fatal(err)
	}
	c.pass(10 * time.Minute)
	f.ask(t, "what time is it") // a new conversation: the first one's entry is written
	f.eng.wg.Wait()
	before, ok := entryOf(t, f, first.Conversation)
	if !ok {
		t.Fatal("no entry when the conversation ended")
	}
	c.pass(time.Hour)
	continueIn(t, f, first.Conversation, "she brings her dog Rex")
	c.pass(10 * time.Minute)
	f.ask(t, "tell me a joke") // the reopened conversation ends again
	f.eng.wg.Wait()

	if !found(t, f, "rex", first.Conversation) {
		e, _ := entryOf(t, f, first.Conversation)
		t.Fatalf("recall does not find the dog Rex, said after the entry was written; the entry is %+v", e)
	}
	after, _ := entryOf(t, f, first.Conversation)
	if !after.Date.Equal(before.Date) || !after.Date.Equal(clock) {
		t.Errorf("the rewritten entry is dated %v, want the conversation's start %v", after.Date, clock)
	}
	if want := clock.Add(70 * time.Minute); !after.Through.Equal(want) {
		t.Errorf("the rewritten entry covers through %v, want the last exchange %v", after.Through, want)
	}
	if !strings.Contains(after.Summary, before.Summary) || strings.Count(after.Summary, "Clara arrives") != 1 {
		t.Errorf("the model was given %q; want the old summary, once, and what it does not cover", after.Summary)
	}
	n := diaryCalls(f)
	c.pass(time.Hour)
	f.eng.catchUp()
	f.eng.wg.Wait()
	if diaryCalls(f) != n {
		t.Errorf("%d diary calls after the rewrite, want none: the entry is up to date", diaryCalls(f)-n)
	}
}

// The model fails to rewrite a reopened conversation's entry: the old
// entry stays as it was, and the rewrite is tried again later.
func TestDiaryEntryKeptWhenTheRewriteFails(t *testing.T) {
	c := &settable{now: clock}
	f := newFixture(t, smallModel, Options{PlannerOff: true, Now: c.Now})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Noted."})
	fail := echoDiary(f)
	first, _, err := f.ask(t, "my sister Clara arrives from Lisbon on Friday")
	if err != nil {
		t.Fatal(err)
	}
	c.pass(10 * time.Minute)
	f.ask(t, "what time is it")
	f.eng.wg.Wait()
	before, ok := entryOf(t, f, first.Conversation)
	if !ok {
		t.Fatal("no entry when the conversation ended")
	}
	c.pass(time.Hour)
	continueIn(t, f, first.Conversation, "she brings her dog Rex")
	fail.Store(true)
	c.pass(10 * time.Minute)
	f.ask(t, "tell me a joke")
	f.eng.wg.Wait()
	n := diaryCalls(f)
	if after, ok := entryOf(t, f, first.Conversation); !ok || after.Summary != before.Summary || !after.Date.Equal(before.Date) || !after.Through.Equal(before.Through) {
		t.Fatalf("after a failed rewrite the entry is %+v (%v), want it as it was: %+v", after, ok, before)
	}
	if !found(t, f, "clara", first.Conversation) {
		t.Error("recall lost the conversation when the rewrite failed")
	}

	fail.Store(false)
	c.pass(2 * time.Minute) // past the retry
	f.ask(t, "and another")
	f.eng.wg.Wait()
	if diaryCalls(f) == n || !found(t, f, "rex", first.Conversation) {
		t.Errorf("after %d more diary calls recall does not find the dog Rex: the rewrite was not tried again", diaryCalls(f)-n)
	}
}

// A center restarts, and a node reopens a lapsed conversation id whose
// entry its Diarist had written: once the conversation lapses again, the
// new Diarist rewrites the entry with what was said after the restart.
func TestDiaristRewritesAReopenedNodeConversation(t *testing.T) {
	c := &settable{now: clock}
	f := newFixture(t, smallModel, Options{PlannerOff: true, Now: c.Now})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Noted."})
	echoDiary(f)
	kitchen := nodeEngine(t, f, "kitchen-1")
	askNode(t, f, kitchen, "my sister Clara arrives from Lisbon on Friday")
	kitchen.Close()
	c.pass(10 * time.Minute)
	f.eng.catchUp()
	f.eng.wg.Wait()
	before, ok := entryOf(t, f, "kitchen-1")
	if !ok {
		t.Fatal("no entry once the node's conversation lapsed")
	}

	f.eng.Close() // the center stops
	c.pass(time.Hour)
	o := f.eng.o
	diarist, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(diarist.Close)
	o.Conversation, o.Diarist = "kitchen-1", diarist
	kitchen, err = New(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kitchen.Reply(t.Context(), Query{Text: "she brings her dog Rex", Client: "kitchen"}, func(string) {}); err != nil {
		t.Fatal(err)
	}
	kitchen.Close()
	c.pass(10 * time.Minute)
	diarist.catchUp() // Maintain's tick
	diarist.wg.Wait()

	if !found(t, f, "rex", "kitchen-1") {
		e, _ := entryOf(t, f, "kitchen-1")
		t.Fatalf("recall does not find the dog Rex, said in the reopened conversation; the entry is %+v", e)
	}
	if after, _ := entryOf(t, f, "kitchen-1"); !after.Date.Equal(before.Date) {
		t.Errorf("the rewritten entry is dated %v, want %v", after.Date, before.Date)
	}
}

// After an upgrade the store holds entries written without the exchange
// they cover. Each is taken to cover its conversation up to the first
// lapse after its date (entries were written once a conversation lapsed):
// only those of conversations that went on after that, or whose start is
// out of sight, are rewritten; the others are left as they are.
func TestDiaryOldEntriesAfterAnUpgrade(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	echoDiary(f)
	day := clock.AddDate(0, 0, -1)
	conv := func(id string, at ...time.Time) storage.DiaryEntry {
		for i, a := range at {
			had(t, f, id, a, "item "+id+" "+string(rune('a'+i)))
		}
		e := storage.DiaryEntry{Conversation: id, Date: at[0], Summary: "About " + id + ".", Keywords: []string{id}}
		if err := f.db.Diary().Add(t.Context(), e); err != nil { // as an older version stored it
			t.Fatal(err)
		}
		return e
	}
	conv("lastmonth", clock.AddDate(0, -1, 0)) // stored first: the dialogue is in the order stored
	kept := []storage.DiaryEntry{
		conv("monday", day.Add(-24*time.Hour), day.Add(-24*time.Hour+time.Minute)),
		conv("morning", day, day.Add(2*time.Minute), day.Add(4*time.Minute)),
	}
	conv("reopened", day.Add(time.Hour), day.Add(time.Hour+time.Minute), day.Add(3*time.Hour))
	had(t, f, "lastmonth", day.Add(5*time.Hour), "item lastmonth again")
	if err := f.eng.CatchUp(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := diaryCalls(f); n != 2 {
		t.Errorf("%d diary calls after the upgrade, want 2: the two conversations that went on", n)
	}
	for _, want := range kept {
		if got, _ := entryOf(t, f, want.Conversation); got.Summary != want.Summary || !got.Through.IsZero() {
			t.Errorf("the entry of %s, which covers its conversation, became %+v", want.Conversation, got)
		}
	}
	for _, c := range []struct{ id, word string }{{"reopened", "c"}, {"lastmonth", "again"}} {
		got, _ := entryOf(t, f, c.id)
		if !strings.Contains(got.Summary, "item "+c.id+" "+c.word) || got.Through.IsZero() {
			t.Errorf("the entry of %s, which went on, is %+v; want it to cover what followed", c.id, got)
		}
	}
	n := diaryCalls(f)
	if err := f.eng.CatchUp(t.Context()); err != nil || diaryCalls(f) != n {
		t.Errorf("CatchUp again: %v after %d more diary calls; want none", err, diaryCalls(f)-n)
	}
}
