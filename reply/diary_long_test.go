package reply

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/harkbox/hark/reply/distil"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/storage"
)

// partDiary makes f's model answer each diary call with a summary that
// names its number ("Part 2."), and records what each was given; while
// failing reports true for a call's number, that call fails as a model
// server that restarts does.
func partDiary(f *fixture, failing func(n int) bool) (prompts func() []string) {
	var mu sync.Mutex
	var seen []string
	f.srv.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
		if kindOf(r) != kindDiary {
			return f.model.respond(r)
		}
		mu.Lock()
		seen = append(seen, r.Messages[len(r.Messages)-1].Content)
		n := len(seen)
		mu.Unlock()
		if failing != nil && failing(n) {
			return ollamatest.Reply{Fault: ollamatest.ServerError, Error: "llama runner process has terminated"}
		}
		return ollamatest.Reply{Content: fmt.Sprintf(`{"summary": "Part %d.", "keywords": ["part%d"]}`, n, n)}
	})
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// talked stores a conversation of n exchanges a minute apart, each
// within the lapse of the next, that ended an hour before the clock, and
// returns them.
func talked(t *testing.T, f *fixture, id string, n int) []storage.Exchange {
	t.Helper()
	start := clock.Add(-time.Hour - time.Duration(n)*time.Minute)
	var xs []storage.Exchange
	for i := range n {
		x := storage.Exchange{At: start.Add(time.Duration(i) * time.Minute), Conversation: id, Client: Microphone,
			User:      fmt.Sprintf("item%03d: what should we plant along the garden fence this spring", i),
			Assistant: "Lavender and rosemary would do well there: both like the sun and need little water."}
		if err := f.db.Dialogue().Append(t.Context(), x); err != nil {
			t.Fatal(err)
		}
		xs = append(xs, x)
	}
	return xs
}

// A long conversation's first entry covers all of it: its start and its
// end reach the model, in parts each given the summary so far, never
// cut by the prompt's bound, in a bounded number of calls.
func TestDiaryEntryOfALongConversationCoversItAll(t *testing.T) {
	for _, c := range []struct {
		n     int
		every bool // each exchange reaches the model
	}{
		{n: 3, every: true},    // one call, as ever
		{n: 60, every: true},   // more than one prompt holds
		{n: 260, every: false}, // more than the parts hold whole
	} {
		t.Run(fmt.Sprint(c.n), func(t *testing.T) {
			f := newFixture(t, smallModel, Options{PlannerOff: true})
			prompts := partDiary(f, nil)
			xs := talked(t, f, "long", c.n)
			if err := f.eng.CatchUp(t.Context()); err != nil {
				t.Fatal(err)
			}
			got := prompts()
			if len(got) == 0 || len(got) > diaryParts {
				t.Fatalf("%d diary calls for one entry, want 1 to %d", len(got), diaryParts)
			}
			for i, p := range got {
				if n := utf8.RuneCountInString(p); n > distil.DiaryPrompt {
					t.Errorf("call %d was given %d characters, more than the %d the model reads", i+1, n, distil.DiaryPrompt)
				}
				if i > 0 && !strings.HasPrefix(p, diaryEarlier+fmt.Sprintf("Part %d.", i)) {
					t.Errorf("call %d begins %.80q; want the summary so far", i+1, p)
				}
			}
			if first := "User: item000"; !strings.Contains(got[0], first) {
				t.Errorf("the first call was not given the conversation's start %q: %.200q", first, got[0])
			}
			if last := fmt.Sprintf("User: item%03d", c.n-1); !strings.Contains(got[len(got)-1], last) {
				t.Errorf("the last call was not given the conversation's end %q: ...%q", last, got[len(got)-1][max(0, len(got[len(got)-1])-200):])
			}
			if c.every {
				all := strings.Join(got, "\n")
				for i := range c.n {
					if w := fmt.Sprintf("User: item%03d", i); strings.Count(all, w) != 1 {
						t.Errorf("%q given %d times, want once", w, strings.Count(all, w))
					}
				}
			}
			e, ok := entryOf(t, f, "long")
			if !ok {
				t.Fatal("no entry")
			}
			if !e.Date.Equal(xs[0].At) || !e.Through.Equal(xs[c.n-1].At) {
				t.Errorf("the entry is dated %v through %v, want %v through %v", e.Date, e.Through, xs[0].At, xs[c.n-1].At)
			}
			if want := fmt.Sprintf("Part %d.", len(got)); e.Summary != want || !found(t, f, "part1", "long") {
				t.Errorf("the entry is %+v; want the last part's summary, and the first part's keywords kept", e)
			}
		})
	}
}

