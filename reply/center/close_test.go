package center

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/command"
)

// memSettings is a Settings in memory, for tests with no store.
type memSettings struct {
	mu sync.Mutex
	m  map[string][]byte
}

func newMemSettings() *memSettings { return &memSettings{m: map[string][]byte{}} }

func (s *memSettings) Get(_ context.Context, key string, v any) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[key]
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(b, v)
}

func (s *memSettings) Set(_ context.Context, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = b
	return nil
}

func (s *memSettings) Delete(_ context.Context, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, key)
	return nil
}

func (s *memSettings) Keys(_ context.Context, prefix string) ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var keys []string
	for k := range s.m {
		if strings.HasPrefix(k, prefix) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys, nil
}

// lingering is a conversation's engine whose reply says a sentence, waits
// for its end, and then takes a second to unwind (the turn's dialogue
// written, its diary entry begun), as a real one does. It records what is
// done with it after its Close.
type lingering struct {
	conv string

	mu     sync.Mutex
	closed bool
	late   []string // what was done with the engine after its Close
}

func (e *lingering) use(what string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		e.late = append(e.late, what)
	}
}

func (e *lingering) Reply(ctx context.Context, q reply.Query, say func(string)) (reply.Result, error) {
	e.use("a reply began")
	say("Let me see.")
	<-ctx.Done()
	time.Sleep(time.Second)
	e.use("a reply unwound")
	return reply.Result{}, ctx.Err()
}

func (e *lingering) Close() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		e.late = append(e.late, "closed twice")
	}
	e.closed = true
}

// lingeringCenter is a server whose conversations' engines are lingering
// ones, kept in engines, with one enrolled node whose credential it
// returns.
func lingeringCenter(t *testing.T) (*Server, string, func() []*lingering) {
	t.Helper()
	keys := NewKeys(newMemSettings())
	cred, err := keys.Add(t.Context(), "kitchen")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := NewServer(Options{Keys: keys, Engine: func(Conversation) (*reply.Engine, error) { return nil, errors.New("unused") }})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var made []*lingering
	srv.engines = func(c Conversation) (engine, error) {
		mu.Lock()
		defer mu.Unlock()
		e := &lingering{conv: c.ID}
		made = append(made, e)
		return e, nil
	}
	return srv, cred, func() []*lingering {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(made)
	}
}

// post sends body to path of h as the node of cred, and returns the
// answer's status and body.
func post(h http.Handler, cred, path, body string) (int, string) {
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	req.Header.Set("X-API-Key", cred)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// checkEngines fails the test for an engine not closed, or used after its
// Close.
func checkEngines(t *testing.T, engines []*lingering) {
	t.Helper()
	for _, e := range engines {
		e.mu.Lock()
		if !e.closed {
			t.Errorf("the engine of %s was never closed", e.conv)
		}
		if len(e.late) > 0 {
			t.Errorf("the engine of %s was used after its Close: %q", e.conv, e.late)
		}
		e.mu.Unlock()
	}
}

// TestCloseWaitsForTheReplies: the center closes while two conversations
// answer. Their replies are stopped, each engine is closed once its reply
// has unwound and never used after, the nodes are told the center stopped
// (503), a command after Close begins no reply, and no goroutine of the
// center is left (synctest.Test fails for one still blocked).
func TestCloseWaitsForTheReplies(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, cred, engines := lingeringCenter(t)
		ctx, cancel := context.WithCancel(t.Context())
		expired := make(chan struct{})
		go func() {
			defer close(expired)
			srv.Expire(ctx)
		}()
		h := srv.Handler()
		codes := make(chan int, 2)
		for _, conv := range []string{"kitchen-1", "kitchen-2"} {
			go func() {
				code, _ := post(h, cred, PathCommand, `{"voice_command": "how long do eggs take", "conversation_id": "`+conv+`"}`)
				codes <- code
			}()
		}
		synctest.Wait() // both replies under way
		if n := len(engines()); n != 2 {
			t.Fatalf("%d engines, want the two conversations'", n)
		}
		if err := srv.Close(t.Context()); err != nil {
			t.Errorf("close: %v", err)
		}
		checkEngines(t, engines())
		for range 2 {
			if code := <-codes; code != http.StatusServiceUnavailable {
				t.Errorf("a command answering when the center closed: %d, want 503", code)
			}
		}
		for _, path := range []string{PathStart, PathCommand} {
			code, body := post(h, cred, path, `{"voice_command": "and now", "conversation_id": "kitchen-3"}`)
			if code != http.StatusServiceUnavailable || !strings.Contains(body, "stopping") {
				t.Errorf("%s after Close: %d %s; want 503, the center stopping", path, code, body)
			}
		}
		if n := len(engines()); n != 2 {
			t.Errorf("%d engines after Close, want no new one", n)
		}
		cancel()
		<-expired
	})
}

