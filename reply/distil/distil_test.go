package distil

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/llm"
)

// script answers each call with the next answer and records the prompts.
type script struct {
	answers []string
	got     []llm.Request
	err     error
}

func (s *script) Chat(_ context.Context, req llm.Request, _ func(llm.Chunk) error) (llm.Response, error) {
	s.got = append(s.got, req)
	if s.err != nil {
		return llm.Response{}, s.err
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return llm.Response{Message: llm.Message{Content: a}}, nil
}

func TestIsNone(t *testing.T) {
	for _, s := range []string{"NONE", "none.", "(NONE)", "[NONE]", "N/A", " **None** ", "Nothing relevant."} {
		if !IsNone(s) {
			t.Errorf("IsNone(%q) = false", s)
		}
	}
	for _, s := range []string{"None of the snippets mention it, but the user likes tea.", "The user is in Berlin."} {
		if IsNone(s) {
			t.Errorf("IsNone(%q) = true", s)
		}
	}
}

func TestMemoryDigest(t *testing.T) {
	short := []string{"[2026-11-01] Likes tea."}
	s := &script{}
	got, err := (&Distiller{Model: s}).Memory(t.Context(), "what do I drink", short)
	if err != nil || got != short[0] || len(s.got) != 0 {
		t.Errorf("under 400 chars: %q %v, %d calls; want it passed through", got, err, len(s.got))
	}
	var long []string
	for i := range 12 {
		long = append(long, "[2026-11-01] "+strings.Repeat("word ", 50)+string(rune('a'+i)))
	}
	s = &script{answers: []string{"The user drinks tea. " + strings.Repeat("x", 600), "(NONE)"}}
	got, err = (&Distiller{Model: s}).Memory(t.Context(), "what do I drink", long)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.got) != 2 {
		t.Errorf("%d calls for 12 snippets of ~260 chars, want 2 batches of at most 2000", len(s.got))
	}
	for _, r := range s.got {
		if n := len(r.Messages[1].Content); n > MemoryBatch+200 {
			t.Errorf("a batch of %d characters", n)
		}
	}
	if len([]rune(got)) > MemoryNote || !strings.HasPrefix(got, "The user drinks tea.") || strings.Contains(got, "NONE") {
		t.Errorf("digest %q: want the first note cut to %d and the NONE batch dropped", got, MemoryNote)
	}
	if sys := s.got[0].Messages[0].Content; !strings.Contains(sys, "newest one is right") || !strings.Contains(sys, "recommendation") || !strings.Contains(sys, "knows about the user") {
		t.Errorf("memory prompt lacks a rule:\n%s", sys)
	}
}

func TestToolDigest(t *testing.T) {
	d := &Distiller{Model: &script{}}
	if note, raw, _ := d.Tool(t.Context(), "q", "get_weather", "short"); note != "short" || !raw {
		t.Errorf("short result: %q raw=%v", note, raw)
	}
	page := strings.Repeat("Paragraph about Possessor, a 2020 film.\n\n", 120) // ~5 KB
	s := &script{answers: []string{"According to the web_search tool, Possessor is a 2020 film.", "NONE", "NONE"}}
	note, raw, err := (&Distiller{Model: s}).Tool(t.Context(), "what is Possessor", "web_search", page)
	if err != nil || raw || !strings.HasPrefix(note, "According to") {
		t.Errorf("note %q raw=%v err=%v", note, raw, err)
	}
	if len(s.got) < 2 {
		t.Errorf("%d calls for a 5 KB result, want it split", len(s.got))
	}
	s = &script{answers: []string{"NONE", "NONE", "NONE"}}
	note, raw, _ = (&Distiller{Model: s}).Tool(t.Context(), "q", "t", page)
	if note != page || !raw {
		t.Error("an all-NONE digest did not keep the raw payload")
	}
	s = &script{err: errors.New("down")}
	if note, raw, err := (&Distiller{Model: s}).Tool(t.Context(), "q", "t", page); err == nil || note != page || !raw {
		t.Error("a failed digest did not keep the raw payload")
	}
}

func TestDiary(t *testing.T) {
	s := &script{answers: []string{"```json\n{\"summary\": \"Talked about Lisbon.\", \"keywords\": [\"lisbon\"]}\n```"}}
	sum, kw, err := (&Distiller{Model: s}).Diary(t.Context(), []string{"User: hi", "Assistant: hello"})
	if err != nil || sum != "Talked about Lisbon." || len(kw) != 1 {
		t.Errorf("%q %v %v", sum, kw, err)
	}
}
