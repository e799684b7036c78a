package reply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/storage"
)

// settable is a clock the test moves on; the engine's background work
// may read it meanwhile.
type settable struct {
	mu  sync.Mutex
	now time.Time
}

func (c *settable) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *settable) pass(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// diaryCalls counts the diary calls the model server saw.
func diaryCalls(f *fixture) int {
	n := 0
	for _, c := range f.srv.Chats() {
		if kindOf(c) == kindDiary {
			n++
		}
	}
	return n
}

// written reports whether conversation id has a diary entry.
func written(t *testing.T, f *fixture, id string) bool {
	t.Helper()
	missing, err := f.db.Diary().Missing(t.Context(), []string{id})
	if err != nil {
		t.Fatal(err)
	}
	return len(missing) == 0
}

// had stores an exchange of conversation id at a time, as a process
// before this one did.
func had(t *testing.T, f *fixture, id string, at time.Time, user string) {
	t.Helper()
	x := storage.Exchange{At: at, Conversation: id, Client: Microphone, User: user, Assistant: "Noted."}
	if err := f.db.Dialogue().Append(t.Context(), x); err != nil {
		t.Fatal(err)
	}
}

// The evening's conversation ends while the model server restarts: its
// diary entry, which recall needs to find the conversation again, fails,
// and is written after the server has had a moment, not at the next turn.
func TestDiaryEntryThatFailedIsWrittenLater(t *testing.T) {
	c := &settable{now: clock}
	f := newFixture(t, smallModel, Options{PlannerOff: true, Now: c.Now})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Noted."})
	f.model.on(kindDiary, ollamatest.Reply{Fault: ollamatest.ServerError, Error: "llama runner process has terminated"})
	first, _, err := f.ask(t, "my sister Clara arrives from Lisbon on Friday")
	if err != nil {
		t.Fatal(err)
	}
	c.pass(10 * time.Minute)
	f.ask(t, "what is the weather like") // a new conversation: the first one's entry fails
	f.eng.wg.Wait()
	if n := diaryCalls(f); n != 1 {
		t.Fatalf("%d diary calls when the first conversation ended, want 1", n)
	}
	c.pass(30 * time.Second)
	f.ask(t, "and tomorrow")
	f.eng.wg.Wait()
	if n := diaryCalls(f); n != 1 {
		t.Errorf("%d diary calls 30 s after the failure, want still 1: the server is given time", n)
	}
	c.pass(10 * time.Minute)
	f.ask(t, "tell me a joke") // the second conversation ends too
	f.eng.wg.Wait()
	if !written(t, f, first.Conversation) {
		t.Errorf("conversation %s has no diary entry: recall cannot find Clara's visit", first.Conversation)
	}
	got, _ := f.db.Diary().Search(t.Context(), nil, time.Time{}, time.Time{}, 5)
	if len(got) != 2 || diaryCalls(f) != 3 {
		t.Errorf("after %d diary calls the diary holds %+v; want the two finished conversations, once each", diaryCalls(f), got)
	}
	for _, e := range got {
		if e.Conversation == first.Conversation && !e.Date.Equal(clock) {
			t.Errorf("the entry is dated %v, want the conversation's start %v", e.Date, clock)
		}
	}
}

// A model server that stays down is asked again after a minute, then
// after longer and longer waits: not at every turn.
func TestDiaryServerDownIsAskedRarely(t *testing.T) {
	c := &settable{now: clock}
	f := newFixture(t, smallModel, Options{PlannerOff: true, Now: c.Now})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Noted."})
	f.model.Default(kindDiary, ollamatest.Reply{Fault: ollamatest.ServerError, Error: "llama runner process has terminated"})
	f.ask(t, "my sister Clara arrives from Lisbon on Friday")
	c.pass(10 * time.Minute)
	for range 31 { // ten minutes of talk, a turn every 20 s
		f.ask(t, "tell me more")
		f.eng.wg.Wait()
		c.pass(20 * time.Second)
	}
	// At 0, 1, 3 and 7 minutes.
	if n := diaryCalls(f); n != 4 {
		t.Errorf("%d diary calls in ten minutes of turns while the server fails them, want 4", n)
	}
}

// The box restarted a minute after a conversation (an update at night, a
// power cut, or `hark ask` ran without the daemon): the new process did
// not hold it, and writes its entry once it has lapsed, not before: the
// conversation may still go on.
func TestDiaryEntryOfAConversationBeforeARestart(t *testing.T) {
	c := &settable{now: clock}
	f := newFixture(t, smallModel, Options{PlannerOff: true, Now: c.Now})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Noted."})
	first, _, err := f.ask(t, "my sister Clara arrives from Lisbon on Friday")
	if err != nil {
		t.Fatal(err)
	}
	f.eng.Close()
	next, err := New(f.eng.o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(next.Close)
	ask := func(text string) {
		if _, err := next.Reply(t.Context(), Query{Text: text, Client: "web:kitchen"}, func(string) {}); err != nil {
			t.Fatal(err)
		}
		next.wg.Wait()
	}
	c.pass(2 * time.Minute)
	ask("what time is it")
	if written(t, f, first.Conversation) {
		t.Errorf("conversation %s written two minutes after its last exchange, while it may go on", first.Conversation)
	}
	c.pass(10 * time.Minute)
	ask("tell me a joke")
	if !written(t, f, first.Conversation) {
		t.Errorf("conversation %s has no diary entry after the restart", first.Conversation)
	}
}

// The daemon looks for the entries the last process left as it starts,
// before anyone speaks.
func TestMaintainWritesTheEntriesLeftAtStart(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	had(t, f, "yesterday", clock.Add(-24*time.Hour), "remind me what Clara likes")
	ctx, stop := context.WithCancel(t.Context())
	stop()
	f.eng.Maintain(ctx, time.Hour) // one look, then ctx is done
	f.eng.wg.Wait()
	if !written(t, f, "yesterday") {
		t.Error("yesterday's conversation has no diary entry after the daemon started")
	}
}

// A week of conversations nobody wrote up is written a few entries per
// turn, each once; one already written is left as it is.
func TestDiaryBacklogIsWrittenAFewAtATime(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Noted."})
	for i := range 7 {
		had(t, f, fmt.Sprintf("day%d", i), clock.AddDate(0, 0, i-7).Add(time.Hour), "what is on today")
	}
	kept := storage.DiaryEntry{Conversation: "day6", Date: clock.AddDate(0, 0, -1).Add(time.Hour), Summary: "Asked what was on."}
	if err := f.db.Diary().Add(t.Context(), kept); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{diaryRound, 6, 6} {
		f.ask(t, "tell me a joke")
		f.eng.wg.Wait()
		if n := diaryCalls(f); n != want {
			t.Errorf("after turn %d: %d diary calls, want %d", i+1, n, want)
		}
	}
	for i := range 6 {
		if id := fmt.Sprintf("day%d", i); !written(t, f, id) {
			t.Errorf("%s has no diary entry", id)
		}
	}
	got, _ := f.db.Diary().Search(t.Context(), []string{"asked"}, time.Time{}, time.Time{}, 10)
	if len(got) != 1 || got[0].Summary != kept.Summary {
		t.Errorf("day6's entry is now %+v; want it as it was", got)
	}
}

// A conversation the model cannot summarise goes after the others, and
// holds none of them up.
func TestDiaryEntryTheModelCannotWriteHoldsNoneUp(t *testing.T) {
	c := &settable{now: clock}
	f := newFixture(t, smallModel, Options{PlannerOff: true, Now: c.Now})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Noted."})
	f.srv.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
		if kindOf(r) == kindDiary && strings.Contains(r.Messages[len(r.Messages)-1].Content, "garbled") {
			return ollamatest.Reply{Content: "not JSON at all"}
		}
		return f.model.respond(r)
	})
	had(t, f, "bad", clock.Add(-3*time.Hour), "garbled")
	for i := range 5 {
		had(t, f, fmt.Sprintf("good%d", i), clock.Add(-2*time.Hour).Add(time.Duration(i)*10*time.Minute), "what is on today")
	}
	for range 4 {
		f.ask(t, "tell me a joke")
		f.eng.wg.Wait()
		c.pass(5 * time.Minute)
	}
	for i := range 5 {
		if id := fmt.Sprintf("good%d", i); !written(t, f, id) {
			t.Errorf("%s has no diary entry", id)
		}
	}
	if written(t, f, "bad") {
		t.Error("the conversation the model cannot summarise has an entry")
	}
}

