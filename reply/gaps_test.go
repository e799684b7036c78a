package reply

import (
	"slices"
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/storage"
)

// TestEmptyAnswerAfterATool: a model that says nothing right after a tool
// answered is asked once more; if it is still silent, the tool's own
// answer is said rather than "no answer".
func TestEmptyAnswerAfterATool(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true, Router: "all", ToolTokens: 5000})
	timeCall := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "get_current_time", Arguments: map[string]any{"detail": "time"}}}}
	f.model.on(kindChat, timeCall, ollamatest.Reply{Content: ""}, ollamatest.Reply{Content: "It is a quarter past ten."})
	_, said, err := f.ask(t, "could you possibly look at the clock for me")
	if err != nil || !slices.Equal(said, []string{"It is a quarter past ten."}) {
		t.Errorf("asked again: said %q, err %v", said, err)
	}
	g := newFixture(t, smallModel, Options{PlannerOff: true, Router: "all", ToolTokens: 5000})
	g.model.on(kindChat, timeCall, ollamatest.Reply{Content: ""}, ollamatest.Reply{Content: ""})
	_, said, err = g.ask(t, "could you possibly look at the clock for me")
	if err != nil || len(said) != 1 || !strings.HasPrefix(said[0], "It's 10:15") {
		t.Errorf("still silent: said %q, err %v; want the tool's own answer", said, err)
	}
}

// TestInvalidWithoutValuesAsks: a call the command refuses twice with no
// list of valid values makes the user be asked for what is missing.
func TestInvalidWithoutValuesAsks(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true, Router: "all", ToolTokens: 5000})
	bad := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"name": "bread"}}}}
	f.model.on(kindChat, bad, bad)
	res, said, _ := f.ask(t, "start the bread one")
	if !res.FollowUp || !slices.Equal(said, []string{"What should the duration be?"}) {
		t.Errorf("follow-up %v, said %q: want the question for the duration", res.FollowUp, said)
	}
}

// TestRememberingAConversation: "do you remember when we talked about
// Paris" finds the conversation in the diary, not only the facts.
func TestRememberingAConversation(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	if err := f.db.Diary().Add(t.Context(), storage.DiaryEntry{Conversation: "c1", Date: clock.AddDate(0, 0, -3),
		Summary: "The user planned a weekend trip to Paris and asked about museums.", Keywords: []string{"paris", "trip", "museums"}}); err != nil {
		t.Fatal(err)
	}
	res, said, err := f.ask(t, "do you remember when we talked about Paris")
	if err != nil || !res.Offline || len(said) == 0 || !strings.Contains(strings.Join(said, " "), "trip to Paris") {
		t.Errorf("offline %v, said %q, err %v; want the conversation about Paris", res.Offline, said, err)
	}
}
