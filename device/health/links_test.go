package health

import (
	"errors"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/llm"
)

func TestModelReadiness(t *testing.T) {
	now := time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		r    llm.Readiness
		want string
	}{
		{llm.Readiness{Model: "llama3.2:3b", Phase: llm.Loading, Since: now.Add(-12 * time.Second)}, "llama3.2:3b loading for 12 s"},
		{llm.Readiness{Model: "llama3.2:3b", Phase: llm.Ready, Since: now, Load: 13200 * time.Millisecond, Prompt: 6800 * time.Millisecond, Warmed: now},
			"llama3.2:3b ready (load 13.2 s, system prompt 6.8 s)"},
		{llm.Readiness{Model: "llama3.2:3b", Phase: llm.Ready, Since: now}, "llama3.2:3b ready"},
		{llm.Readiness{Model: "llama3.2:3b", Phase: llm.Cold, Since: now}, "llama3.2:3b not loaded"},
		{llm.Readiness{Model: "llama3.2:3b", Phase: llm.Unknown, Since: now, Err: errors.New("connection refused")}, "llama3.2:3b unknown: connection refused"},
	} {
		m := ModelReadiness(tc.r, now)
		if got := m.String(); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.r.Phase, got, tc.want)
		}
		if m.State != tc.r.Phase.String() || m.LoadMs != tc.r.Load.Milliseconds() {
			t.Errorf("%v: fields %+v", tc.r.Phase, m)
		}
	}
}

func TestQueueState(t *testing.T) {
	q := QueueState(llm.QueueStatus{Parallel: 1, Learned: true, InFlight: 1, Waiting: 2,
		Spoken: llm.Waits{Turns: 5, P50: 400 * time.Millisecond, P95: 1200 * time.Millisecond, Longest: 1300 * time.Millisecond},
		Asked:  llm.Waits{Turns: 40, P50: 2100 * time.Millisecond, P95: 6 * time.Second}})
	want := "1 at a time (learned); 1 answering, 2 waiting; spoken waited p50 0.4 s, p95 1.2 s (5 turns); typed waited p50 2.1 s, p95 6.0 s (40 turns)"
	if got := q.String(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if q.Spoken.LongestMs != 1300 {
		t.Errorf("%+v", q.Spoken)
	}
}
