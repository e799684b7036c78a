package planner

import (
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/llmtest"
	"github.com/harkbox/hark/reply/ollamatest"
)

// The plan is the answer's, never a plan the model drafted while it
// reasoned; an answer that was reasoning only is no plan, and says so.
func TestPlanLeavesReasoningOut(t *testing.T) {
	draft := `<think>Maybe {"steps": ["set_timer: ten minutes", "reply"]}? No: they ask about the weather.</think>`
	pl := New(Options{Model: llmtest.Reasoner(t, ollamatest.Reply{Content: draft + `{"steps": ["get_weather: Lisbon tomorrow", "reply"]}`})})
	p, err := pl.Plan(t.Context(), "what is the weather in Lisbon tomorrow", "", tools)
	if err != nil || len(p.Tools()) != 1 || p.Tools()[0] != "get_weather" {
		t.Errorf("plan %+v, %v; want the answer's get_weather step, not the reasoning's set_timer", p, err)
	}
	for _, content := range []string{draft, "<think>The user asks about the weather. Let me"} {
		pl := New(Options{Model: llmtest.Reasoner(t, ollamatest.Reply{Content: content})})
		p, err := pl.Plan(t.Context(), "what is the weather in Lisbon tomorrow", "", tools)
		if !p.Empty() || err == nil || !strings.Contains(err.Error(), "reasoning only") {
			t.Errorf("plan of %q: %+v, %v; want an empty plan and an error saying the answer was reasoning only", content, p, err)
		}
	}
}
