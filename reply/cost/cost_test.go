package cost

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMeterLearnsRatesFromCounters(t *testing.T) {
	m := NewMeter()
	key := Key("http://box:11434", "llama3.2:1b")
	if r := m.Rates(key); r.Known() || r != Prior {
		t.Fatalf("a model never heard from has the prior: %+v", r)
	}
	// 400 prompt tokens in 10 s, 30 generated in 2 s, 1,600 characters.
	m.Observe(key, Observation{PromptChars: 1600, PromptTokens: 400, PromptDuration: 10 * time.Second, OutputTokens: 30, EvalDuration: 2 * time.Second})
	r := m.Rates(key)
	if !r.Known() || r.Prompt != 40 || r.Gen != 15 || r.CharsPerToken != 4 {
		t.Fatalf("first answer: %+v, want 40 prompt/s, 15 gen/s, 4 chars/token", r)
	}
	// A second, faster answer moves the estimate part of the way.
	m.Observe(key, Observation{PromptChars: 1600, PromptTokens: 400, PromptDuration: 5 * time.Second, OutputTokens: 30, EvalDuration: time.Second})
	r = m.Rates(key)
	if r.Prompt <= 40 || r.Prompt >= 80 || r.Gen <= 15 || r.Gen >= 30 || r.Samples != 2 {
		t.Fatalf("second answer: %+v, want between the two", r)
	}
	// A sample far off (the model moved to a GPU) replaces the estimate.
	m.Observe(key, Observation{PromptChars: 1600, PromptTokens: 400, PromptDuration: 100 * time.Millisecond, OutputTokens: 20, EvalDuration: 100 * time.Millisecond})
	if r := m.Rates(key); r.Prompt != 4000 || r.Gen != 200 {
		t.Fatalf("a tenfold change: %+v, want the new rates outright", r)
	}
	if got := r.PromptTime(100); got < time.Second || got > 3*time.Second {
		t.Errorf("100 prompt tokens take %v at %.0f/s", got, r.Prompt)
	}
	if other := m.Rates(Key("http://box:11434", "qwen3:0.6b")); other.Known() {
		t.Error("rates are per model")
	}
}

func TestMeterIgnoresSamplesTooSmallToTell(t *testing.T) {
	m := NewMeter()
	m.Observe("k", Observation{PromptTokens: 5, PromptDuration: time.Millisecond, OutputTokens: 1, EvalDuration: time.Millisecond})
	if m.Rates("k").Known() {
		t.Fatal("a five-token prompt and a one-token answer teach no rate")
	}
	// Reused tokens are not counted as evaluated.
	m.Observe("k", Observation{PromptTokens: 500, Reused: 480, PromptDuration: time.Second, OutputTokens: 10, EvalDuration: time.Second})
	if r := m.Rates("k"); r.Prompt != Prior.Prompt || r.Gen != 10 {
		t.Fatalf("20 evaluated tokens teach no prompt rate: %+v", r)
	}
}

func TestPromptEstimatesCacheReuse(t *testing.T) {
	m := NewMeter()
	m.Set("k", Rates{Prompt: 40, Gen: 15, CharsPerToken: 4})
	stable := strings.Repeat("persona and tool protocol. ", 40)
	first := m.Prompt("k", stable+"[Now: 15:04] hello there")
	if first.Reused != 0 || first.Tokens != m.Rates("k").Tokens(len(stable)+24) {
		t.Fatalf("a cold prompt reuses nothing: %+v", first)
	}
	second := m.Peek("k", stable+"[Now: 15:05] how are you")
	if second.Reused < len(stable)/4 || second.Evaluated() > 10 {
		t.Fatalf("the stable prefix is reused: %+v", second)
	}
	m.Prompt("k", "a different system prompt "+stable)
	if e := m.Peek("k", stable+"[Now: 15:05] how are you"); e.Reused != 0 {
		t.Fatalf("another prompt in between evicted the prefix: %+v", e)
	}
	m.Forget("k")
	if e := m.Peek("k", "a different system prompt"); e.Reused != 0 {
		t.Fatalf("a forgotten cache reuses nothing: %+v", e)
	}
}

func TestPolicy(t *testing.T) {
	var p Policy
	for _, tt := range []struct {
		aux, chat time.Duration
		want      bool
	}{
		{300 * time.Millisecond, 100 * time.Millisecond, true}, // under the floor: always
		{2 * time.Second, 10 * time.Second, true},              // a fifth of the chat call
		{12 * time.Second, 7 * time.Second, false},             // the box's CPU: a planner costs more than the answer
		{time.Second, time.Second, false},
	} {
		if got := p.Worth(tt.aux, tt.chat); got != tt.want {
			t.Errorf("Worth(%v, %v) = %v, want %v", tt.aux, tt.chat, got, tt.want)
		}
	}
}

func TestOpenSavesAndRestores(t *testing.T) {
	path := filepath.Join(t.TempDir(), "model-rates.json")
	m, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	m.Observe("k", Observation{PromptChars: 1000, PromptTokens: 250, PromptDuration: 5 * time.Second, OutputTokens: 20, EvalDuration: time.Second})
	if err := m.Save(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := again.Rates("k"), m.Rates("k"); got != want {
		t.Fatalf("restored %+v, want %+v", got, want)
	}
	if err := os.WriteFile(path, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	damaged, err := Open(path)
	if err == nil || !strings.Contains(err.Error(), "damaged") || damaged == nil || damaged.Rates("k").Known() {
		t.Fatalf("a damaged file is said and the meter starts over: %v", err)
	}
}
