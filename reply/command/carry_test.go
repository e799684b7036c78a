package command

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
)

// carried is a client's last call as it goes through a store and back:
// JSON, as the dialogue keeps it.
func carried(t *testing.T, l Last) Last {
	t.Helper()
	b, err := json.Marshal(l)
	if err != nil {
		t.Fatal(err)
	}
	var out Last
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// A second process (hark ask --continue) refines the call the first made,
// and answers the question the first asked, once given the last call as
// the store kept it; within the refine window only.
func TestLastCallCarriesToAnotherRegistry(t *testing.T) {
	timer := func(rc *recorder) *Command {
		return &Command{Name: "set_timer", Description: "d", Run: rc.run, Parameters: []Parameter{
			{Name: "duration", Type: "timedelta", Required: true, Refinable: true, Ask: "For how long?"},
			{Name: "name", Type: "string"},
			{Name: "at", Type: "datetime"},
		}}
	}
	now := clock
	first := &recorder{resp: Response{Kind: Success, Spoken: "ok", Data: map[string]any{"timer_id": "t1"}}}
	a := NewRegistry(Options{Now: func() time.Time { return now }, Location: time.UTC})
	a.Register(timer(first))
	a.Call(WithClient(t.Context(), Client{ID: "ask-1"}), "set_timer", map[string]any{"duration": "5m", "name": "tea", "at": "2026-03-01T10:00:00Z"}, "set a tea timer for 5 minutes")
	last, ok := a.Last("ask-1")
	if !ok {
		t.Fatal("no last call to carry")
	}
	if _, ok := a.Last("ask-2"); ok {
		t.Error("another client's last call was given")
	}

	open := func() (*Registry, *recorder) {
		rc := &recorder{resp: Response{Kind: Success, Spoken: "ok", Data: map[string]any{"timer_id": "t1"}}}
		r := NewRegistry(Options{Now: func() time.Time { return now }, Location: time.UTC})
		r.Register(timer(rc))
		return r, rc
	}
	now = now.Add(10 * time.Second)
	b, rc := open()
	if u := b.Understand(t.Context(), locale.English, "make it 10 minutes"); u.OK {
		t.Fatalf("a new registry refined what it was not given: %+v", u)
	}
	b.Resume("ask-1", carried(t, last))
	ctx := WithClient(t.Context(), Client{ID: "ask-1"})
	u := b.Understand(ctx, locale.English, "make it 10 minutes")
	if !u.OK || !u.Route.Refine {
		t.Fatalf("not refined after Resume: %+v", u)
	}
	b.RunRoute(ctx, u.Route, "make it 10 minutes")
	got := rc.got[0]
	if got.Args.Duration("duration") != 10*time.Minute || got.Args.String("name") != "tea" || got.Refines["timer_id"] != "t1" ||
		!got.Args.Time("at").Equal(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)) {
		t.Errorf("refined call saw %+v refining %v; want 10m, tea, its at, refining t1", got.Args, got.Refines)
	}

	// Out of the window: nothing is resumed.
	now = now.Add(time.Minute)
	c, _ := open()
	c.Resume("ask-1", carried(t, last))
	if u := c.Understand(WithClient(t.Context(), Client{ID: "ask-1"}), locale.English, "make it 10 minutes"); u.OK {
		t.Errorf("refined a call older than the window: %+v", u)
	}

	// The question asked ("For how long?") is answered in the next process.
	asked := &recorder{}
	now = clock
	d := NewRegistry(Options{Now: func() time.Time { return now }, Location: time.UTC})
	d.Register(timer(asked))
	ctx = WithClient(t.Context(), Client{ID: "ask-3"})
	if resp := d.RunRoute(ctx, Route{Command: d.byName["set_timer"], Claim: Claim{Arguments: map[string]any{}}}, "set a timer"); resp.Kind != FollowUp {
		t.Fatalf("no question asked: %+v", resp)
	}
	pending, ok := d.Last("ask-3")
	if !ok {
		t.Fatal("the question asked is not carried")
	}
	now = now.Add(5 * time.Second)
	e, rc := open()
	e.Resume("ask-3", carried(t, pending))
	u = e.Understand(ctx, locale.English, "5 minutes")
	if !u.OK {
		t.Fatalf("the answer was not taken: %+v", u)
	}
	e.RunRoute(ctx, u.Route, "5 minutes")
	if len(rc.got) != 1 || rc.got[0].Args.Duration("duration") != 5*time.Minute {
		t.Errorf("answered call saw %+v; want 5m", rc.got)
	}

	// A command the new process does not have is not resumed.
	f := NewRegistry(Options{Now: func() time.Time { return now }, Location: time.UTC})
	f.Resume("ask-1", carried(t, last))
	if _, ok := f.Last("ask-1"); ok {
		t.Error("resumed a call to a command not registered")
	}
}