// TestStartAgainWaitsForTheReplyItEnds: a start of a conversation whose
// reply is under way replaces it: the reply is stopped, and its engine is
// closed once the reply has unwound, not under it.
func TestStartAgainWaitsForTheReplyItEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, cred, engines := lingeringCenter(t)
		defer srv.Close(t.Context())
		h := srv.Handler()
		const start = `{"conversation_id": "kitchen-1", "node_context": {"timezone": "UTC"}}`
		if code, body := post(h, cred, PathStart, start); code != http.StatusOK {
			t.Fatalf("start: %d %s", code, body)
		}
		answered := make(chan int, 1)
		go func() {
			code, _ := post(h, cred, PathCommand, `{"voice_command": "how long do eggs take", "conversation_id": "kitchen-1"}`)
			answered <- code
		}()
		synctest.Wait() // the reply is under way
		if code, body := post(h, cred, PathStart, start); code != http.StatusOK {
			t.Fatalf("the start again: %d %s", code, body)
		}
		if code := <-answered; code != http.StatusGone {
			t.Errorf("the command of the conversation started again: %d, want 410", code)
		}
		time.Sleep(2 * time.Second) // the old reply unwinds
		synctest.Wait()
		old := engines()[0]
		checkEngines(t, []*lingering{old})
	})
}

// silent is a conversation's engine whose reply says nothing until it is
// stopped: the model is still thinking.
type silent struct{}

func (silent) Reply(ctx context.Context, q reply.Query, say func(string)) (reply.Result, error) {
	<-ctx.Done()
	return reply.Result{}, ctx.Err()
}

func (silent) Close() {}

// TestStoppingBeforeTheAnswer: the center stops while a node's streamed
// question waits for a reply. When nothing of the answer had come out, the
// node is told the center is stopping and to ask again; when part of it
// had, or a tool of the reply had run, that the answer ended in the
// middle, as before. The error line is the usual {"error": ...}.
func TestStoppingBeforeTheAnswer(t *testing.T) {
	for _, tt := range []struct {
		name   string
		engine func(Conversation) engine
		want   string
	}{
		{"nothing said yet", func(Conversation) engine { return silent{} }, "center: " + stopping},
		{"a sentence said", func(Conversation) engine { return &lingering{} }, "center: conversation kitchen-1 ended while answering (it lapsed, was started again, or the center is stopping)"},
		{"a tool run", func(c Conversation) engine { return working{c.Commands} }, "center: conversation kitchen-1 ended while answering (it lapsed, was started again, or the center is stopping)"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv, cred, _ := lingeringCenter(t)
				srv.o.ServerTools = func(*time.Location) []*command.Command { return []*command.Command{noteTool()} }
				srv.engines = func(c Conversation) (engine, error) { return tt.engine(c), nil }
				h := srv.Handler()
				answered := make(chan string, 1)
				go func() {
					req := httptest.NewRequest(http.MethodPost, PathCommand, strings.NewReader(`{"voice_command": "how long do eggs take", "conversation_id": "kitchen-1"}`))
					req.Header.Set("X-API-Key", cred)
					req.Header.Set("Accept", NDJSON)
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					answered <- rec.Body.String()
				}()
				synctest.Wait() // the reply is under way
				if err := srv.Close(t.Context()); err != nil {
					t.Errorf("close: %v", err)
				}
				lines := strings.Split(strings.TrimSpace(<-answered), "\n")
				var last map[string]any
				if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
					t.Fatalf("the stream's last line %q: %v", lines[len(lines)-1], err)
				}
				if want := map[string]any{"error": tt.want}; !maps.Equal(last, want) {
					t.Errorf("the stream ended with %v; want %v", last, want)
				}
			})
		})
	}
}