// A long conversation's entry that fails half way keeps what was done:
// the parts written stand, and the next try summarises only the rest,
// from the summary so far.
func TestDiaryEntryOfALongConversationKeepsItsParts(t *testing.T) {
	c := &settable{now: clock}
	f := newFixture(t, smallModel, Options{PlannerOff: true, Now: c.Now})
	prompts := partDiary(f, func(n int) bool { return n == 2 })
	xs := talked(t, f, "long", 60)
	if err := f.eng.CatchUp(t.Context()); err == nil {
		t.Fatal("CatchUp did not fail with the model")
	}
	e, ok := entryOf(t, f, "long")
	if !ok || e.Summary != "Part 1." || !e.Date.Equal(xs[0].At) || !e.Through.Before(xs[len(xs)-1].At) {
		t.Fatalf("after a failure in the second part the entry is %+v (%v); want the first part's", e, ok)
	}
	cut := strings.Count(prompts()[0], "User: ")
	c.pass(2 * time.Minute) // past the retry
	if err := f.eng.CatchUp(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := prompts()[2:]
	if len(got) == 0 || !strings.HasPrefix(got[0], diaryEarlier+"Part 1.") || strings.Contains(got[0], "User: item000") ||
		!strings.Contains(got[0], fmt.Sprintf("User: item%03d", cut)) {
		t.Errorf("the next try began with %.120q; want the first part's summary and the exchanges after it", got)
	}
	if e, _ := entryOf(t, f, "long"); !e.Through.Equal(xs[len(xs)-1].At) || !e.Date.Equal(xs[0].At) {
		t.Errorf("the entry is %+v; want it to cover the conversation to its end", e)
	}
}

// However long the conversation, or one answer in it, an entry takes
// diaryParts calls at most, each within the prompt's bound, and the
// model reads the conversation's start and its end.
func TestDiaryPlanIsBounded(t *testing.T) {
	long := func(n int, answer string) []storage.Exchange {
		xs := make([]storage.Exchange, n)
		for i := range xs {
			xs[i] = storage.Exchange{User: fmt.Sprintf("item%04d: and then?", i), Assistant: answer}
		}
		return xs
	}
	for _, c := range []struct {
		name string
		xs   []storage.Exchange
	}{
		{"a thousand exchanges", long(1000, "Then the next thing, and the one after.")},
		{"one long answer", long(1, strings.Repeat("a word ", 3000))},
		{"long answers", long(30, strings.Repeat("ein Wort ", 300))},
	} {
		t.Run(c.name, func(t *testing.T) {
			parts := diaryPlan(strings.Repeat("So far. ", 200), c.xs)
			if len(parts) == 0 || len(parts) > diaryParts {
				t.Fatalf("%d parts, want 1 to %d", len(parts), diaryParts)
			}
			for i, p := range parts {
				if n := runes(strings.Join(p.prompt(strings.Repeat("So far. ", 200)), "\n")); n > distil.DiaryPrompt {
					t.Errorf("part %d is %d characters, more than %d", i+1, n, distil.DiaryPrompt)
				}
			}
			first, last := parts[0].lines[0], parts[len(parts)-1]
			if !strings.HasPrefix(first, "User: item0000") || last.last != len(c.xs)-1 ||
				!strings.HasPrefix(last.lines[len(last.lines)-2], fmt.Sprintf("User: item%04d", len(c.xs)-1)) {
				t.Errorf("the parts begin with %.40q and end with %.40q (through %d); want the start and the end", first, last.lines[len(last.lines)-2], last.last)
			}
		})
	}
}
