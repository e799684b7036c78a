package reply

import (
	"errors"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
)

// silentServer accepts connections and never answers, like a model server
// that has hung; it counts the requests it was sent.
type silentServer struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newSilentServer(t *testing.T) *silentServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &silentServer{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns = append(s.conns, c)
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		s.mu.Lock()
		defer s.mu.Unlock()
		for _, c := range s.conns {
			c.Close()
		}
	})
	return s
}

// TestBudgetSilentServer: a server that accepts and never answers costs the
// user one reply budget of silence, then a sentence that says so; the
// planner's timeout is the only auxiliary one, the others are skipped.
func TestBudgetSilentServer(t *testing.T) {
	srv := newSilentServer(t)
	client, err := llm.New(llm.Options{Host: &url.URL{Scheme: "http", Host: srv.ln.Addr().String()}, Model: "llama3.2:1b"})
	if err != nil {
		t.Fatal(err)
	}
	const budget = 800 * time.Millisecond
	f := newFixture(t, smallModel, Options{Model: client, Aux: client, Info: client, ReplyBudget: budget})
	start := time.Now()
	res, said, err := f.ask(t, "who wrote the novel Dune and when was it published")
	took := time.Since(start)
	if !errors.Is(err, ErrTooSlow) {
		t.Fatalf("err %v, want ErrTooSlow", err)
	}
	if len(said) != 1 || !strings.Contains(said[0], "taking too long") {
		t.Errorf("said %q, want one sentence that the model is taking too long", said)
	}
	// The defaults would be 6+8+8+60 s of silence; the budget bounds it.
	// The margin is for a loaded machine, not a speed target.
	if took > budget+5*time.Second {
		t.Errorf("the reply took %v with a %v budget", took, budget)
	}
	if res.Timings.ModelCalls > 2 {
		t.Errorf("%d model calls: after the first auxiliary timeout the others must be skipped", res.Timings.ModelCalls)
	}
	if !strings.Contains(f.log.String(), "timed out") {
		t.Errorf("the log does not name the timeout:\n%s", f.log.String())
	}
}

// TestBudgetSlowFirstWords: the aux calls answer but the chat model takes
// longer than the budget to say anything.
func TestBudgetSlowFirstWords(t *testing.T) {
	f := newFixture(t, smallModel, Options{ReplyBudget: 600 * time.Millisecond})
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).
		on(kindChat, ollamatest.Reply{Content: "Much too late.", FirstTokenDelay: 20 * time.Second})
	_, said, err := f.ask(t, "hello there my friend")
	if !errors.Is(err, ErrTooSlow) || len(said) != 1 || !strings.Contains(said[0], "taking too long") {
		t.Errorf("said %q, err %v", said, err)
	}
}

// TestBudgetDoesNotCutASpokenReply: once a sentence is said, the budget no
// longer applies; a slow rest of the answer is not cut by it.
func TestBudgetDoesNotCutASpokenReply(t *testing.T) {
	f := newFixture(t, smallModel, Options{ReplyBudget: 400 * time.Millisecond})
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).
		on(kindChat, ollamatest.Reply{Content: "First sentence. Then a slow second one.", TokenDelay: 150 * time.Millisecond})
	_, said, err := f.ask(t, "hello there my friend")
	if err != nil || len(said) != 2 {
		t.Errorf("said %q, err %v: the budget must not cut a reply that has begun", said, err)
	}
}

// TestSilenceAfterTheFirstSentence: once a sentence is said, a model that
// then says nothing for the reply budget is given up on with the
// apology, not waited for until the chat's whole timeout.
func TestSilenceAfterTheFirstSentence(t *testing.T) {
	f := newFixture(t, smallModel, Options{ReplyBudget: 300 * time.Millisecond, ChatTimeout: time.Minute})
	gate := make(chan struct{})
	defer close(gate)
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).
		on(kindChat, ollamatest.Reply{Content: "First sentence here. Then the server stalls for good.", Gate: gate, GateAfter: 5})
	began := time.Now()
	_, said, err := f.ask(t, "hello there my friend")
	took := time.Since(began)
	if !errors.Is(err, ErrTooSlow) || len(said) != 2 || said[0] != "First sentence here." || !strings.Contains(said[1], "taking too long") {
		t.Errorf("said %q, err %v; want the first sentence, then the apology", said, err)
	}
	if took > 10*time.Second {
		t.Errorf("the apology came after %v; want it one reply budget after the stall", took)
	}
	t.Logf("figure: a model stalled after its first sentence: apology after %v (budget 300 ms)", took.Round(time.Millisecond))
}

// TestChatTimeoutIsNamed: a chat that times out after its headers is a
// timeout, not a lost connection.
func TestChatTimeoutIsNamed(t *testing.T) {
	f := newFixture(t, smallModel, Options{ChatTimeout: 300 * time.Millisecond, ReplyBudget: 10 * time.Second})
	f.model.json(kindPlanner, `{"steps": ["reply"]}`).
		on(kindChat, ollamatest.Reply{Content: "one two three four five six seven", TokenDelay: 200 * time.Millisecond})
	_, said, err := f.ask(t, "hello there my friend")
	if err == nil || strings.Contains(strings.Join(said, " "), "lost the connection") || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("said %q, err %v: want the timeout named", said, err)
	}
}