// slowDiary is an engine on one model slot whose diary entries take a
// minute to begin (its chats answer "Noted." at once), on a clock the
// test sets, and a channel told when an entry is asked for.
func slowDiary(t *testing.T) (*fixture, *settable, <-chan struct{}) {
	t.Helper()
	c := &settable{now: clock}
	q := llm.NewQueue(llm.QueueOptions{Parallel: 1})
	f := newFixture(t, smallModel, Options{PlannerOff: true, Now: c.Now, Queue: q})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Noted."})
	f.model.on(kindDiary, ollamatest.Reply{Content: `{"summary": "Clara visits.", "keywords": ["clara"]}`, FirstTokenDelay: time.Minute})
	asked := make(chan struct{}, 1)
	f.srv.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
		if kindOf(r) == kindDiary {
			select {
			case asked <- struct{}{}:
			default:
			}
		}
		return f.model.respond(r)
	})
	return f, c, asked
}

// A turn that begins while an entry is being written does not wait for
// it: the entry gives way, and is written after the turn.
func TestDiaryEntryGivesWayToATurn(t *testing.T) {
	f, c, asked := slowDiary(t)
	first, _, _ := f.ask(t, "my sister Clara arrives from Lisbon on Friday")
	c.pass(10 * time.Minute)
	// The first conversation's entry is written after this turn, and the
	// server is slow to answer it.
	f.ask(t, "what is the weather like")
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("no diary call after the first conversation ended")
	}
	res, said, err := f.ask(t, "and what about Clara") // the model's to answer
	if err != nil || len(said) != 1 || res.Timings.Queued > time.Second {
		t.Errorf("said %q, err %v, after %v in the queue: want the answer without waiting for the diary", said, err, res.Timings.Queued)
	}
	f.eng.wg.Wait()
	if !written(t, f, first.Conversation) {
		t.Errorf("conversation %s has no diary entry after the turn", first.Conversation)
	}
	var diary []ollamatest.Request
	for _, r := range f.srv.Requests() {
		if r.Chat != nil && kindOf(*r.Chat) == kindDiary {
			diary = append(diary, r)
		}
	}
	if len(diary) != 2 || !diary[0].Cancelled {
		t.Errorf("%d diary calls, the first cancelled: %v; want the one given up and another", len(diary), len(diary) > 0 && diary[0].Cancelled)
	}
}

