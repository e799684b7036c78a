package center

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/netfault"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// Network faults between a node and its center, through a TCP proxy that
// fails as a household's network does. Budgets are short so the tests are;
// what they check is which budget ends the wait, and what is said.

// behind puts a fault proxy between node n and center c, with budget.
func behind(t *testing.T, c *centerSide, n *nodeSide, budget time.Duration) *netfault.Proxy {
	t.Helper()
	u, _ := url.Parse(c.http.URL)
	p := netfault.New(t, u.Host)
	cl := n.node.o.Client
	cl.base.Host = p.Addr
	n.node.o.Budget = budget
	return p
}

// reply asks n and returns what it said, how long it took and the error.
func (n *nodeSide) reply(ctx context.Context, text string) ([]string, time.Duration, error) {
	n.said = nil
	began := time.Now()
	_, err := n.node.Reply(ctx, text, func(s string) { n.said = append(n.said, s) })
	return n.said, time.Since(began), err
}

// A blackholed center while the node starts its conversation: the
// apology comes when the budget ends, not after the request's own 2
// minutes (conversation/start was outside the budget), and the link shows
// down.
func TestBlackholedCenterAtConversationStart(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := newNode(t, c, "attic")
	p := behind(t, c, n, 300*time.Millisecond)
	p.Set(netfault.Blackhole)
	said, took, err := n.reply(t.Context(), "tell me about the moon and its seas")
	if !errors.Is(err, ErrTooSlow) || !slices.Equal(said, []string{TooSlow}) {
		t.Errorf("err %v, said %q; want the budget's apology", err, said)
	}
	if took > 3*time.Second {
		t.Errorf("the apology came after %v; want it at the 300 ms budget", took)
	}
	t.Logf("figure: blackholed center at conversation start: apology after %v (budget 300 ms)", took.Round(time.Millisecond))
	if l := n.node.Link(); l.Up || !strings.Contains(l.Err, "budget") {
		t.Errorf("link %+v; want it down, timing out", l)
	}
	// The next question, the center still blackholed: a short look, not
	// a whole budget.
	said, took, _ = n.reply(t.Context(), "and what about mars then")
	if !slices.Equal(said, []string{Unreachable}) || took > pingBudget+time.Second {
		t.Errorf("the next question: said %q after %v; want the unreachable sentence within the %v look", said, took, pingBudget)
	}
}

// A center that says its first sentence and then nothing (here a center
// that streams one sentence and stalls): the budget counts each silence,
// so the apology follows the first sentence by one budget, not the
// request's 2 minutes.
func TestSilenceAfterTheFirstSentence(t *testing.T) {
	stalled := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case PathStart:
			writeJSON(w, http.StatusOK, StartResponse{Status: "success"})
		case PathCommand:
			w.Header().Set("Content-Type", NDJSON)
			json.NewEncoder(w).Encode(Line{Sentence: "The moon has seas of basalt."})
			w.(http.Flusher).Flush()
			<-r.Context().Done()
		}
	}))
	defer stalled.Close()
	cl, err := NewClient(ClientOptions{URL: stalled.URL, Credential: "den:key", Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	reg := command.NewRegistry(command.Options{})
	n := &nodeSide{node: NewNode(NodeOptions{Client: cl, Commands: reg, Budget: 400 * time.Millisecond}), reg: reg}
	defer n.node.Close()
	began := time.Now()
	var first time.Duration
	_, err = n.node.Reply(t.Context(), "tell me about the seas of the moon please", func(s string) {
		if first == 0 {
			first = time.Since(began)
		}
		n.said = append(n.said, s)
	})
	took := time.Since(began)
	if !errors.Is(err, ErrTooSlow) || !slices.Equal(n.said, []string{"The moon has seas of basalt.", TooSlow}) {
		t.Errorf("err %v, said %q; want the first sentence, then the budget's apology", err, n.said)
	}
	if took-first > 2*time.Second {
		t.Errorf("the apology came %v after the first sentence; want about one budget (400 ms)", took-first)
	}
	t.Logf("figure: silence after the first sentence: apology %v after it (budget 400 ms per silence)", (took - first).Round(time.Millisecond))
}

// A button press cancels the node's question: the center stops the
// model's generation at once and the next question is answered, not
// refused with 409 and taken for an unreachable center.
func TestCancelledAnswerFreesTheConversation(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := newNode(t, c, "hall")
	gate := make(chan struct{})
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "One. Two. Three. Four. Five.", Gate: gate, GateAfter: 2},
		ollamatest.Reply{Content: "It is a fine day."})
	ctx, cancel := context.WithCancel(t.Context())
	got := make(chan []string, 1)
	go func() {
		said, _, _ := n.reply(ctx, "count slowly to five for me please")
		got <- said
	}()
	waitFor(t, func() bool { return chatsOfKind(c.llm) > 0 }) // the answer is being generated
	cancel()
	<-got
	waitFor(t, func() bool { return cancelledChats(c.llm) > 0 })
	close(gate)
	said, _, err := n.reply(t.Context(), "what kind of day is it out there")
	if err != nil || !slices.Equal(said, []string{"It is a fine day."}) {
		t.Errorf("the next question: %v, said %q; want it answered", err, said)
	}
	if !n.node.Link().Up {
		t.Errorf("link %+v; a cancelled question is not a down center", n.node.Link())
	}
}

