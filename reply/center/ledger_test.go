package center

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// TestRequestAskedAgainGetsWhatItsToolsDid: the center stops while its
// model phrases the answer, its tools having run: its own kept a fact,
// and the node's set a tea timer. The node asks again, the same words in
// the same conversation, which it starts again (a Jarvis node starts each
// request; a Hark node does after its center stopped mid-answer), and the
// model calls the same tools again: the center answers both from what it
// kept, so the fact is kept once and the node is not asked for a second
// timer. Once answered, the request leaves no record behind.
func TestRequestAskedAgainGetsWhatItsToolsDid(t *testing.T) {
	dir := t.TempDir()
	const conv = "7c1e2d3f-4a5b-4c6d-8e9f-0a1b2c3d4e5f"
	const said = "the tea in the pot is oolong, so note that and watch it for ten minutes"
	tools := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "remember", Arguments: map[string]any{"fact": "the tea is oolong"}},
		{Name: "set_timer", Arguments: map[string]any{"duration_seconds": 600, "label": "tea"}}}}
	url, n := stoppedAfterItsTools(t, dir, conv, said, tools, "Timer set for 10 minutes.")

	d := newCenterAt(t, dir, url)
	defer d.stop()
	d.model.On(replytest.Chat, tools, ollamatest.Reply{Content: "Noted, and the tea timer runs."})
	if code, _, body := n.do("POST", PathStart, jarvisStart(conv, timerTool())); code != http.StatusOK {
		t.Fatalf("the start again: %d %s", code, body)
	}
	_, _, body := n.do("POST", PathCommand, map[string]any{"voice_command": said, "conversation_id": conv})
	var resp Response
	json.Unmarshal(body, &resp)
	if resp.StopReason != StopComplete || resp.AssistantMessage != "Noted, and the tea timer runs." {
		t.Errorf("the request asked again: %s; want the answer, with no tool asked of the node", body)
	}
	facts, err := d.db.Facts().All(t.Context())
	if err != nil || len(facts) != 1 {
		t.Errorf("facts %+v (%v); want the one kept the first time", facts, err)
	}
	chats := d.llm.Chats()
	if last := chats[len(chats)-1].Messages; !strings.Contains(last[len(last)-1].Content, "Timer set for 10 minutes.") {
		t.Errorf("the model heard %q for the timer; want what the node said the first time", last[len(last)-1].Content)
	}
	noRecordsLeft(t, d)
}

// noRecordsLeft fails the test for a record of a reply's tools left in
// c's store: once a reply's answer is out, its request is done with. The
// record goes just after the answer did, so the node may read the answer
// first: it is given a few seconds.
func noRecordsLeft(t *testing.T, c *centerSide) {
	t.Helper()
	var keys []string
	var err error
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(10 * time.Millisecond) {
		if keys, err = c.db.Settings().Keys(t.Context(), turnPrefix); err == nil && len(keys) == 0 {
			return
		}
	}
	t.Errorf("records of replies after the answers: %q (%v); want none", keys, err)
}

// TestRequestAskedAgainWithOtherArgumentsRuns: the same words asked again
// after the center stopped mid-answer, but the model, answering them
// again, calls the tools with other arguments: a ten-minute timer where
// the first reply set five, another fact to keep. What the first calls
// did is not their answer: the node is asked for the ten-minute timer,
// and the other fact is kept beside the first.
func TestRequestAskedAgainWithOtherArgumentsRuns(t *testing.T) {
	dir := t.TempDir()
	const conv = "5e4d3c2b-1a09-4f8e-9d7c-6b5a49382716"
	const said = "note what the tea is and watch it for me"
	first := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "remember", Arguments: map[string]any{"fact": "the tea is oolong"}},
		{Name: "set_timer", Arguments: map[string]any{"duration_seconds": 300, "label": "tea"}}}}
	url, n := stoppedAfterItsTools(t, dir, conv, said, first, "Timer set for 5 minutes.")

	d := newCenterAt(t, dir, url)
	defer d.stop()
	again := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "remember", Arguments: map[string]any{"fact": "the kettle needs descaling"}},
		{Name: "set_timer", Arguments: map[string]any{"duration_seconds": 600, "label": "tea"}}}}
	d.model.On(replytest.Chat, again, ollamatest.Reply{Content: "Noted, and the tea timer runs."})
	if code, _, body := n.do("POST", PathStart, jarvisStart(conv, timerTool())); code != http.StatusOK {
		t.Fatalf("the start again: %d %s", code, body)
	}
	_, _, body := n.do("POST", PathCommand, map[string]any{"voice_command": said, "conversation_id": conv})
	var resp Response
	json.Unmarshal(body, &resp)
	if resp.StopReason != StopToolCalls || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Function.Name != "set_timer" {
		t.Fatalf("the request asked again: %s; want the ten-minute timer asked of the node", body)
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(resp.ToolCalls[0].Function.Arguments), &args); err != nil || args["duration_seconds"] != 600.0 {
		t.Errorf("the timer asked of the node: %s (%v); want 600 seconds", resp.ToolCalls[0].Function.Arguments, err)
	}
	facts, err := d.db.Facts().All(t.Context())
	if err != nil || len(facts) != 2 {
		t.Errorf("facts %+v (%v); want the first and the other", facts, err)
	}
}