// A center's engine of one node conversation writes no entry: the
// conversation never ends for it, and an entry written while it goes on
// would never be written again.
func TestDiaryNotWrittenForTheOneConversation(t *testing.T) {
	c := &settable{now: clock}
	f := newFixture(t, smallModel, Options{PlannerOff: true, Now: c.Now, Conversation: "node-1"})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Noted."})
	f.ask(t, "my sister Clara arrives from Lisbon on Friday")
	c.pass(10 * time.Minute)
	f.ask(t, "and she stays a week")
	f.eng.wg.Wait()
	if n := diaryCalls(f); n != 0 || written(t, f, "node-1") {
		t.Errorf("%d diary calls for the conversation still going on, want none", n)
	}
}

// nodeEngine is an engine of the one conversation id, as a center makes
// one per node conversation, whose diary f's engine writes; Close lets
// go of it, as the center does once the conversation lapsed.
func nodeEngine(t *testing.T, f *fixture, id string) *Engine {
	t.Helper()
	o := f.eng.o
	o.Conversation, o.Diarist = id, f.eng
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// askNode asks e as a node does, and waits for the diary rounds of f's
// engine that follow.
func askNode(t *testing.T, f *fixture, e *Engine, text string) Result {
	t.Helper()
	res, err := e.Reply(t.Context(), Query{Text: text, Client: "kitchen"}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	f.eng.wg.Wait()
	return res
}

// A node's conversation on a center is written into the diary by the
// center's Diarist once the center let go of it and it lapsed, and only
// then: not while the center holds it (it may go on, though quiet for
// longer than the lapse until the center's next look), not twice.
func TestDiaristWritesANodesConversation(t *testing.T) {
	c := &settable{now: clock}
	f := newFixture(t, smallModel, Options{PlannerOff: true, Now: c.Now})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Noted."})
	kitchen, hall := nodeEngine(t, f, "kitchen-1"), nodeEngine(t, f, "hall-1")
	askNode(t, f, kitchen, "my sister Clara arrives from Lisbon on Friday")
	c.pass(5*time.Minute + 30*time.Second)
	askNode(t, f, hall, "what time is it") // a round, while the kitchen's is held
	askNode(t, f, kitchen, "and she stays a week")
	if n := diaryCalls(f); n != 0 || written(t, f, "kitchen-1") {
		t.Fatalf("%d diary calls while the conversation goes on, want none", n)
	}
	c.pass(time.Minute)
	kitchen.Close() // the center let go of it early (it stopped): it may go on
	f.eng.wg.Wait()
	if written(t, f, "kitchen-1") {
		t.Fatal("the conversation was written within its lapse")
	}
	c.pass(5 * time.Minute)
	f.eng.catchUp() // Maintain's tick
	f.eng.wg.Wait()
	if !written(t, f, "kitchen-1") {
		t.Fatal("the node's conversation has no diary entry after it lapsed: recall cannot find Clara's visit")
	}
	c.pass(time.Hour)
	f.eng.catchUp()
	f.eng.wg.Wait()
	askNode(t, f, hall, "and now")
	if n := diaryCalls(f); n != 1 {
		t.Errorf("%d diary calls, want the one", n)
	}
}

// A node's turn that begins while the Diarist writes an entry does not
// wait for it: the entry gives way, and is written after the turn.
func TestDiaristGivesWayToANodesTurn(t *testing.T) {
	f, c, asked := slowDiary(t)
	kitchen := nodeEngine(t, f, "kitchen-1")
	askNode(t, f, kitchen, "my sister Clara arrives from Lisbon on Friday")
	kitchen.Close()
	c.pass(10 * time.Minute)
	hall := nodeEngine(t, f, "hall-1")
	// The kitchen's entry is written after this turn, and the server is
	// slow to answer it.
	if _, err := hall.Reply(t.Context(), Query{Text: "what is the weather like", Client: "hall"}, func(string) {}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-asked:
	case <-time.After(10 * time.Second):
		t.Fatal("no diary call after the node's turn")
	}
	res := askNode(t, f, hall, "and what about Clara") // the model's to answer
	if len(res.Sentences) != 1 || res.Timings.Queued > time.Second {
		t.Errorf("said %q after %v in the queue: want the answer without waiting for the diary", res.Sentences, res.Timings.Queued)
	}
	if !written(t, f, "kitchen-1") {
		t.Error("the kitchen's conversation has no diary entry after the hall's turn")
	}
	var diary []ollamatest.Request
	for _, r := range f.srv.Requests() {
		if r.Chat != nil && kindOf(*r.Chat) == kindDiary {
			diary = append(diary, r)
		}
	}
	if len(diary) != 2 || !diary[0].Cancelled {
		t.Errorf("%d diary calls, the first cancelled: %v; want the one given up and another", len(diary), len(diary) > 0 && diary[0].Cancelled)
	}
}

// A Diarist is for engines of one conversation, and must keep a diary.
func TestDiaristMisused(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	o := f.eng.o
	o.Diarist = f.eng
	if _, err := New(o); err == nil {
		t.Error("an engine of every conversation took a Diarist")
	}
	o.Conversation, o.Diarist = "kitchen-1", nodeEngine(t, f, "hall-1")
	if _, err := New(o); err == nil {
		t.Error("an engine of one conversation was taken as a Diarist")
	}
}

// CatchUp writes the whole backlog, round after round, and returns: what
// hark ask without the daemon does after its answer.
func TestCatchUpWritesTheBacklog(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	var ids []string
	for i := range 7 {
		ids = append(ids, fmt.Sprintf("day%d", i))
		had(t, f, ids[i], clock.AddDate(0, 0, i-7), "what is on today")
	}
	had(t, f, "now", clock.Add(-time.Minute), "and tomorrow") // still open
	if err := f.eng.CatchUp(t.Context()); err != nil {
		t.Fatal(err)
	}
	missing, _ := f.db.Diary().Missing(t.Context(), append(ids, "now"))
	if !slices.Equal(missing, []string{"now"}) || diaryCalls(f) != 7 {
		t.Errorf("after %d diary calls, %q have no entry; want only the open conversation", diaryCalls(f), missing)
	}
}

// CatchUp stops at a failure, and at the end of its context: a server
// that is down or stalls holds a one-shot process up no longer.
func TestCatchUpStops(t *testing.T) {
	t.Run("the server fails", func(t *testing.T) {
		f := newFixture(t, smallModel, Options{PlannerOff: true})
		f.model.Default(kindDiary, ollamatest.Reply{Fault: ollamatest.ServerError, Error: "llama runner process has terminated"})
		had(t, f, "monday", clock.AddDate(0, 0, -2), "what is on today")
		had(t, f, "tuesday", clock.AddDate(0, 0, -1), "what is on today")
		if err := f.eng.CatchUp(t.Context()); err == nil || diaryCalls(f) != 1 {
			t.Errorf("CatchUp: %v after %d diary calls; want the failure after one", err, diaryCalls(f))
		}
		if err := f.eng.CatchUp(t.Context()); err == nil || diaryCalls(f) != 1 {
			t.Errorf("CatchUp again: %v after %d diary calls; want the failure, and the server left alone until the retry", err, diaryCalls(f))
		}
	})
	t.Run("the server stalls", func(t *testing.T) {
		f := newFixture(t, smallModel, Options{PlannerOff: true})
		asked := make(chan struct{})
		var once sync.Once
		f.srv.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
			if kindOf(r) == kindDiary {
				once.Do(func() { close(asked) })
				return ollamatest.Reply{Content: `{"summary": "A day.", "keywords": ["day"]}`, FirstTokenDelay: time.Hour}
			}
			return f.model.respond(r)
		})
		had(t, f, "monday", clock.AddDate(0, 0, -2), "what is on today")
		ctx, cancel := context.WithCancel(t.Context())
		go func() { <-asked; cancel() }()
		if err := f.eng.CatchUp(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("CatchUp: %v, want it cancelled", err)
		}
		began := time.Now()
		f.eng.Close()
		if took := time.Since(began); took > time.Second {
			t.Errorf("Close took %v after the catch-up was cancelled; want it to give up the entry at once", took)
		}
		if written(t, f, "monday") {
			t.Error("the stalled entry was written")
		}
	})
}