// The center restarts (stops gracefully) in the middle of an answer: the
// node says it stopped, rather than ending as if the half answer were all.
func TestCenterStopsMidAnswer(t *testing.T) {
	c := newCenter(t, "", Options{})
	// The reply says its first sentence, then goes on until it is stopped.
	c.srv.engines = func(Conversation) (engine, error) { return &lingering{}, nil }
	n := newNode(t, c, "porch")
	done := make(chan struct{})
	var said []string
	var err error
	go func() {
		said, _, err = n.reply(t.Context(), "tell me a long story about the sea")
		close(done)
	}()
	waitFor(t, func() bool { return replyBegan(c.srv) })
	c.closeServer() // what hark center does when it stops
	<-done
	c.stop()
	if err == nil || len(said) == 0 || said[len(said)-1] != Interrupted {
		t.Errorf("err %v, said %q; want the interruption said", err, said)
	}
}

// replyBegan reports a reply under way on srv that has said something.
func replyBegan(srv *Server) bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for _, sess := range srv.sessions {
		if tr := sess.current(); tr != nil {
			tr.mu.Lock()
			began := tr.began
			tr.mu.Unlock()
			return began
		}
	}
	return false
}

// The node gives up on a question while the network is blackholed; when
// the network comes back, the question does not reach the center.
func TestGivenUpRequestIsNotReplayed(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := newNode(t, c, "garage")
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "Started."})
	n.ask(t, "tell me about the moon and its seas") // the conversation is open
	var commands atomic.Int32
	inner := c.http.Config.Handler
	c.http.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == PathCommand {
			commands.Add(1)
		}
		inner.ServeHTTP(w, r)
	})
	p := behind(t, c, n, 300*time.Millisecond)
	p.Set(netfault.Blackhole)
	_, _, err := n.reply(t.Context(), "open the garage door and leave it open")
	if !errors.Is(err, ErrTooSlow) {
		t.Fatalf("err %v; want the budget's", err)
	}
	// The network comes back once the node has let the connection go (a
	// slow, emulated machine may take a moment to): what it sent and gave
	// up on must not arrive then.
	for end := time.Now().Add(5 * time.Second); p.Open() > 0 && time.Now().Before(end); {
		time.Sleep(10 * time.Millisecond)
	}
	p.Set(netfault.Pass)
	time.Sleep(500 * time.Millisecond) // what a replay would need to arrive
	if n := commands.Load(); n != 0 {
		t.Errorf("the center received %d commands after the network came back: the given-up question was replayed", n)
	}
}

// A name the resolver never answers for is named as DNS's, within the
// lookup's budget, not taken for a slow center.
func TestSilentResolverIsNamed(t *testing.T) {
	cl, err := NewClient(ClientOptions{URL: "http://center.home.arpa:8443", Credential: "n1:key", Insecure: true, Resolver: netfault.SilentResolver(t)})
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	err = cl.Ping(t.Context())
	var de *DNSError
	if !errors.As(err, &de) || !errors.Is(err, ErrUnreachable) || !strings.Contains(err.Error(), "DNS") {
		t.Errorf("Ping with a silent resolver = %v; want a DNS error", err)
	}
	if took := time.Since(began); took > dnsBudget+2*time.Second {
		t.Errorf("took %v; want the %v lookup budget", took, dnsBudget)
	}
}

// chatsOfKind is how many chat calls (not helper calls) the model server
// has seen begin.
func chatsOfKind(s *ollamatest.Server) int {
	n := 0
	for _, c := range s.Chats() {
		if replytest.KindOf(c) == replytest.Chat {
			n++
		}
	}
	return n
}

// cancelledChats is how many chat requests the model server saw given up
// on before their end: generations stopped.
func cancelledChats(s *ollamatest.Server) int {
	n := 0
	for _, r := range s.Requests() {
		if r.Chat != nil && r.Cancelled {
			n++
		}
	}
	return n
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("waited 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// The center is stopping when a node asks: no answer began, so the node
// says the center is shutting down and to try again, not that it stopped
// in the middle of an answer.
func TestCenterStoppingBeforeTheQuestion(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := newNode(t, c, "porch")
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "Fine."})
	n.ask(t, "how are you doing this morning") // the conversation is open
	c.closeServer()                            // hark center stops: its requests are still answered
	said, _, err := n.reply(t.Context(), "tell me a long story about the sea")
	if err == nil || !slices.Equal(said, []string{ShuttingDown}) {
		t.Errorf("err %v, said %q; want only %q", err, said, ShuttingDown)
	}
}