// stoppedAfterItsTools runs the first reply to said in conversation conv
// of a Jarvis node, on a center on dir's store: the model calls tools
// (the center's remember, the node's set_timer), the node answers the
// timer with message, and the center stops while the model phrases the
// answer. It returns the center's address, for the next center on dir to
// take, and the node.
func stoppedAfterItsTools(t *testing.T, dir, conv, said string, tools ollamatest.Reply, message string) (string, *jarvisNode) {
	t.Helper()
	c := newCenter(t, dir, Options{})
	url := c.http.URL
	n := newJarvisNode(t, c, "larder")
	gate := make(chan struct{})
	defer close(gate)
	c.model.On(replytest.Chat, tools, ollamatest.Reply{Content: "Noted, and the tea timer runs.", Gate: gate})
	n.do("POST", PathStart, jarvisStart(conv, timerTool()))
	_, _, body := n.do("POST", PathCommand, map[string]any{"voice_command": said, "conversation_id": conv})
	var resp Response
	json.Unmarshal(body, &resp)
	if resp.StopReason != StopToolCalls || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Function.Name != "set_timer" {
		t.Fatalf("the first answer: %s; want the timer asked of the node", body)
	}
	result, _ := json.Marshal(map[string]any{"conversation_id": conv, "tool_results": []any{map[string]any{"tool_call_id": resp.ToolCalls[0].ID,
		"output": map[string]any{"success": true, "message": message, "context": map[string]any{"timer_id": "t1"}}}}})
	sent := make(chan struct{})
	go func() { // the node's result, whose answer never comes
		defer close(sent)
		req, _ := http.NewRequest(http.MethodPost, url+PathContinue, bytes.NewReader(result))
		req.Header = n.header.Clone()
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, func() bool { return chatsOfKind(c.llm) == 2 }) // the model phrases the answer
	c.stop()
	<-sent
	return url, n
}

// TestCenterRestartAsTheNodeSendsItsResult: the center restarts as the
// node sends the result of the tea timer it set. The node's result finds
// the conversation gone, and the node asks again at once: the household
// has one tea timer, not two, and hears the center's answer.
func TestCenterRestartAsTheNodeSendsItsResult(t *testing.T) {
	dir := t.TempDir()
	c := newCenter(t, dir, Options{})
	url := c.http.URL
	n := newNode(t, c, "scullery")
	timer := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration": "PT10M", "name": "tea"}}}}
	c.model.On(replytest.Chat, timer)
	restarted := make(chan *centerSide, 1)
	n.node.o.Client.hc.Transport = &hook{inner: n.node.o.Client.hc.Transport, before: func(r *http.Request) {
		if r.URL.Path == PathContinue && len(restarted) == 0 {
			c.stop()
			d := newCenterAt(t, dir, url)
			d.model.On(replytest.Chat, timer, ollamatest.Reply{Content: "Your tea timer runs for ten minutes."})
			restarted <- d
		}
	}}
	n.ask(t, "my tea needs steeping so could you keep an eye on it for me")
	d := <-restarted
	defer d.stop()
	if items, _ := n.sched.Pending(t.Context()); len(items) != 1 {
		t.Errorf("the node's schedule holds %d items after the restart, want the one tea timer: %+v", len(items), items)
	}
	if want := []string{"Your tea timer runs for ten minutes."}; !slices.Equal(n.said, want) {
		t.Errorf("said %q, want %q", n.said, want)
	}
}

