package planner

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/llm"
)

var tools = []Tool{{"get_weather", "Weather."}, {"set_timer", "Timer."}}

func TestParse(t *testing.T) {
	p := Parse([]string{"memory: the user's trip plans", "get_weather: forecast for Lisbon", "reply"}, tools)
	if !p.WantsMemory() || p.Topic() != "the user's trip plans" || len(p.Tools()) != 1 || p.Tools()[0] != "get_weather" || p.ReplyOnly() {
		t.Errorf("plan %+v", p)
	}
	if p := Parse([]string{"Reply to the user."}, tools); !p.ReplyOnly() || p.Block() != "" {
		t.Errorf("reply-only %+v", p)
	}
	if p := Parse([]string{"get_weather: Paris"}, tools); len(p.Steps) != 2 || !p.Steps[1].Reply {
		t.Errorf("a final reply step is added: %+v", p)
	}
	if p := Parse([]string{"a", "b", "c", "d", "e", "f", "g"}, tools); len(p.Steps) != MaxSteps {
		t.Errorf("%d steps, want at most %d", len(p.Steps), MaxSteps)
	}
	if p := Parse([]string{"teleport: home", "reply"}, tools); len(p.Tools()) != 0 {
		t.Errorf("an unknown tool was taken: %+v", p.Tools())
	}
	want := "Plan for this answer (follow it in order):\n1. get_weather: Paris\n2. reply"
	if got := Parse([]string{"get_weather: Paris", "reply"}, tools).Block(); got != want {
		t.Errorf("block %q", got)
	}
}

type answer struct {
	content string
	err     error
	delay   time.Duration
	got     []llm.Request
}

func (a *answer) Chat(ctx context.Context, req llm.Request, _ func(llm.Chunk) error) (llm.Response, error) {
	a.got = append(a.got, req)
	select {
	case <-time.After(a.delay):
	case <-ctx.Done():
		return llm.Response{}, ctx.Err()
	}
	return llm.Response{Message: llm.Message{Content: a.content}}, a.err
}

func TestPlanFailsOpen(t *testing.T) {
	for name, a := range map[string]*answer{
		"error":     {err: errors.New("boom")},
		"malformed": {content: "I think you should reply."},
		"timeout":   {content: `{"steps":["reply"]}`, delay: time.Second},
	} {
		pl := New(Options{Model: a, Timeout: 50 * time.Millisecond})
		p, err := pl.Plan(t.Context(), "what is the weather tomorrow", "", tools)
		if !p.Empty() || err == nil {
			t.Errorf("%s: plan %+v, err %v; want empty with the error", name, p, err)
		}
	}
	a := &answer{content: `{"steps":["reply"]}`}
	if p, err := New(Options{Model: a}).Plan(t.Context(), "hi there", "", tools); !p.Empty() || err != nil || len(a.got) != 0 {
		t.Errorf("a short query was planned: %+v %v", p, err)
	}
}