// A box whose model runs on its own CPU takes tens of seconds over a
// diary entry: the call is given the time the meter says that server
// needs, not only the short digest time-out of a reply's helpers (the
// entry is background work, and gives way to a turn).
func TestDiaryEntryOnASlowServerIsGivenItsTime(t *testing.T) {
	c := &settable{now: clock}
	m := cost.NewMeter()
	f := newFixtureHooked(t, smallModel, Options{PlannerOff: true, Now: c.Now, DigestTimeout: 300 * time.Millisecond, Meter: m}, nil, func(o *Options, _ *llm.Client) {
		// A CPU's pace: 100 prompt and 10 generated tokens a second.
		for _, name := range []string{smallModel.Name, o.AuxModelName} {
			m.Set(cost.Key(o.Server, name), cost.Rates{Prompt: 100, Gen: 10, CharsPerToken: 4, Samples: 5})
		}
	})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Noted."})
	f.model.on(kindDiary, ollamatest.Reply{Content: `{"summary": "Clara arrives from Lisbon on Friday.", "keywords": ["Clara", "Lisbon"]}`, FirstTokenDelay: time.Second})
	first, _, err := f.ask(t, "my sister Clara arrives from Lisbon on Friday")
	if err != nil {
		t.Fatal(err)
	}
	c.pass(10 * time.Minute)
	f.ask(t, "what is the weather like") // a new conversation: the first one is over
	f.eng.wg.Wait()
	if !written(t, f, first.Conversation) {
		t.Errorf("no diary entry after %d diary calls: a server a second slow was cut off at the 300 ms digest time-out", diaryCalls(f))
	}
}
