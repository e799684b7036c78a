package memory

import (
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

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

// The search terms are the answer's, never terms the model drafted while
// it reasoned; an answer that was reasoning only gives none, and says so.
func TestExtractLeavesReasoningOut(t *testing.T) {
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	draft := `<think>First idea: {"keywords": ["bank", "pin"]}. No, they ask about the trip.</think>`
	r := New(Options{Model: reasoner(t, ollamatest.Reply{Content: draft + `{"keywords": ["lisbon", "trip"]}`})})
	p, err := r.Extract(t.Context(), "when do I fly to Lisbon", "", "", now)
	if err != nil || !slices.Equal(p.Keywords, []string{"lisbon", "trip"}) {
		t.Errorf("params %+v, %v; want the answer's keywords, not the reasoning's", p, err)
	}
	for _, content := range []string{draft, "<think>The user asks about a trip. Let me"} {
		r := New(Options{Model: reasoner(t, ollamatest.Reply{Content: content})})
		p, err := r.Extract(t.Context(), "when do I fly to Lisbon", "", "", now)
		if len(p.Keywords) != 0 || err == nil || !strings.Contains(err.Error(), "reasoning only") {
			t.Errorf("params of %q: %+v, %v; want none and an error saying the answer was reasoning only", content, p, err)
		}
	}
}