// TestNodeAsksAgainAfterTheCenterStoppedMidAnswer: the center stops while
// its model phrases the answer after the node set a tea timer; the node
// says what it did and that the center is gone. The household asks again
// once the center is back: the node starts its conversation again (its
// tools with it), and the center answers from what the timer said the
// first time; there is still one timer.
func TestNodeAsksAgainAfterTheCenterStoppedMidAnswer(t *testing.T) {
	dir := t.TempDir()
	c := newCenter(t, dir, Options{})
	url := c.http.URL
	n := newNode(t, c, "scullery")
	timer := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration": "PT10M", "name": "tea"}}}}
	gate := make(chan struct{})
	defer close(gate)
	c.model.On(replytest.Chat, timer, ollamatest.Reply{Content: "Your tea timer runs for ten minutes.", Gate: gate})
	const say = "my tea needs steeping so could you keep an eye on it for me"
	type answer struct {
		said []string
		err  error
	}
	first := make(chan answer, 1)
	go func() {
		said, _, err := n.reply(t.Context(), say)
		first <- answer{said, err}
	}()
	waitFor(t, func() bool { return chatsOfKind(c.llm) == 2 }) // the model phrases the answer
	c.stop()
	if a := <-first; a.err == nil || !slices.Equal(a.said, []string{"Tea timer set for 10 minutes.", Unreachable}) {
		t.Fatalf("when the center stopped: said %q, err %v; want the timer, then the center gone", a.said, a.err)
	}
	d := newCenterAt(t, dir, url)
	defer d.stop()
	d.model.On(replytest.Chat, timer, ollamatest.Reply{Content: "Your tea timer runs for ten minutes."})
	said, _, err := n.reply(t.Context(), say)
	if err != nil || !slices.Equal(said, []string{"Your tea timer runs for ten minutes."}) {
		t.Errorf("asked again: said %q, err %v", said, err)
	}
	if items, _ := n.sched.Pending(t.Context()); len(items) != 1 {
		t.Errorf("the node's schedule holds %d items, want the one tea timer: %+v", len(items), items)
	}
	chats := d.llm.Chats()
	if last := chats[len(chats)-1].Messages; !strings.Contains(last[len(last)-1].Content, "Tea timer set for 10 minutes.") {
		t.Errorf("the model heard %q for the timer; want what the node said the first time", last[len(last)-1].Content)
	}
}

