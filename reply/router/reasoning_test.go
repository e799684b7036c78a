package router

import (
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/llmtest"
	"github.com/harkbox/hark/reply/ollamatest"
)

// The tools are the answer's, never tools the model drafted while it
// reasoned; an answer that was reasoning only is a failed pick, logged
// as that and not as a quote of the reasoning.
func TestSelectLeavesReasoningOut(t *testing.T) {
	draft := `<think>Maybe {"tools": ["set_timer"]}? No, they ask whether it will rain.</think>`
	r := New(Options{Model: llmtest.Reasoner(t, ollamatest.Reply{Content: draft + `{"tools": ["get_weather"]}`})})
	if got, fellBack := r.Select(t.Context(), "will it rain", catalogue); !slices.Equal(got, []string{"get_weather"}) || fellBack {
		t.Errorf("picked %v fellBack=%v; want the answer's get_weather, not the reasoning's set_timer", got, fellBack)
	}
	for _, content := range []string{draft, "<think>They ask whether it will rain. Let me"} {
		var log strings.Builder
		r := New(Options{Model: llmtest.Reasoner(t, ollamatest.Reply{Content: content}), Log: slog.New(slog.NewTextHandler(&log, nil))})
		got, fellBack := r.Select(t.Context(), "will it rain", catalogue)
		if !slices.Equal(got, []string{"get_weather"}) || !fellBack || !strings.Contains(log.String(), "reasoning only") || strings.Contains(log.String(), "rain.") {
			t.Errorf("pick of %q: %v fellBack=%v, log %q; want the keyword pick, logged as an answer that was reasoning only", content, got, fellBack, log.String())
		}
	}
}
