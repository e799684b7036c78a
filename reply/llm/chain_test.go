package llm

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
)

func chainOf(t testing.TB, servers ...*ollamatest.Server) *Chain {
	t.Helper()
	var eps []*Client
	for _, s := range servers {
		u, _ := url.Parse(s.URL)
		c, err := New(Options{Host: u, Model: small.Name})
		if err != nil {
			t.Fatal(err)
		}
		eps = append(eps, c)
	}
	c, err := NewChain(ChainOptions{Endpoints: eps})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func collect(t *testing.T, c *Chain) (string, []string, error) {
	var content strings.Builder
	var notices []string
	resp, err := c.Chat(t.Context(), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, func(ch Chunk) error {
		content.WriteString(ch.Content)
		if ch.Notice != "" {
			notices = append(notices, ch.Notice)
		}
		return nil
	})
	_ = resp
	return content.String(), notices, err
}

// TestChainFailsOverMidReply: the first server cuts its answer off; the
// second answers, after one sentence saying so; the first is then skipped
// (its circuit open) until a health check finds it up again.
func TestChainFailsOverMidReply(t *testing.T) {
	a, b := ollamatest.New(small), ollamatest.New(small)
	defer a.Close()
	defer b.Close()
	a.Enqueue(ollamatest.Reply{Content: "I was about to say", Fault: ollamatest.DropMidStream, DropAfter: 2})
	b.Respond(func(ollamatest.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{Content: "Hello from the backup."}
	})
	c := chainOf(t, a, b)
	content, notices, err := collect(t, c)
	if err != nil || !strings.HasSuffix(content, "Hello from the backup.") || !slices.Equal(notices, []string{Switched}) {
		t.Fatalf("content %q, notices %q, err %v", content, notices, err)
	}
	st := c.Status()
	if st[0].Up || !st[1].Up || !st[1].Answering {
		t.Errorf("status %+v: want the first down, the second answering", st)
	}
	if _, m := c.Current(); m != small.Name {
		t.Errorf("current model %q", m)
	}
	if host, _ := c.Next(); host.String() != b.URL {
		t.Errorf("the next request goes to %v, want the second server %s", host, b.URL)
	}
	// The open circuit: the next request goes straight to the second.
	before := len(a.Requests())
	if _, notices, err := collect(t, c); err != nil || len(notices) != 0 || len(a.Requests()) != before {
		t.Errorf("the failed server was asked again (%d requests), notices %q, err %v", len(a.Requests())-before, notices, err)
	}
	// A health check finds the first up again, and it answers again.
	a.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "Back."} })
	c.CheckNow(t.Context())
	if content, _, err := collect(t, c); err != nil || content != "Back." {
		t.Errorf("after the check: %q, %v", content, err)
	}
}

// TestChainFailsOverWhenTheServerFails: whatever way the first server
// fails, before or during its answer, the second answers, after a sentence
// saying so when the first had begun; a refusal of the request itself goes
// back to the caller, as another server would refuse it too.
func TestChainFailsOverWhenTheServerFails(t *testing.T) {
	for _, tt := range []struct {
		name     string
		fault    ollamatest.Reply
		failover bool
		notices  []string
	}{
		{"connection cut mid-answer", ollamatest.Reply{Content: "I was about to say", Fault: ollamatest.DropMidStream, DropAfter: 2}, true, []string{Switched}},
		{"model runner dies mid-answer", ollamatest.Reply{Content: "I was about to say", Fault: ollamatest.StreamError, DropAfter: 2,
			Error: "llama runner process has terminated: signal: killed"}, true, []string{Switched}},
		{"server error before the answer", ollamatest.Reply{Fault: ollamatest.ServerError, Error: "llama runner process has terminated"}, true, nil},
		{"request refused", ollamatest.Reply{Fault: ollamatest.BadRequest, Error: "invalid format"}, false, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := ollamatest.New(small), ollamatest.New(small)
			defer a.Close()
			defer b.Close()
			a.Enqueue(tt.fault)
			b.Respond(func(ollamatest.ChatRequest) ollamatest.Reply {
				return ollamatest.Reply{Content: "Hello from the backup."}
			})
			c := chainOf(t, a, b)
			content, notices, err := collect(t, c)
			switch {
			case !tt.failover:
				if err == nil || len(b.Chats()) != 0 || !c.Status()[0].Up {
					t.Errorf("err %v, %d chats to the backup, status %+v: want the refusal back, the first server up", err, len(b.Chats()), c.Status())
				}
			case err != nil || !strings.HasSuffix(content, "Hello from the backup.") || !slices.Equal(notices, tt.notices):
				t.Errorf("content %q, notices %q, err %v: want the backup's answer, notices %q", content, notices, err, tt.notices)
			case c.Status()[0].Up:
				t.Errorf("status %+v: want the failed server down", c.Status())
			}
		})
	}
}

// TestChainDeadServerCostsNothing: a server that is gone fails the first
// request over at once and is not tried again while its circuit is open;
// when every server is down, the error names the last failure.
func TestChainDeadServerCostsNothing(t *testing.T) {
	a, b := ollamatest.New(small), ollamatest.New(small)
	b.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "Backup."} })
	defer b.Close()
	c := chainOf(t, a, b)
	a.Close()
	began := time.Now()
	if content, notices, err := collect(t, c); err != nil || content != "Backup." || len(notices) != 0 {
		t.Fatalf("%q %q %v: a failure before the answer began switches silently", content, notices, err)
	}
	first := time.Since(began)
	began = time.Now()
	collect(t, c)
	second := time.Since(began)
	t.Logf("switching past a dead server: %v; with its circuit open: %v", first, second)
	if c.Status()[0].Up {
		t.Error("the dead server is not marked down")
	}
	b.Close()
	if _, _, err := collect(t, c); err == nil || !strings.Contains(err.Error(), "every model server failed") {
		t.Errorf("all down: %v", err)
	}
}