// TestLedgerMeetsACallByItsArguments: a call of the reply asked again is
// answered from a call of the reply before only when both have the same
// tool and the same arguments, however their JSON is written; calls alike
// are met in the order they were made. A record kept before calls had
// their arguments' digest meets them by tool and order alone.
func TestLedgerMeetsACallByItsArguments(t *testing.T) {
	type call struct{ name, args string }
	timer := func(seconds int) made {
		return made{Name: "set_timer", Args: argsSum(map[string]any{"duration_seconds": seconds, "label": "tea"}), Done: true}
	}
	fact := made{Name: "remember", Args: argsSum(map[string]any{"fact": "the tea is oolong"}), Done: true}
	for _, tt := range []struct {
		name   string
		record string // as kept
		calls  []call
		want   []int // the call of the record each meets; -1 for none
	}{
		{"the same arguments written otherwise", recordOf(t, timer(300)),
			[]call{{"set_timer", `{ "label": "tea",  "duration_seconds": 300.0 }`}}, []int{0}},
		{"other arguments", recordOf(t, timer(300)),
			[]call{{"set_timer", `{"duration_seconds": 600, "label": "tea"}`}}, []int{-1}},
		{"another tool with the same arguments", recordOf(t, fact),
			[]call{{"forget", `{"fact": "the tea is oolong"}`}}, []int{-1}},
		{"calls alike, in order", recordOf(t, fact, fact),
			[]call{{"remember", `{"fact": "the tea is oolong"}`}, {"remember", `{"fact": "the tea is oolong"}`}, {"remember", `{"fact": "the tea is oolong"}`}},
			[]int{0, 1, -1}},
		{"calls of one tool by their arguments", recordOf(t, timer(300), timer(600)),
			[]call{{"set_timer", `{"duration_seconds": 600, "label": "tea"}`}, {"set_timer", `{"duration_seconds": 300, "label": "tea"}`}},
			[]int{1, 0}},
		{"a record kept before arguments were", `{"node": "kitchen", "conversation": "kitchen-1", "at": "` + time.Now().Format(time.RFC3339Nano) + `",
			"calls": [{"name": "set_timer", "done": true, "result": {}}, {"name": "remember", "done": true, "result": {}}]}`,
			[]call{{"remember", `{"fact": "anything"}`}, {"set_timer", `{"duration_seconds": 600}`}, {"set_timer", `{"duration_seconds": 600}`}},
			[]int{1, 0, -1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mem := newMemSettings()
			srv, err := NewServer(Options{Keys: NewKeys(mem), Engine: func(Conversation) (*reply.Engine, error) { return nil, errors.New("unused") }})
			if err != nil {
				t.Fatal(err)
			}
			sess := &session{id: "kitchen-1", node: "kitchen"}
			const said = "watch the tea"
			mem.m[turnKey(sess.node, sess.id, said)] = []byte(tt.record)
			l := srv.openLedger(t.Context(), sess, said)
			var got []int
			for _, c := range tt.calls {
				_, i, _ := l.before(c.name, argsSum(json.RawMessage(c.args)))
				got = append(got, i)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("the calls met %v of the record; want %v", got, tt.want)
			}
		})
	}
}

// recordOf is a record, as kept, of a reply that made calls.
func recordOf(t *testing.T, calls ...made) string {
	t.Helper()
	b, err := json.Marshal(turnRecord{Node: "kitchen", Conversation: "kitchen-1", At: time.Now(), Calls: calls})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAnswerLostAsTheCenterStopsKeepsTheRecord: the center loses its
// power as it writes the answer to a request whose tool ran (a fact
// kept). The node never has the answer and asks again of the center that
// comes back on the same store: the fact is not kept a second time. The
// request leaves no record once answered.
func TestAnswerLostAsTheCenterStopsKeepsTheRecord(t *testing.T) {
	for _, tt := range []struct {
		name   string
		accept string
	}{
		{"answered whole", ""},
		{"answered as a stream", NDJSON},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mem := newMemSettings()
			keys := NewKeys(mem)
			cred, err := keys.Add(t.Context(), "kitchen")
			if err != nil {
				t.Fatal(err)
			}
			var kept atomic.Int32
			note := &command.Command{Name: "note", Description: "Keeps a fact.",
				Parameters: []command.Parameter{{Name: "fact", Type: "string", Required: true}},
				Run: func(context.Context, command.Call) (command.Response, error) {
					kept.Add(1)
					return command.Said("Noted.", nil), nil
				}}
			center := func() *Server {
				srv, err := NewServer(Options{Keys: keys, ServerTools: func(*time.Location) []*command.Command { return []*command.Command{note} },
					Engine: func(Conversation) (*reply.Engine, error) { return nil, errors.New("unused") }})
				if err != nil {
					t.Fatal(err)
				}
				srv.engines = func(c Conversation) (engine, error) { return noting{c.Commands}, nil }
				return srv
			}
			const body = `{"voice_command": "the spare key is under the blue pot", "conversation_id": "kitchen-1"}`
			ask := func(srv *Server, w http.ResponseWriter) {
				req := httptest.NewRequest(http.MethodPost, PathCommand, strings.NewReader(body))
				req.Header.Set("X-API-Key", cred)
				if tt.accept != "" {
					req.Header.Set("Accept", tt.accept)
				}
				srv.Handler().ServeHTTP(w, req)
			}

			first := center()
			lost := &frozen{header: http.Header{}, reached: make(chan struct{}), thaw: make(chan struct{})}
			answered := make(chan struct{})
			go func() {
				defer close(answered)
				ask(first, lost)
			}()
			<-lost.reached // the power goes as the answer is written

			again := center()
			rec := httptest.NewRecorder()
			ask(again, rec)
			if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "Noted.") {
				t.Errorf("the request asked again: %d %s; want the answer", rec.Code, rec.Body)
			}
			if n := kept.Load(); n != 1 {
				t.Errorf("the fact was kept %d times; want once", n)
			}
			close(lost.thaw)
			<-answered
			for _, srv := range []*Server{first, again} {
				if err := srv.Close(t.Context()); err != nil {
					t.Error(err)
				}
			}
			if keys, err := mem.Keys(t.Context(), turnPrefix); err != nil || len(keys) != 0 {
				t.Errorf("records of replies after the answers: %q (%v); want none", keys, err)
			}
		})
	}
}

