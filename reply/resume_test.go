package reply

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/schedule"
)

// another is a second process over the fixture's store (hark ask run
// again): its own engine, registry and schedule, the clock at now.
func (f *fixture) another(t *testing.T, now *time.Time) *Engine {
	t.Helper()
	clockAt := func() time.Time { return *now }
	sched, _ := schedule.New(schedule.Options{Store: f.db.Schedule(), Now: clockAt, Location: berlin})
	reg := command.NewRegistry(command.Options{Now: clockAt, Location: berlin})
	if err := reg.Register(builtin.All(builtin.Deps{Schedule: sched, Mixer: &fixedMixer{level: 50}, Memory: f.db.SealedFacts(f.db.Secrets("")),
		Diary: f.db.Diary(), Status: noStatus{}})...); err != nil {
		t.Fatal(err)
	}
	o := f.eng.o
	o.Commands, o.Now = reg, clockAt
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	return e
}

// A conversation continued by another process (hark ask --continue)
// carries the asker's last call and the question it asked, within the
// refine window; a new conversation carries neither.
func TestAnotherProcessTakesUpTheLastCall(t *testing.T) {
	now := clock
	f := newFixture(t, smallModel, Options{Now: func() time.Time { return now }})
	downModel(t, f)
	ask := func(e *Engine, q Query) (Result, []string) {
		t.Helper()
		var said []string
		res, _ := e.Reply(t.Context(), q, func(s string) { said = append(said, s) })
		return res, said
	}
	first, said := ask(f.another(t, &now), Query{Text: "set a timer for 5 minutes", Client: "ask:1"})
	if !slices.Equal(said, []string{"Timer set for 5 minutes."}) {
		t.Fatalf("said %q", said)
	}
	now = now.Add(10 * time.Second)
	res, said := ask(f.another(t, &now), Query{Text: "make it 10 minutes", Client: "ask:1", Conversation: first.Conversation})
	if !slices.Equal(said, []string{"OK, the timer is now 10 minutes."}) || !res.Offline {
		t.Errorf("continued: said %q (offline %v); want the timer changed", said, res.Offline)
	}
	items, err := f.db.Schedule().List(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(items) != 1 || items[0].Duration != 10*time.Minute {
		t.Errorf("timers %+v; want the one, of 10 minutes", items)
	}

	// The question asked is answered in the next process.
	asked, said := ask(f.another(t, &now), Query{Text: "set a timer", Client: "ask:2"})
	if !slices.Equal(said, []string{"For how long?"}) {
		t.Fatalf("said %q", said)
	}
	now = now.Add(5 * time.Second)
	if _, said := ask(f.another(t, &now), Query{Text: "5 minutes", Client: "ask:2", Conversation: asked.Conversation}); !slices.Equal(said, []string{"Timer set for 5 minutes."}) {
		t.Errorf("the answer: said %q; want the timer set", said)
	}

	// A call holding a secret is not kept for the next process in clear.
	ask(f.another(t, &now), Query{Text: "remember that the wifi password is Tulip-Harbor-77", Client: "ask:5"})
	xs, err := f.db.Dialogue().Recent(t.Context(), clock.Add(-time.Hour), 100)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range xs {
		if x.Client == "ask:5" && x.Last != nil {
			t.Errorf("kept a call holding a secret: %+v", x.Last)
		}
	}

	// A new conversation carries nothing, nor one past the window.
	if _, said := ask(f.another(t, &now), Query{Text: "make it 10 minutes", Client: "ask:3"}); slices.Contains(said, "OK, the timer is now 10 minutes.") {
		t.Errorf("a new conversation changed the timer: %q", said)
	}
	later, _ := ask(f.another(t, &now), Query{Text: "set a timer for 3 minutes", Client: "ask:4"})
	now = now.Add(time.Minute)
	if _, said := ask(f.another(t, &now), Query{Text: "make it 10 minutes", Client: "ask:4", Conversation: later.Conversation}); slices.Contains(said, "OK, the timer is now 10 minutes.") {
		t.Errorf("changed a timer set past the refine window: %q", said)
	}
}

// "and …" follow-ups offline, in the conversation and in the next process
// continuing it.
func TestAndFollowUpOffline(t *testing.T) {
	now := clock
	f := newFixture(t, smallModel, Options{Now: func() time.Time { return now }})
	downModel(t, f)
	for i, c := range []struct{ first, then, want string }{
		{"what is 3 plus 4", "and times 3", "7 times 3 is 21."},
		{"was ist 3 plus 4", "und mal 3", "7 mal 3 ist 21."},
		{"was ist 3 plus 4", "und plus 5", "7 plus 5 ist 12."},
	} {
		var said []string
		f.eng.Reply(t.Context(), Query{Text: c.first}, func(s string) {})
		f.eng.Reply(t.Context(), Query{Text: c.then}, func(s string) { said = append(said, s) })
		if !slices.Equal(said, []string{c.want}) {
			t.Errorf("%q after %q: said %q, want %q", c.then, c.first, said, c.want)
		}
		// The first in one process, the follow-up in the next.
		said = nil
		client := fmt.Sprintf("ask:%d", 10+i)
		first, _ := f.eng.Reply(t.Context(), Query{Text: c.first, Client: client}, func(s string) {})
		now = now.Add(5 * time.Second)
		f.another(t, &now).Reply(t.Context(), Query{Text: c.then, Client: client, Conversation: first.Conversation}, func(s string) { said = append(said, s) })
		if !slices.Equal(said, []string{c.want}) {
			t.Errorf("%q after %q, in another process: said %q, want %q", c.then, c.first, said, c.want)
		}
	}
	// A follow-up goes on from the last result: 21 plus 1.
	var said []string
	f.eng.Reply(t.Context(), Query{Text: "what is 3 plus 4"}, func(s string) {})
	f.eng.Reply(t.Context(), Query{Text: "and times 3"}, func(s string) {})
	f.eng.Reply(t.Context(), Query{Text: "and plus 1"}, func(s string) { said = append(said, s) })
	if !slices.Equal(said, []string{"21 plus 1 is 22."}) {
		t.Errorf("\"and plus 1\" after 7 times 3: said %q, want 21 plus 1", said)
	}
}
