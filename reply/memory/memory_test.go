package memory

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/storage"
)

type fixed struct {
	content string
	got     []llm.Request
}

func (f *fixed) Chat(_ context.Context, req llm.Request, _ func(llm.Chunk) error) (llm.Response, error) {
	f.got = append(f.got, req)
	return llm.Response{Message: llm.Message{Content: f.content}}, nil
}

func TestExtractAndSearch(t *testing.T) {
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	day := func(d int) time.Time { return time.Date(2026, 11, d, 9, 0, 0, 0, time.UTC) }
	db.Diary().Add(t.Context(), storage.DiaryEntry{Conversation: "a", Date: day(2), Summary: "Planned a Lisbon trip for April.", Keywords: []string{"lisbon", "trip"}})
	db.Diary().Add(t.Context(), storage.DiaryEntry{Conversation: "b", Date: day(15), Summary: "Booked the Lisbon hotel near Alfama.", Keywords: []string{"lisbon", "hotel"}})
	db.Facts().Add(t.Context(), "my Lisbon flight is on April 3rd", day(10))
	db.Facts().Add(t.Context(), "I am allergic to peanuts", day(11))

	model := &fixed{content: `{"keywords": ["Lisbon", "trip"], "from": "", "to": "", "questions": ["when is the trip"]}`}
	r := New(Options{Model: model, Diary: db.Diary(), Facts: db.Facts()})
	p, err := r.Extract(t.Context(), "when do I fly to Lisbon", "the Lisbon trip", "time: Sunday 22 November", day(22))
	if err != nil || len(p.Keywords) != 2 {
		t.Fatalf("params %+v, %v", p, err)
	}
	sys := model.got[0].Messages[0].Content
	if !strings.Contains(sys, "Today is Sunday 2026-11-22") || !strings.Contains(sys, "time: Sunday 22 November") || !strings.Contains(model.got[0].Messages[1].Content, "Topic: the Lisbon trip") {
		t.Errorf("extraction prompt %+v", model.got[0].Messages)
	}
	got, err := r.Search(t.Context(), p, time.UTC)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, s := range got {
		texts = append(texts, s.String())
	}
	want := "[2026-11-15] Booked the Lisbon hotel near Alfama.|[2026-11-10] The user said: my Lisbon flight is on April 3rd|[2026-11-02] Planned a Lisbon trip for April."
	if strings.Join(texts, "|") != want {
		t.Errorf("snippets\n%s\nwant\n%s", strings.Join(texts, "|"), want)
	}
	p.From = "2026-11-09"
	got, _ = r.Search(t.Context(), p, time.UTC)
	if len(got) != 2 {
		t.Errorf("with from: %d snippets, want 2", len(got))
	}
}

func TestCovered(t *testing.T) {
	results := []string{`{"status":"ok","message":"In Lisbon it's 18 degrees and sunny."}`}
	if Covered("how warm is it in Lisbon", results) { // one of how, warm, lisbon: under half
		t.Error("a query with a third of its words covered was gated")
	}
	if !Covered("Lisbon weather sunny", results) {
		t.Error("a query covered by the tool result was not gated")
	}
	if Covered("when is my dentist appointment", results) {
		t.Error("an unrelated query was gated")
	}
	if !Covered("Wetter in München heute", []string{"Das Wetter in München ist heute sonnig."}) {
		t.Error("non-English content words were not matched")
	}
	if Covered("anything", nil) {
		t.Error("gated with no tool results")
	}
}