// noting is a conversation's engine whose reply keeps what it heard with
// the center's tool note, and says so.
type noting struct{ reg *command.Registry }

func (e noting) Reply(ctx context.Context, q reply.Query, say func(string)) (reply.Result, error) {
	r := e.reg.Call(ctx, "note", map[string]any{"fact": q.Text}, q.Text)
	say(r.Spoken)
	return reply.Result{Sentences: []string{r.Spoken}, Text: r.Spoken}, nil
}

func (noting) Close() {}

// frozen is the answer of a center that loses its power as it writes the
// final object of an answer: reached is closed then, and that write goes
// no further until thaw is closed.
type frozen struct {
	header        http.Header
	reached, thaw chan struct{}
	once          sync.Once
}

func (f *frozen) Header() http.Header { return f.header }
func (f *frozen) WriteHeader(int)     {}
func (f *frozen) Flush()              {}

func (f *frozen) Write(b []byte) (int, error) {
	if bytes.Contains(b, []byte(`"stop_reason"`)) {
		f.once.Do(func() { close(f.reached) })
		<-f.thaw
	}
	return len(b), nil
}

// TestLedgerKeepsNoSecretItRevealed: a household asks for its Wi-Fi
// password, kept sealed in the center's memory, and the center loses its
// power as it answers. The record of the reply's tools, in clear on the
// card until the request is asked again or lapses, must not hold the
// secret the recall revealed: asked again, the recall (which changes
// nothing) runs again instead, while the note the same reply kept is
// still answered from the record, not kept twice.
func TestLedgerKeepsNoSecretItRevealed(t *testing.T) {
	const secret = "hunter2-Tango-42"
	mem := &sealedWatch{memSettings: newMemSettings()}
	keys := NewKeys(mem)
	cred, err := keys.Add(t.Context(), "kitchen")
	if err != nil {
		t.Fatal(err)
	}
	var noted, recalled atomic.Int32
	note := &command.Command{Name: "note", Description: "Keeps a fact.",
		Parameters: []command.Parameter{{Name: "fact", Type: "string", Required: true}},
		Run: func(context.Context, command.Call) (command.Response, error) {
			noted.Add(1)
			return command.Said("Noted.", nil), nil
		}}
	recall := &command.Command{Name: "note", Description: "Recalls a fact.",
		Parameters: []command.Parameter{{Name: "fact", Type: "string", Required: true}},
		Run: func(context.Context, command.Call) (command.Response, error) {
			recalled.Add(1)
			r := command.Said("Your wifi password is "+secret+".", map[string]any{"facts": []string{"my wifi password is " + secret}})
			r.Reveal = []string{secret}
			return r, nil
		}}
	recall.Name = "recall"
	center := func() *Server {
		srv, err := NewServer(Options{Keys: keys, ServerTools: func(*time.Location) []*command.Command { return []*command.Command{note, recall} },
			Engine: func(Conversation) (*reply.Engine, error) { return nil, errors.New("unused") }})
		if err != nil {
			t.Fatal(err)
		}
		srv.engines = func(c Conversation) (engine, error) { return recalling{c.Commands}, nil }
		return srv
	}
	const body = `{"voice_command": "note that I asked, and what is my wifi password", "conversation_id": "kitchen-1"}`
	ask := func(srv *Server, w http.ResponseWriter) {
		req := httptest.NewRequest(http.MethodPost, PathCommand, strings.NewReader(body))
		req.Header.Set("X-API-Key", cred)
		srv.Handler().ServeHTTP(w, req)
	}

	first := center()
	lost := &frozen{header: http.Header{}, reached: make(chan struct{}), thaw: make(chan struct{})}
	answered := make(chan struct{})
	go func() {
		defer close(answered)
		ask(first, lost)
	}()
	<-lost.reached // the power goes as the answer is written
	if keys, _ := mem.Keys(t.Context(), turnPrefix); len(keys) != 1 {
		t.Fatalf("records of replies as the power goes: %q; want the one of this reply", keys)
	}

	again := center()
	rec := httptest.NewRecorder()
	ask(again, rec)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), secret) {
		t.Errorf("the request asked again: %d %s; want the answer with the password", rec.Code, rec.Body)
	}
	if n := noted.Load(); n != 1 {
		t.Errorf("the note was kept %d times; want once", n)
	}
	if n := recalled.Load(); n != 2 {
		t.Errorf("the recall ran %d times; want twice (its result is not kept)", n)
	}
	close(lost.thaw)
	<-answered
	for _, srv := range []*Server{first, again} {
		if err := srv.Close(t.Context()); err != nil {
			t.Error(err)
		}
	}
	for key, b := range mem.everWritten() {
		if strings.Contains(string(b), secret) {
			t.Errorf("the store was written %s holding the revealed secret: %s", key, b)
		}
	}
}

