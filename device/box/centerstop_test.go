package box

import (
	"context"
	"errors"
	"log/slog"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/device/mdns"

	"github.com/harkbox/hark/reply/center"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// TestCenterStopsWithNothingLeft: hark center is told to stop while a
// node's question waits for the model. Serve returns once the question's
// reply has been stopped and unwound and the conversations' expiry has
// ended, so that nothing of the center still runs when its store closes;
// the node is told the center stopped.
func TestCenterStopsWithNothingLeft(t *testing.T) {
	srv, m := modelServer(t)
	gate := make(chan struct{})
	defer close(gate)
	m.On(replytest.Chat, ollamatest.Reply{Content: "Once upon a time. The end.", Gate: gate})
	cfg, res := configure(t, "[center]\nlisten = \"127.0.0.1:0\"\n[web]\nlisten = \"\"\nmdns = false\n[reply]\nplanner = false\n",
		map[string]string{"OLLAMA_HOST": srv.URL})
	c, err := OpenCenter(cfg, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cred, err := center.NewKeys(c.db.Settings()).Add(t.Context(), "kitchen")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	at := make(chan string, 1)
	served := make(chan error, 1)
	go func() {
		served <- c.Serve(ctx, true, func(line string) {
			if addr, ok := strings.CutPrefix(line, "serving nodes on "); ok {
				at <- strings.Fields(addr)[0]
			}
		})
	}()
	client, err := center.NewClient(center.ClientOptions{URL: <-at, Credential: cred, Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	asked := make(chan error, 1)
	go func() {
		_, err := client.Command(t.Context(), center.CommandRequest{VoiceCommand: "tell me a long story", ConversationID: "kitchen-1"}, nil)
		asked <- err
	}()
	for deadline := time.Now().Add(10 * time.Second); !chatting(srv); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the question never reached the model")
		}
	}
	stop()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the center did not stop within 10 s")
	}
	if left := goroutinesOf("reply/center.(*Server).Expire", "reply/center.(*session).begin"); len(left) > 0 {
		t.Errorf("the center's goroutines still run after Serve returned:\n%s", strings.Join(left, "\n\n"))
	}
	var se *center.StatusError
	if err := <-asked; !errors.As(err, &se) || se.Code != 503 {
		t.Errorf("the node's question: %v; want 503, the center stopping", err)
	}
}

// chatting reports whether the model server has begun a chat of a reply.
func chatting(s *ollamatest.Server) bool {
	for _, c := range s.Chats() {
		if replytest.KindOf(c) == replytest.Chat {
			return true
		}
	}
	return false
}

// goroutinesOf is the stacks of the goroutines running any of funcs.
func goroutinesOf(funcs ...string) []string {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	var found []string
	for _, g := range strings.Split(string(buf), "\n\n") {
		for _, f := range funcs {
			if strings.Contains(g, f) {
				found = append(found, g)
				break
			}
		}
	}
	return found
}

// TestCenterWaitsForItsBackground: the center's look at its model servers
// and its mDNS answers run beside the nodes' server; Serve returns only
// once they have ended, however long they take to, so that none of them
// still runs when the store and the brain close after it.
func TestCenterWaitsForItsBackground(t *testing.T) {
	srv, _ := modelServer(t)
	// An address other than the loopback's: the center is announced.
	cfg, res := configure(t, "[center]\nlisten = \"0.0.0.0:0\"\n[web]\nlisten = \"\"\nmdns = true\n[reply]\nplanner = false\n",
		map[string]string{"OLLAMA_HOST": srv.URL})
	c, err := OpenCenter(cfg, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	release := make(chan struct{})
	var running, ended sync.WaitGroup
	lingering := func(ctx context.Context) {
		defer ended.Done()
		<-ctx.Done()
		<-release // still ending when the rest of the center has
	}
	running.Add(2)
	ended.Add(2)
	c.watch = func(ctx context.Context) { running.Done(); lingering(ctx) }
	c.announce = func(ctx context.Context, _ *slog.Logger, _ *mdns.Responder) { running.Done(); lingering(ctx) }
	ctx, stop := context.WithCancel(t.Context())
	defer stop()
	up := make(chan struct{}, 1)
	served := make(chan error, 1)
	go func() {
		served <- c.Serve(ctx, true, func(line string) {
			if strings.HasPrefix(line, "serving nodes on ") {
				up <- struct{}{}
			}
		})
	}()
	select {
	case <-up:
	case err := <-served:
		t.Fatalf("serve: %v", err)
	}
	running.Wait()
	stop()
	select {
	case err := <-served:
		close(release)
		t.Fatalf("Serve returned (%v) while the look at the model servers and the mDNS answers still ran", err)
	case <-time.After(300 * time.Millisecond):
	}
	close(release)
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the center did not stop within 10 s of its background ending")
	}
	ended.Wait()
}
