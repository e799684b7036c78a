package reply

import (
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/ollamatest"
)

// A plan step's call is the answer's, never a call the model drafted
// while it reasoned; an answer that was reasoning only resolves nothing,
// and the chat model takes the step, as when the call is not resolved.
func TestPlanStepLeavesReasoningOut(t *testing.T) {
	const query = "what's the time and what is twelve times four"
	draft := `<think>Maybe {"name": "calculate", "arguments": {"a": 1, "operation": "add", "b": 1}}? No: twelve times four.</think>`
	script := func(f *fixture, resolve string) {
		f.model.json(kindPlanner, `{"steps": ["get_current_time: the time", "calculate: 12 times 4", "reply"]}`).
			json(kindRouter, `{"tools": []}`).
			json(kindResolve, `{"name": "get_current_time", "arguments": {"detail": "time"}}`).
			json(kindResolve, resolve).
			on(kindChat, ollamatest.Reply{Content: "It's 10:15 and the answer is 48."})
	}
	// made are the calls the engine made itself, as the chat model reads them.
	made := func(f *fixture) string {
		var calls []string
		for _, c := range f.srv.Chats() {
			if kindOf(c) != kindChat {
				continue
			}
			for _, m := range c.Messages {
				if m.Role == "assistant" {
					calls = append(calls, m.Content)
				}
			}
		}
		return strings.Join(calls, "\n")
	}

	f := newFixture(t, textModel, Options{})
	script(f, draft+`{"name": "calculate", "arguments": {"a": 12, "operation": "multiply", "b": 4}}`)
	f.ask(t, query)
	if calls := made(f); !strings.Contains(calls, `"a":12`) || strings.Contains(calls, `"a":1,`) {
		t.Errorf("calls made:\n%s\nwant the answer's 12 times 4, not the reasoning's 1 plus 1", calls)
	}

	for _, content := range []string{draft, "<think>Twelve times four. Let me"} {
		f := newFixture(t, textModel, Options{})
		script(f, content)
		f.ask(t, query)
		if calls := made(f); strings.Contains(calls, "calculate") {
			t.Errorf("resolve answered %q: calls made:\n%s\nwant none from the reasoning", content, calls)
		}
		if log := f.log.String(); !strings.Contains(log, "reasoning only") {
			t.Errorf("resolve answered %q: log\n%s\nwant the step left to the chat model as an answer that was reasoning only", content, log)
		}
	}
}
