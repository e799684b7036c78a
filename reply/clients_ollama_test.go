package reply

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/storage"
)

// chatLog keeps the bodies of the chat requests that go to the server.
type chatLog struct {
	mu     sync.Mutex
	bodies []string
	inner  http.RoundTripper
}

func (l *chatLog) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.URL.Path == "/api/chat" && r.Body != nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		l.mu.Lock()
		l.bodies = append(l.bodies, string(b))
		l.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	return l.inner.RoundTrip(r)
}

func (l *chatLog) with(token string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, b := range l.bodies {
		if strings.Contains(b, token) {
			out = append(out, b)
		}
	}
	return out
}

// TestRealServerClientsAtOnce: the real server, answering one request at a
// time (OLLAMA_NUM_PARALLEL=1), a microphone and three typed askers at
// once, twice each. Every question is answered; each request the server
// gets carries its own asker's words (its first question in the history
// of its second) and nobody else's; the queue has learned the server
// answers one at a time and is empty at the end. (That the reply budget
// leaves out the wait is TestOneAtATimeServer's: on a busy test machine
// this server's own speed varies too much to time it.)
func TestRealServerClientsAtOnce(t *testing.T) {
	shared, gguf, ctx := realOllama(t, "OLLAMA_NUM_PARALLEL=1")
	createTiny(t, ctx, shared, gguf, 8)
	wire := &chatLog{inner: http.DefaultTransport}
	client, err := llm.New(llm.Options{Host: shared.URL, Model: "hark-tiny", NumCtx: 2048, HTTPClient: &http.Client{Transport: wire}})
	if err != nil {
		t.Fatal(err)
	}
	k := llm.NewKeeper(llm.KeeperOptions{Server: client})
	defer k.Close()
	q := llm.NewQueue(llm.QueueOptions{})
	// The meter knows this server as slow as a busy test machine makes it.
	meter := cost.NewMeter()
	meter.Set(cost.Key(shared.URL.String(), "hark-tiny"), cost.Rates{Prompt: 40, Gen: 2, CharsPerToken: 4, Samples: 1})
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	eng, err := New(Options{Model: client, Info: client, AnswerTokens: -1, ModelName: "hark-tiny", Server: shared.URL.String(), Dialogue: db.Dialogue(),
		Location: time.UTC, Keeper: k, Queue: q, PlannerOff: true, Router: "keyword", Meter: meter})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	k.Load(eng.Warm)
	if err := k.Wait(ctx); err != nil {
		t.Fatal(err)
	}

	clients := []string{Microphone, "ask:a", "ask:b", "ask:c"}
	token := func(c string, round int) string {
		return fmt.Sprintf("tok%s%d", strings.NewReplacer(":", "", "microphone", "mic").Replace(c), round)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	errs := map[string]error{}
	for _, c := range clients {
		wg.Go(func() {
			for round := range 2 {
				var said []string
				_, err := eng.Reply(ctx, Query{Text: "tell me a story about a dog named " + token(c, round), Client: c}, func(s string) { said = append(said, s) })
				if err == nil && len(said) == 0 {
					err = fmt.Errorf("round %d: nothing said", round)
				}
				if err != nil {
					mu.Lock()
					errs[c] = err
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	for c, err := range errs {
		t.Errorf("%s: %v", c, err)
	}
	for _, c := range clients {
		bodies := wire.with(token(c, 1))
		if len(bodies) == 0 {
			t.Errorf("no request carried %s's second question", c)
		}
		for _, b := range bodies {
			if !strings.Contains(b, token(c, 0)) {
				t.Errorf("%s's second question went without its first in the history", c)
			}
			for _, o := range clients {
				if o != c && (strings.Contains(b, token(o, 0)) || strings.Contains(b, token(o, 1))) {
					t.Errorf("%s's request carries %s's words", c, o)
				}
			}
		}
	}
	s := q.Status()
	t.Logf("queue after: %+v", s)
	if s.Parallel != 1 || s.InFlight != 0 || s.Waiting != 0 {
		t.Errorf("queue after the turns: %+v; want one at a time, nothing under way", s)
	}
}
