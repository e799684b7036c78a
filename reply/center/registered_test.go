package center

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/command"
)

// TestTheSameToolsAreKeptOnce: a Jarvis node starts every request with
// its client tools, the same ones each time, up to a MiB of them. The
// center keeps them once, not at every start: the card is not written a
// MiB five times a second by a node that sends the same start again and
// again. Other tools are kept again.
func TestTheSameToolsAreKeptOnce(t *testing.T) {
	mem := &sealedWatch{memSettings: newMemSettings()}
	keys := NewKeys(mem)
	cred, err := keys.Add(t.Context(), "kitchen")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(Options{Keys: keys, ServerTools: func(*time.Location) []*command.Command { return nil },
		Engine: func(Conversation) (*reply.Engine, error) { return nil, errors.New("unused") }})
	if err != nil {
		t.Fatal(err)
	}
	srv.engines = func(c Conversation) (engine, error) { return noting{c.Commands}, nil }
	defer srv.Close(t.Context())
	h := srv.Handler()
	start := func(conv string, tools ...map[string]any) {
		t.Helper()
		b, _ := json.Marshal(jarvisStart(conv, tools...))
		if code, body := post(h, cred, PathStart, string(b)); code != http.StatusOK {
			t.Fatalf("start %s: %d %s", conv, code, body)
		}
	}
	written := func() int {
		n := 0
		for key := range mem.everWritten() {
			if strings.HasPrefix(key, toolsPrefix) {
				n++
			}
		}
		return n
	}
	for i := range 5 {
		start("7c1e2d3f-0000-4c6d-8e9f-00000000000"+string(rune('0'+i)), timerTool())
	}
	if n := written(); n != 1 {
		t.Errorf("the same tools at 5 starts were written %d times; want once", n)
	}
	var last registered
	if ok, err := mem.Get(t.Context(), toolsPrefix+"kitchen", &last); !ok || err != nil || len(last.Tools) != 1 {
		t.Errorf("the tools kept: %+v (%v, %v); want the timer", last, ok, err)
	}
	start("7c1e2d3f-0000-4c6d-8e9f-000000000009")
	if n := written(); n != 2 {
		t.Errorf("other tools (none) after the same ones: written %d times in all; want twice", n)
	}
	start("7c1e2d3f-0000-4c6d-8e9f-00000000000a", timerTool())
	if n := written(); n != 3 {
		t.Errorf("the timer again after none: written %d times in all; want 3", n)
	}
}
