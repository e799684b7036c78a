package distil

import (
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/llmtest"
	"github.com/harkbox/hark/reply/ollamatest"
)

// thought is reasoning that must never be kept, injected or said.
const thought = "<think>The user once told me their bank PIN is 4821. I should not repeat it.</think>\n\n"

// snippets and page are large enough to be distilled, in one call each.
var (
	snippets = []string{"[2026-11-01] " + strings.Repeat("The user made tea. ", 25), "[2026-11-02] The bank PIN is 4821."}
	page     = strings.Repeat("Possessor is a 2020 film by Brandon Cronenberg.\n\n", 20)
)

// A reasoning model's inline reasoning is no part of what a pass gives:
// not of a memory or tool digest (put in the prompt), an out-of-turns
// summary (said) or a diary entry (stored), nor is JSON it drafts while
// reasoning taken for the entry.
func TestReasoningIsLeftOut(t *testing.T) {
	d := &Distiller{Model: llmtest.Reasoner(t, ollamatest.Reply{Content: thought + "The user drinks tea."})}
	if note, err := d.Memory(t.Context(), "what do I drink", snippets); err != nil || note != "The user drinks tea." {
		t.Errorf("memory digest %q, %v; want the answer without the reasoning", note, err)
	}
	d = &Distiller{Model: llmtest.Reasoner(t, ollamatest.Reply{Content: thought + "According to the web_search tool, Possessor is a 2020 film."})}
	if note, raw, err := d.Tool(t.Context(), "what is Possessor", "web_search", page); err != nil || raw || note != "According to the web_search tool, Possessor is a 2020 film." {
		t.Errorf("tool digest %q raw=%v, %v; want the answer without the reasoning", note, raw, err)
	}
	d = &Distiller{Model: llmtest.Reasoner(t, ollamatest.Reply{Content: thought + "I couldn't finish that. The timer is set."})}
	if said, err := d.OutOfTurns(t.Context(), "set a timer and call mum", "Called set_timer"); err != nil || said != "I couldn't finish that. The timer is set." {
		t.Errorf("out-of-turns summary %q, %v; want the answer without the reasoning", said, err)
	}
	d = &Distiller{Model: llmtest.Reasoner(t, ollamatest.Reply{Content: `<think>Draft: {"summary": "The user's bank PIN is 4821.", "keywords": ["pin"]} ` +
		`Too much; keep it to the trip.</think>{"summary": "Talked about Lisbon.", "keywords": ["lisbon"]}`})}
	if sum, kw, err := d.Diary(t.Context(), []string{"User: my PIN is 4821, and plan Lisbon", "Assistant: Noted."}); err != nil || sum != "Talked about Lisbon." || len(kw) != 1 || kw[0] != "lisbon" {
		t.Errorf("diary %q %q, %v; want the entry after the reasoning", sum, kw, err)
	}
}

// An answer that is reasoning only, closed or cut at the token limit, is
// no answer: each pass fails saying so and keeps none of it.
func TestReasoningOnlyIsNoAnswer(t *testing.T) {
	for _, content := range []string{thought, "<think>The user once told me their bank PIN is 4821. Let me"} {
		only := ollamatest.Reply{Content: content}
		if note, err := (&Distiller{Model: llmtest.Reasoner(t, only)}).Memory(t.Context(), "what do I drink", snippets); err == nil || !strings.Contains(err.Error(), "reasoning only") || note != "" {
			t.Errorf("memory digest of %q: %q, %v; want an error saying the answer was reasoning only", content, note, err)
		}
		if note, raw, err := (&Distiller{Model: llmtest.Reasoner(t, only)}).Tool(t.Context(), "q", "web_search", page); err == nil || !strings.Contains(err.Error(), "reasoning only") || !raw || note != page {
			t.Errorf("tool digest of %q: raw=%v, %v; want the raw result and an error saying the answer was reasoning only", content, raw, err)
		}
		if said, err := (&Distiller{Model: llmtest.Reasoner(t, only)}).OutOfTurns(t.Context(), "q", "Called set_timer"); err == nil || !strings.Contains(err.Error(), "reasoning only") || said != "" {
			t.Errorf("out-of-turns summary of %q: %q, %v; want an error saying the answer was reasoning only", content, said, err)
		}
		if sum, _, err := (&Distiller{Model: llmtest.Reasoner(t, only)}).Diary(t.Context(), []string{"User: hi"}); err == nil || !strings.Contains(err.Error(), "reasoning only") || sum != "" {
			t.Errorf("diary of %q: %q, %v; want an error saying the answer was reasoning only", content, sum, err)
		}
	}
}