// TestStoppingInTheMiddleOfAWholeAnswer: the center stops while a node's
// question, asked for a whole answer (JSON, or audio on /stream), waits
// for its reply. A reply that had begun, a sentence said or a tool run,
// was stopped in the middle and the node is told so; one that had not
// begun is answered as a question that comes while the center stops.
// Either is a 503 {"error": ...}, as ever.
func TestStoppingInTheMiddleOfAWholeAnswer(t *testing.T) {
	const midway = `{"error":"center: the reply was stopped in the middle (the center is stopping)"}`
	const before = `{"error":"center: ` + stopping + `"}`
	for _, asked := range []struct{ name, path string }{{"json", PathCommand}, {"audio", PathCommandStream}} {
		for _, tt := range []struct {
			name   string
			engine func(Conversation) engine
			want   string
		}{
			{"nothing said yet", func(Conversation) engine { return silent{} }, before},
			{"a sentence said", func(Conversation) engine { return &lingering{} }, midway},
			{"a tool run", func(c Conversation) engine { return working{c.Commands} }, midway},
		} {
			t.Run(asked.name+"/"+tt.name, func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					srv, cred, _ := lingeringCenter(t)
					srv.o.ServerTools = func(*time.Location) []*command.Command { return []*command.Command{noteTool()} }
					srv.engines = func(c Conversation) (engine, error) { return tt.engine(c), nil }
					type answer struct {
						code int
						body string
					}
					answered := make(chan answer, 1)
					go func() {
						code, body := post(srv.Handler(), cred, asked.path, `{"voice_command": "how long do eggs take", "conversation_id": "kitchen-1"}`)
						answered <- answer{code, body}
					}()
					synctest.Wait() // the reply is under way
					if err := srv.Close(t.Context()); err != nil {
						t.Errorf("close: %v", err)
					}
					if a := <-answered; a.code != http.StatusServiceUnavailable || strings.TrimSpace(a.body) != tt.want {
						t.Errorf("the node was answered %d %s; want 503 %s", a.code, a.body, tt.want)
					}
				})
			})
		}
	}
}

// working is a conversation's engine whose reply runs the center's tool
// note, then goes on thinking, saying nothing, until it is stopped, and
// takes a second to unwind.
type working struct{ reg *command.Registry }

func (e working) Reply(ctx context.Context, q reply.Query, say func(string)) (reply.Result, error) {
	e.reg.Call(ctx, "note", map[string]any{"fact": q.Text}, q.Text)
	<-ctx.Done()
	time.Sleep(time.Second)
	return reply.Result{}, ctx.Err()
}

func (working) Close() {}

// noteTool is a center's tool that keeps a fact, and does nothing with it.
func noteTool() *command.Command {
	return &command.Command{Name: "note", Description: "Keeps a fact.",
		Parameters: []command.Parameter{{Name: "fact", Type: "string", Required: true}},
		Run: func(context.Context, command.Call) (command.Response, error) {
			return command.Said("Noted.", nil), nil
		}}
}

// TestANodeHoldsABoundedNumberOfConversations: a node (or whoever stole
// its key) starts conversation after conversation, each with its engine
// and client tools in the center's memory, faster than they lapse. It
// holds PerNode at once: a new one ends the node's conversation used
// least recently that has no reply under way (its history stays in the
// store), and while every one of them answers, a new one is refused
// (429). Another node's conversations are not touched.
func TestANodeHoldsABoundedNumberOfConversations(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv, cred, engines := lingeringCenter(t)
		srv.o.PerNode = 3
		other, err := srv.o.Keys.Add(t.Context(), "hall")
		if err != nil {
			t.Fatal(err)
		}
		h := srv.Handler()
		start := func(cred, conv string) int {
			code, _ := post(h, cred, PathStart, `{"conversation_id": "`+conv+`"}`)
			return code
		}
		codes := make(chan int, 3)
		ask := func(conv string) {
			go func() {
				code, _ := post(h, cred, PathCommand, `{"voice_command": "how long do eggs take", "conversation_id": "`+conv+`"}`)
				codes <- code
			}()
			synctest.Wait()
		}
		closed := func() (ids []string) {
			for _, e := range engines() {
				e.mu.Lock()
				if e.closed {
					ids = append(ids, e.conv)
				}
				e.mu.Unlock()
			}
			return ids
		}
		if code := start(other, "hall-1"); code != http.StatusOK {
			t.Fatalf("the hall's start: %d", code)
		}
		for _, conv := range []string{"kitchen-1", "kitchen-2", "kitchen-3"} {
			if code := start(cred, conv); code != http.StatusOK {
				t.Fatalf("start %s: %d", conv, code)
			}
			time.Sleep(time.Second)
		}
		ask("kitchen-1") // the oldest answers: it stays
		if code := start(cred, "kitchen-4"); code != http.StatusOK {
			t.Fatalf("start kitchen-4: %d", code)
		}
		synctest.Wait()
		if got, want := closed(), []string{"kitchen-2"}; !slices.Equal(got, want) {
			t.Errorf("conversations ended by the fourth: %q; want %q, the least recently used without a reply under way", got, want)
		}
		if n := srv.Conversations(); n != 4 {
			t.Errorf("%d conversations open; want the kitchen's 3 and the hall's", n)
		}
		ask("kitchen-3")
		ask("kitchen-4")
		if code := start(cred, "kitchen-5"); code != http.StatusTooManyRequests {
			t.Errorf("a start while the node's every conversation answers: %d; want 429", code)
		}
		if n := srv.Conversations(); n != 4 {
			t.Errorf("%d conversations open after the refused start; want 4", n)
		}
		if err := srv.Close(t.Context()); err != nil {
			t.Error(err)
		}
		for range 3 {
			<-codes
		}
		checkEngines(t, engines())
	})
}
