package router

import (
	"log/slog"
	"net/url"
	"slices"
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

// The tools are the answer's, never tools the model drafted while it
// reasoned; an answer that was reasoning only is a failed pick, logged
// as that and not as a quote of the reasoning.
func TestSelectLeavesReasoningOut(t *testing.T) {
	draft := `<think>Maybe {"tools": ["set_timer"]}? No, they ask whether it will rain.</think>`
	r := New(Options{Model: reasoner(t, ollamatest.Reply{Content: draft + `{"tools": ["get_weather"]}`})})
	if got, fellBack := r.Select(t.Context(), "will it rain", catalogue); !slices.Equal(got, []string{"get_weather"}) || fellBack {
		t.Errorf("picked %v fellBack=%v; want the answer's get_weather, not the reasoning's set_timer", got, fellBack)
	}
	for _, content := range []string{draft, "<think>They ask whether it will rain. Let me"} {
		var log strings.Builder
		r := New(Options{Model: reasoner(t, ollamatest.Reply{Content: content}), Log: slog.New(slog.NewTextHandler(&log, nil))})
		got, fellBack := r.Select(t.Context(), "will it rain", catalogue)
		if !slices.Equal(got, []string{"get_weather"}) || !fellBack || !strings.Contains(log.String(), "reasoning only") || strings.Contains(log.String(), "rain.") {
			t.Errorf("pick of %q: %v fellBack=%v, log %q; want the keyword pick, logged as an answer that was reasoning only", content, got, fellBack, log.String())
		}
	}
}
