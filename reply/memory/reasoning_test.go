package memory

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/llmtest"
	"github.com/harkbox/hark/reply/ollamatest"
)

// The search terms are the answer's, never terms the model drafted while
// it reasoned; an answer that was reasoning only gives none, and says so.
func TestExtractLeavesReasoningOut(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	draft := `<think>First idea: {"keywords": ["bank", "pin"]}. No, they ask about the trip.</think>`
	r := New(Options{Model: llmtest.Reasoner(t, ollamatest.Reply{Content: draft + `{"keywords": ["lisbon", "trip"]}`})})
	p, err := r.Extract(t.Context(), "when do I fly to Lisbon", "", "", now)
	if err != nil || !slices.Equal(p.Keywords, []string{"lisbon", "trip"}) {
		t.Errorf("params %+v, %v; want the answer's keywords, not the reasoning's", p, err)
	}
	for _, content := range []string{draft, "<think>The user asks about a trip. Let me"} {
		r := New(Options{Model: llmtest.Reasoner(t, ollamatest.Reply{Content: content})})
		p, err := r.Extract(t.Context(), "when do I fly to Lisbon", "", "", now)
		if len(p.Keywords) != 0 || err == nil || !strings.Contains(err.Error(), "reasoning only") {
			t.Errorf("params of %q: %+v, %v; want none and an error saying the answer was reasoning only", content, p, err)
		}
	}
}
