package planner

import (
	"net/url"
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
)

// reasoner is the real client for a reasoning model on the test server,
// answering replies in turn: a model that writes its reasoning into its
// answer between <think> tags, as it does behind a server that does not
// parse reasoning out.
func reasoner(t *testing.T, replies ...ollamatest.Reply) *llm.Client {
	t.Helper()
	srv := ollamatest.New(ollamatest.Model{Name: "qwen3:1.7b", Family: "qwen3", ParameterSize: "1.7B", Capabilities: []string{"completion", "thinking"}})
	t.Cleanup(srv.Close)
	srv.Enqueue(replies...)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := llm.New(llm.Options{Host: u, Model: "qwen3:1.7b"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The plan is the answer's, never a plan the model drafted while it
// reasoned; an answer that was reasoning only is no plan, and says so.
func TestPlanLeavesReasoningOut(t *testing.T) {
	draft := `<think>Maybe {"steps": ["set_timer: ten minutes", "reply"]}? No: they ask about the weather.</think>`
	pl := New(Options{Model: reasoner(t, ollamatest.Reply{Content: draft + `{"steps": ["get_weather: Lisbon tomorrow", "reply"]}`})})
	p, err := pl.Plan(t.Context(), "what is the weather in Lisbon tomorrow", "", tools)
	if err != nil || len(p.Tools()) != 1 || p.Tools()[0] != "get_weather" {
		t.Errorf("plan %+v, %v; want the answer's get_weather step, not the reasoning's set_timer", p, err)
	}
	for _, content := range []string{draft, "<think>The user asks about the weather. Let me"} {
		pl := New(Options{Model: reasoner(t, ollamatest.Reply{Content: content})})
		p, err := pl.Plan(t.Context(), "what is the weather in Lisbon tomorrow", "", tools)
		if !p.Empty() || err == nil || !strings.Contains(err.Error(), "reasoning only") {
			t.Errorf("plan of %q: %+v, %v; want an empty plan and an error saying the answer was reasoning only", content, p, err)
		}
	}
}