// TestChainSkipsAServerThatSaysNothing: a server whose model hangs takes
// every request and says nothing, while it answers its version. Each
// question's budget ends in silence (the caller's cause says so); after
// two in a row the next question goes to the backup. The health check
// does not bring it back while its model still says nothing, and does
// once it answers again.
func TestChainSkipsAServerThatSaysNothing(t *testing.T) {
	a, b := ollamatest.New(small), ollamatest.New(small)
	defer a.Close()
	defer b.Close()
	hung := func(ollamatest.ChatRequest) ollamatest.Reply {
		return ollamatest.Reply{Content: "Late.", FirstTokenDelay: time.Hour}
	}
	a.Respond(hung)
	b.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "Backup."} })
	c := chainOf(t, a, b)
	c.o.Check = 300 * time.Millisecond
	ask := func() error {
		ctx, cancel := context.WithTimeoutCause(t.Context(), 100*time.Millisecond, Stalled(errors.New("nothing within the budget")))
		defer cancel()
		_, err := c.Chat(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, func(Chunk) error { return nil })
		return err
	}
	for i := range 2 {
		if err := ask(); err == nil || len(b.Chats()) != 0 {
			t.Fatalf("question %d: err %v, %d chats to the backup: want the budget's end, on the first server", i+1, err, len(b.Chats()))
		}
	}
	if err := ask(); err != nil || len(b.Chats()) != 1 {
		t.Fatalf("third question: err %v, %d chats to the backup: want the backup's answer", err, len(b.Chats()))
	}
	if st := c.Status(); st[0].Up || !strings.Contains(st[0].Err, "said nothing") {
		t.Errorf("status %+v: want the silent server down, saying why", st)
	}
	c.CheckNow(t.Context())
	if st := c.Status(); st[0].Up || !strings.Contains(st[0].Err, "still says nothing") {
		t.Errorf("after a health check of the hung server: %+v, want it still down", st)
	}
	a.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return ollamatest.Reply{Content: "Back."} })
	c.CheckNow(t.Context())
	if content, _, err := collect(t, c); err != nil || content != "Back." {
		t.Errorf("after it answered a health check: %q, %v; status %+v", content, err, c.Status())
	}
}

// TestChainCountsOnlySilence: a server is never blamed for a question the
// user cut short (a barge-in), for a deadline of the caller's that says
// nothing of silence, nor for a budget that ran out after it began its
// answer; and an answer clears what silence it was blamed for.
func TestChainCountsOnlySilence(t *testing.T) {
	stalled := Stalled(errors.New("nothing within the budget"))
	for _, tt := range []struct {
		name  string
		reply ollamatest.Reply
		end   func(context.Context) (context.Context, context.CancelFunc)
	}{
		{"barge-in", ollamatest.Reply{Content: "Late.", FirstTokenDelay: time.Hour}, func(ctx context.Context) (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(ctx)
			time.AfterFunc(100*time.Millisecond, cancel)
			return ctx, cancel
		}},
		{"a plain deadline", ollamatest.Reply{Content: "Late.", FirstTokenDelay: time.Hour}, func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeout(ctx, 100*time.Millisecond)
		}},
		{"silence after the first words", ollamatest.Reply{Content: "I began and then", TokenDelay: time.Hour}, func(ctx context.Context) (context.Context, context.CancelFunc) {
			return context.WithTimeoutCause(ctx, 100*time.Millisecond, stalled)
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := ollamatest.New(small), ollamatest.New(small)
			defer a.Close()
			defer b.Close()
			a.Respond(func(ollamatest.ChatRequest) ollamatest.Reply { return tt.reply })
			c := chainOf(t, a, b)
			for range 3 {
				ctx, cancel := tt.end(t.Context())
				_, err := c.Chat(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, func(Chunk) error { return nil })
				cancel()
				if err == nil {
					t.Fatal("the question was answered")
				}
			}
			if st := c.Status(); !st[0].Up || len(b.Chats()) != 0 {
				t.Errorf("status %+v, %d chats to the backup: want the first server up and asked", st, len(b.Chats()))
			}
		})
	}
	t.Run("an answer between silences", func(t *testing.T) {
		a, b := ollamatest.New(small), ollamatest.New(small)
		defer a.Close()
		defer b.Close()
		a.Enqueue(ollamatest.Reply{FirstTokenDelay: time.Hour}, ollamatest.Reply{Content: "Here."}, ollamatest.Reply{FirstTokenDelay: time.Hour})
		c := chainOf(t, a, b)
		for range 3 {
			ctx, cancel := context.WithTimeoutCause(t.Context(), 100*time.Millisecond, stalled)
			c.Chat(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, func(Chunk) error { return nil })
			cancel()
		}
		if st := c.Status(); !st[0].Up {
			t.Errorf("status %+v: two silences with an answer between are not in a row", st)
		}
	})
}

var _ interface {
	Chat(context.Context, Request, func(Chunk) error) (Response, error)
	Show(context.Context, string) (ModelInfo, error)
} = (*Chain)(nil)