// sealedWatch is a store that remembers every value ever written to it,
// deleted or not: what a card may still hold.
type sealedWatch struct {
	*memSettings
	mu  sync.Mutex
	all map[string][]byte
}

func (s *sealedWatch) Set(ctx context.Context, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.mu.Lock()
	if s.all == nil {
		s.all = map[string][]byte{}
	}
	s.all[key+"#"+strconv.Itoa(len(s.all))] = b
	s.mu.Unlock()
	return s.memSettings.Set(ctx, key, v)
}

func (s *sealedWatch) everWritten() map[string][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.all)
}

// recalling is a conversation's engine whose reply notes what it heard
// with the center's tool note, then recalls a secret with recall, and
// says what recall said.
type recalling struct{ reg *command.Registry }

func (e recalling) Reply(ctx context.Context, q reply.Query, say func(string)) (reply.Result, error) {
	e.reg.Call(ctx, "note", map[string]any{"fact": q.Text}, q.Text)
	r := e.reg.Call(ctx, "recall", map[string]any{"fact": "wifi password"}, q.Text)
	say(r.Spoken)
	return reply.Result{Sentences: []string{r.Spoken}, Text: r.Spoken}, nil
}

func (recalling) Close() {}

// TestRecordLeftByAPowerCutLapsesSoon: the center comes back after a
// power cut that left the record of a reply's tools, a minute old. It is
// kept while the household may still ask again (a node at once, a person
// within minutes), and gone a quarter of an hour later: the card does
// not keep what the tools did for an hour or two after nobody needs it.
func TestRecordLeftByAPowerCutLapsesSoon(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mem := newMemSettings()
		srv, err := NewServer(Options{Keys: NewKeys(mem),
			Engine: func(Conversation) (*reply.Engine, error) { return nil, errors.New("unused") }})
		if err != nil {
			t.Fatal(err)
		}
		key := turnKey("kitchen", "kitchen-1", "what is on the shopping list")
		rec := turnRecord{Node: "kitchen", Conversation: "kitchen-1", At: time.Now().Add(-time.Minute),
			Calls: []made{{Name: "shopping_list", Done: true, Result: command.Said("Eggs and milk.", nil)}}}
		if err := mem.Set(t.Context(), key, rec); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		expired := make(chan struct{})
		go func() {
			defer close(expired)
			srv.Expire(ctx)
		}()
		left := func() int {
			keys, err := mem.Keys(t.Context(), turnPrefix)
			if err != nil {
				t.Fatal(err)
			}
			return len(keys)
		}
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		if n := left(); n != 1 {
			t.Errorf("five minutes after the restart: %d records; want the one, for the request asked again", n)
		}
		time.Sleep(15 * time.Minute)
		synctest.Wait()
		if n := left(); n != 0 {
			t.Errorf("twenty minutes after the restart: %d records; want none", n)
		}
		cancel()
		<-expired
	})
}
