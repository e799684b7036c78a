package center

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// clock is the nodes' fixed time, so the golden files hold still.
var clock = time.Date(2026, 11, 22, 10, 15, 0, 0, time.UTC)

var served = ollamatest.Model{Name: "llama3.2:3b", Family: "llama", ParameterSize: "3.2B", Capabilities: []string{"completion", "tools"}}

// centerSide is a center over a test model server and a real store.
type centerSide struct {
	t     testing.TB
	model *replytest.Model
	llm   *ollamatest.Server
	db    *storage.DB
	keys  *Keys
	srv   *Server
	http  *httptest.Server
	wire  *wireLog
}

type mixer struct{ level int }

func (m *mixer) Volume(context.Context) (int, bool, error)        { return m.level, false, nil }
func (m *mixer) SetVolume(_ context.Context, l int, _ bool) error { m.level = l; return nil }

type noStatus struct{}

func (noStatus) Status(context.Context) builtin.DeviceStatus {
	return builtin.DeviceStatus{Version: "test"}
}

// newCenter starts a center on dir's store (a new one when dir is ""); tune
// adjusts each conversation's engine.
func newCenter(t testing.TB, dir string, o Options, tune ...func(*reply.Options)) *centerSide {
	t.Helper()
	return newCenterServing(t, dir, o, served, false, tune...)
}

// newCenterServing is newCenter over a server of model served; with keep,
// the conversations' engines share a Keeper of the model, as hark
// center's do.
func newCenterServing(t testing.TB, dir string, o Options, served ollamatest.Model, keep bool, tune ...func(*reply.Options)) *centerSide {
	t.Helper()
	c := &centerSide{t: t, model: replytest.New(), llm: ollamatest.New(served), wire: &wireLog{}}
	t.Cleanup(c.llm.Close)
	c.llm.Respond(c.model.Respond)
	if dir == "" {
		dir = t.TempDir()
	}
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.db = db
	c.keys = NewKeys(db.Settings())
	u, _ := url.Parse(c.llm.URL)
	client, err := llm.New(llm.Options{Host: u, Model: served.Name})
	if err != nil {
		t.Fatal(err)
	}
	meter := cost.NewMeter()
	meter.Set(cost.Key(c.llm.URL, served.Name), cost.Rates{Prompt: 5000, Gen: 500, CharsPerToken: 4})
	o.Keys = c.keys
	o.ServerTools = func(loc *time.Location) []*command.Command {
		mem := db.SealedFacts(db.Secrets(""))
		return []*command.Command{builtin.Time(), builtin.Calculate(), builtin.Convert(),
			builtin.Remember(mem), builtin.Forget(mem), builtin.SearchMemory(mem, db.Diary())}
	}
	var keeper *llm.Keeper
	if keep {
		keeper = llm.NewKeeper(llm.KeeperOptions{Server: client})
		t.Cleanup(keeper.Close)
	}
	o.Engine = func(cv Conversation) (*reply.Engine, error) {
		ro := reply.Options{Model: client, Info: client, ModelName: served.Name, Server: c.llm.URL, Meter: meter, Keeper: keeper,
			Commands: cv.Commands, Conversation: cv.ID, Dialogue: Dialogue{Store: db.Dialogue(), ID: cv.ID},
			Diary: db.Diary(), Facts: db.Facts(), Location: cv.Location, Place: cv.Node.Room, PlannerOff: true, Router: "all", ToolTokens: 5000}
		for _, f := range tune {
			f(&ro)
		}
		return reply.New(ro)
	}
	if o.Media.Model == nil {
		o.Media.Model, o.Media.ModelName = client, served.Name
	}
	c.srv, err = NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	c.http = httptest.NewServer(c.srv.Handler())
	return c
}

func (c *centerSide) stop() {
	c.http.CloseClientConnections()
	c.http.Close()
	c.closeServer()
	c.db.Close()
}

// closeServer closes the center's Server, as hark center does when it
// stops; it fails the test when the replies do not unwind in a few
// seconds.
func (c *centerSide) closeServer() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.srv.Close(ctx); err != nil {
		c.t.Error(err)
	}
}

// nodeTools are the tools a Hark node offers (device/box's catalogue
// chooses them): what acts on the speaker itself or on its schedule.
var nodeTools = []string{"set_timer", "check_timers", "cancel_timer", "set_alarm", "set_reminder",
	"list_reminders", "cancel_reminder", "control_volume", "device_status", "stop"}

// nodeSide is a speaker with its own schedule and volume.
type nodeSide struct {
	node  *Node
	sched *schedule.Scheduler
	mix   *mixer
	said  []string
	reg   *command.Registry
}

func newNode(t *testing.T, c *centerSide, name string) *nodeSide {
	t.Helper()
	cred, err := c.keys.Add(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	n := &nodeSide{mix: &mixer{level: 50}}
	now := func() time.Time { return clock }
	n.sched, _ = schedule.New(schedule.Options{Store: db.Schedule(), Location: time.UTC, Now: now})
	n.reg = command.NewRegistry(command.Options{Location: time.UTC, Now: now})
	n.reg.Register(builtin.All(builtin.Deps{Schedule: n.sched, Mixer: n.mix, Memory: db.SealedFacts(db.Secrets("")), Status: noStatus{}})...)
	client, err := NewClient(ClientOptions{URL: c.http.URL, Credential: cred, Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	client.hc.Transport = &recording{inner: client.hc.Transport, log: c.wire}
	n.node = NewNode(NodeOptions{Client: client, Commands: n.reg, Tools: nodeTools, Room: "kitchen", Timezone: "Europe/Lisbon"})
	t.Cleanup(n.node.Close)
	return n
}

func (n *nodeSide) ask(t *testing.T, text string) bool {
	t.Helper()
	if n.reg.Understand(t.Context(), locale.English, text).OK {
		t.Fatalf("%q is answered offline on the node; the test needs the center", text)
	}
	follow, err := n.node.Reply(t.Context(), text, func(s string) { n.said = append(n.said, s) })
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	return follow
}

// TestClientToolRoundTrip: a timer asked of the center is set on the node
// that heard it, and the center's answer is said there.
func TestClientToolRoundTrip(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := newNode(t, c, "kitchen")
	c.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration": "PT10M", "name": "tea"}}}},
		ollamatest.Reply{Content: "Your tea timer is running."})
	n.ask(t, "my tea needs steeping so could you keep an eye on it for me")
	items, _ := n.sched.Pending(t.Context())
	if len(items) != 1 || !strings.Contains(strings.ToLower(items[0].Name), "tea") {
		t.Fatalf("the node's schedule holds %+v, want the tea timer", items)
	}
	if !slices.Equal(n.said, []string{"Your tea timer is running."}) {
		t.Errorf("said %q", n.said)
	}
	chats := c.llm.Chats()
	last := chats[len(chats)-1]
	if tool := last.Messages[len(last.Messages)-1]; tool.Role != "tool" || !strings.Contains(tool.Content, "tea") {
		t.Errorf("the node's result did not reach the model: %s", fmtMsgs(last))
	} else if !strings.Contains(tool.Content, "UNTRUSTED TEXT FROM the speaker's set_timer") {
		t.Errorf("the node's result reached the model unfenced: %s", tool.Content)
	}
	golden(t, c.wire, "client_tool")
}

// TestServerTool: a tool the center runs itself needs no round trip.
func TestServerTool(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := newNode(t, c, "hall")
	c.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "remember", Arguments: map[string]any{"fact": "the spare key is under the blue pot"}}}},
		ollamatest.Reply{Content: "I'll remember that."})
	n.ask(t, "store this for later: the spare key is under the blue pot")
	facts, _ := c.db.Facts().Search(t.Context(), "spare key", 5)
	if len(facts) != 1 || !slices.Equal(n.said, []string{"I'll remember that."}) {
		t.Fatalf("center facts %v, said %q", facts, n.said)
	}
	for _, x := range c.wire.exchanges() {
		if strings.Contains(x.response, `"tool_calls"`) && strings.Contains(x.response, `"stop_reason":"tool_calls"`) {
			t.Errorf("a server tool went to the node: %s", x.response)
		}
	}
}

// TestValidationQuestion: arguments the center's checks refuse twice make
// the center ask the user through the node; the answer goes back and the
// reply completes.
func TestValidationQuestion(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := newNode(t, c, "den")
	bad := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "control_volume", Arguments: map[string]any{"action": "boom"}}}}
	c.model.On(replytest.Chat, bad, bad)
	if follow := n.ask(t, "make the sound do the thing it does"); !follow || len(n.said) != 1 || !strings.HasSuffix(n.said[0], "?") {
		t.Fatalf("follow-up %v, said %q: want one question", follow, n.said)
	}
	c.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "control_volume", Arguments: map[string]any{"action": "up"}}}},
		ollamatest.Reply{Content: "Turned it up."})
	if follow := n.ask(t, "the louder one"); follow {
		t.Error("the answer should complete the reply")
	}
	if n.mix.level <= 50 || n.said[len(n.said)-1] != "Turned it up." {
		t.Errorf("volume %d, said %q", n.mix.level, n.said)
	}
	var sawQuestion, sawAnswer bool
	for _, x := range c.wire.exchanges() {
		sawQuestion = sawQuestion || strings.Contains(x.response, `"stop_reason":"validation_required"`)
		sawAnswer = sawAnswer || strings.Contains(x.request, `"validation_response":"the louder one"`)
	}
	if !sawQuestion || !sawAnswer {
		t.Errorf("question on the wire %v, answer %v", sawQuestion, sawAnswer)
	}
}

// askedAQuestion is a node whose center has just asked it a question
// (arguments the center's checks refused twice), with the lapse of its
// conversations.
func askedAQuestion(t *testing.T, c *centerSide, name string, lapse time.Duration) *nodeSide {
	t.Helper()
	n := newNode(t, c, name)
	n.node.o.Lapse = lapse
	bad := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "control_volume", Arguments: map[string]any{"action": "boom"}}}}
	c.model.On(replytest.Chat, bad, bad)
	if follow := n.ask(t, "make the sound do the thing it does"); !follow {
		t.Fatalf("said %q, no follow-up: want the center's question", n.said)
	}
	n.said = nil
	return n
}

// TestQuestionLapsesWithTheConversation: nobody answers the center's
// question before the conversation lapses; what is said next is a new
// request, which the node's offline core carries out, not an answer sent
// to the center.
func TestQuestionLapsesWithTheConversation(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := askedAQuestion(t, c, "den", time.Nanosecond)
	follow, err := n.node.Reply(t.Context(), "set a timer for 5 minutes", func(s string) { n.said = append(n.said, s) })
	timers, _ := n.sched.Pending(t.Context(), storage.Timer)
	if follow || err != nil || len(timers) != 1 || !slices.Equal(n.said, []string{"Timer set for 5 minutes."}) {
		t.Errorf("after the lapse: follow-up %v, err %v, said %q, %d timers; want the node's own timer", follow, err, n.said, len(timers))
	}
	for _, x := range c.wire.exchanges() {
		if strings.Contains(x.request, `"validation_response"`) {
			t.Errorf("the new request went to the center as the answer: %s", x.request)
		}
	}
}

// TestQuestionAnsweredWhileTheCenterIsDown: the center asks a question
// and goes down before the answer. What the node's offline core can do
// with what was said, it does; anything else gets the unreachable
// center's apology.
func TestQuestionAnsweredWhileTheCenterIsDown(t *testing.T) {
	for _, tt := range []struct {
		answer string
		said   []string
		timers int
	}{
		{"set a timer for 5 minutes", []string{"Timer set for 5 minutes."}, 1},
		{"the louder one", []string{Unreachable}, 0},
	} {
		c := newCenter(t, "", Options{})
		n := askedAQuestion(t, c, "den", time.Hour)
		c.stop()
		n.node.Reply(t.Context(), tt.answer, func(s string) { n.said = append(n.said, s) })
		timers, _ := n.sched.Pending(t.Context(), storage.Timer)
		if !slices.Equal(n.said, tt.said) || len(timers) != tt.timers {
			t.Errorf("%q with the center down: said %q, %d timers; want %q, %d", tt.answer, n.said, len(timers), tt.said, tt.timers)
		}
		if n.node.Link().Up {
			t.Errorf("%q: link %+v; want it down", tt.answer, n.node.Link())
		}
	}
}

// TestStreamingAndNot: the same reply, whole or sentence by sentence.
func TestStreamingAndNot(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	cred, _ := c.keys.Add(t.Context(), "attic")
	cl, _ := NewClient(ClientOptions{URL: c.http.URL, Credential: cred, Insecure: true})
	c.model.Default(replytest.Chat, ollamatest.Reply{Content: "One sentence. And another one."})
	whole, err := cl.Command(t.Context(), CommandRequest{VoiceCommand: "tell me two things", ConversationID: "attic-1"}, nil)
	if err != nil || whole.StopReason != StopComplete || whole.AssistantMessage != "One sentence. And another one." {
		t.Fatalf("whole: %+v, %v", whole, err)
	}
	var lines []string
	streamed, err := cl.Command(t.Context(), CommandRequest{VoiceCommand: "tell me two more things", ConversationID: "attic-1"}, func(s string) { lines = append(lines, s) })
	if err != nil || streamed.StopReason != StopComplete || !slices.Equal(lines, []string{"One sentence.", "And another one."}) {
		t.Fatalf("streamed: %+v lines %q, %v", streamed, lines, err)
	}
	if streamed.AssistantMessage != whole.AssistantMessage || streamed.RequestInformation.ConversationID != "attic-1" {
		t.Errorf("the streamed final object differs: %+v", streamed)
	}
}

// TestBadInput: every refusal has its status and a JSON error naming the
// problem.
func TestBadInput(t *testing.T) {
	c := newCenter(t, "", Options{BodyLimit: 2048, Rate: 1000, Burst: 1000, Lapse: time.Hour})
	defer c.stop()
	a, _ := c.keys.Add(t.Context(), "a")
	b, _ := c.keys.Add(t.Context(), "b")
	revoked, _ := c.keys.Add(t.Context(), "gone")
	c.keys.Revoke(t.Context(), "gone")
	c.model.Default(replytest.Chat, ollamatest.Reply{Content: "Fine."})
	post := func(cred, path, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, c.http.URL+path, strings.NewReader(body))
		if cred != "" {
			req.Header.Set("Authorization", "Bearer "+cred)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(raw)
	}
	if code, _ := post(a, PathCommand, `{"voice_command": "hello there", "conversation_id": "a-1"}`); code != 200 {
		t.Fatalf("a good request: %d", code)
	}
	c.srv.mu.Lock()
	c.srv.expired["a-old"] = time.Now()
	c.srv.mu.Unlock()
	for _, tt := range []struct {
		name, cred, path, body string
		code                   int
		says                   string
	}{
		{"no key", "", PathCommand, `{}`, 401, "Authorization"},
		{"wrong key", "a:nope", PathCommand, `{}`, 401, "wrong key"},
		{"revoked", revoked, PathCommand, `{}`, 401, "wrong key"},
		{"malformed", a, PathCommand, `{"voice_command": `, 400, "malformed JSON"},
		{"wrong type", a, PathCommand, `{"voice_command": 12, "conversation_id": "a-1"}`, 400, "voice_command"},
		{"missing id", a, PathCommand, `{"voice_command": "hi"}`, 400, "conversation_id is required"},
		{"empty command", a, PathCommand, `{"voice_command": " ", "conversation_id": "a-1"}`, 400, "voice_command is empty"},
		{"too big", a, PathCommand, `{"voice_command": "` + strings.Repeat("x", 4096) + `", "conversation_id": "a-1"}`, 413, "over the limit"},
		{"unknown conversation", a, PathContinue, `{"conversation_id": "nope", "validation_response": "yes"}`, 404, "no conversation nope"},
		{"expired conversation", a, PathContinue, `{"conversation_id": "a-old", "validation_response": "yes"}`, 410, "expired"},
		{"another node's", b, PathContinue, `{"conversation_id": "a-1", "validation_response": "yes"}`, 403, "another node"},
		{"another node's command", b, PathCommand, `{"voice_command": "hi", "conversation_id": "a-1"}`, 403, "another node"},
		{"nothing to continue with", a, PathContinue, `{"conversation_id": "a-1"}`, 400, "tool_results or validation_response"},
		{"no tool awaited", a, PathContinue, `{"conversation_id": "a-1", "tool_results": [{"tool_call_id": "x", "output": {"success": true, "message": ""}}]}`, 409, "waits for no tool result"},
		{"conversation id too long", a, PathCommand, `{"voice_command": "hi", "conversation_id": "` + strings.Repeat("k", maxConversationID+1) + `"}`, 400, "conversation_id is 129 bytes long; want at most 128"},
		{"conversation id too long to continue", a, PathContinue, `{"conversation_id": "` + strings.Repeat("k", maxConversationID+1) + `", "validation_response": "yes"}`, 400, "at most 128"},
		{"control character in conversation id", a, PathCommand, `{"voice_command": "hi", "conversation_id": "a-1\n"}`, 400, "conversation_id has a control character"},
		{"control character in conversation id to continue", a, PathContinue, `{"conversation_id": "a-1\u001b[2J", "validation_response": "yes"}`, 400, "control character"},
		{"bad tool schema", a, PathStart, `{"conversation_id": "a-2", "client_tools": [{"type": "function", "function": {"name": "x", "description": "d", "parameters": {"type": "array"}}}]}`, 400, "want an object"},
		{"no such path", a, "/api/v0/nothing", `{}`, 404, "no such endpoint"},
	} {
		code, body := post(tt.cred, tt.path, tt.body)
		var e Error
		if code != tt.code || json.Unmarshal([]byte(body), &e) != nil || !strings.Contains(e.Error, tt.says) {
			t.Errorf("%s: %d %s; want %d naming %q", tt.name, code, body, tt.code, tt.says)
		}
	}
	// Too many requests.
	slow := newCenter(t, "", Options{Rate: 0.001, Burst: 2})
	defer slow.stop()
	cred, _ := slow.keys.Add(t.Context(), "chatty")
	codes := []int{}
	for range 4 {
		req, _ := http.NewRequest(http.MethodGet, slow.http.URL+PathStatus, nil)
		req.Header.Set("Authorization", "Bearer "+cred)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes = append(codes, resp.StatusCode)
	}
	if !slices.Equal(codes, []int{200, 200, 429, 429}) {
		t.Errorf("statuses %v, want the burst then 429", codes)
	}
}

// TestCenterRestartMidConversation: the center restarts while the node
// runs a tool; the node's result finds no conversation, and the node
// starts it again and asks again, transparently. The stored memory
// survives.
func TestCenterRestartMidConversation(t *testing.T) {
	dir := t.TempDir()
	c := newCenter(t, dir, Options{})
	n := newNode(t, c, "study")
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "Noted."})
	n.ask(t, "store this for later: I like green tea best")
	url := c.http.URL
	// The next request: the model asks the node for a tool, and the
	// center goes down while the node runs it.
	c.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "check_timers"}}})
	restarted := make(chan *centerSide, 1)
	n.node.o.Client.hc.Transport = &hook{inner: n.node.o.Client.hc.Transport, before: func(r *http.Request) {
		if r.URL.Path == PathContinue && len(restarted) == 0 {
			c.stop()
			d := newCenterAt(t, dir, url)
			d.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "check_timers"}}}, ollamatest.Reply{Content: "No timers are running."})
			restarted <- d
		}
	}}
	n.said = nil
	n.ask(t, "is anything counting down for the oven at the moment")
	d := <-restarted
	defer d.stop()
	if !slices.Equal(n.said, []string{"No timers are running."}) {
		t.Errorf("said %q after the restart", n.said)
	}
	past, _ := d.db.Dialogue().Recent(t.Context(), time.Now().Add(-time.Hour), 10)
	if len(past) < 2 || !strings.Contains(past[0].User, "green tea") {
		t.Errorf("the dialogue after the restart: %+v", past)
	}
}

// TestCenterGoneAfterAClientTool: the center asks the node to set a timer
// and is gone before the node's result reaches it. The timer is set, and
// the node says so before it says the center cannot be reached: the
// household is not left thinking nothing happened.
func TestCenterGoneAfterAClientTool(t *testing.T) {
	c := newCenter(t, "", Options{})
	n := newNode(t, c, "pantry")
	c.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration": "PT10M", "name": "tea"}}}})
	var gone sync.Once
	n.node.o.Client.hc.Transport = &hook{inner: n.node.o.Client.hc.Transport, before: func(r *http.Request) {
		if r.URL.Path == PathContinue {
			gone.Do(c.stop)
		}
	}}
	say := "my tea needs steeping so could you keep an eye on it for me"
	follow, err := n.node.Reply(t.Context(), say, func(s string) { n.said = append(n.said, s) })
	if follow || err == nil {
		t.Errorf("follow-up %v, err %v; want the unreachable center's error", follow, err)
	}
	items, _ := n.sched.Pending(t.Context())
	if len(items) != 1 {
		t.Fatalf("the node's schedule holds %+v, want the tea timer", items)
	}
	if want := []string{"Tea timer set for 10 minutes.", Unreachable}; !slices.Equal(n.said, want) {
		t.Errorf("said %q, want %q", n.said, want)
	}
}

// TestNodeGoneMidConversation: the node never sends its tool result; the
// center's reply gives up on it after the tool timeout, and the
// conversation later lapses.
func TestNodeGoneMidConversation(t *testing.T) {
	c := newCenter(t, "", Options{ToolTimeout: 200 * time.Millisecond, Lapse: 300 * time.Millisecond})
	defer c.stop()
	cred, _ := c.keys.Add(t.Context(), "porch")
	cl, _ := NewClient(ClientOptions{URL: c.http.URL, Credential: cred, Insecure: true})
	c.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "check_timers"}}}, ollamatest.Reply{Content: "The speaker did not answer."})
	cl.Start(t.Context(), StartRequest{ConversationID: "porch-1", ClientTools: ToolsOf([]*command.Command{builtin.CheckTimers(nil)})})
	resp, err := cl.Command(t.Context(), CommandRequest{VoiceCommand: "anything ticking", ConversationID: "porch-1"}, nil)
	if err != nil || resp.StopReason != StopToolCalls {
		t.Fatalf("%+v %v", resp, err)
	}
	// The node is gone. The reply finishes on its own.
	deadline := time.Now().Add(5 * time.Second)
	for {
		c.srv.mu.Lock()
		sess := c.srv.sessions["porch-1"]
		c.srv.mu.Unlock()
		if sess == nil || sess.current() == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the reply still waits for the gone node")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(400 * time.Millisecond)
	c.srv.expire(time.Now())
	if c.srv.Conversations() != 0 {
		t.Error("the gone node's conversation did not lapse")
	}
	_, err = cl.Continue(t.Context(), ContinueRequest{ConversationID: "porch-1", ValidationResponse: ptr("hello")}, nil)
	var se *StatusError
	if !errorsAs(err, &se) || se.Code != 410 {
		t.Errorf("a lapsed conversation: %v, want 410", err)
	}
}

func ptr[T any](v T) *T { return &v }

func fmtMsgs(r ollamatest.ChatRequest) string {
	b, _ := json.Marshal(r.Messages)
	return string(b)
}

// newCenterAt starts a center on dir's store listening on url's address.
func newCenterAt(t *testing.T, dir, addr string) *centerSide {
	d := newCenter(t, dir, Options{})
	d.http.Close()
	u, _ := url.Parse(addr)
	l, err := netListen(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	d.http = &httptest.Server{Listener: l, Config: &http.Server{Handler: d.srv.Handler()}}
	d.http.Start()
	return d
}

// wireLog keeps every request and response between node and center.
type wireLog struct {
	mu sync.Mutex
	xs []exchange
}

type exchange struct{ path, request, response string }

func (w *wireLog) exchanges() []exchange {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.xs)
}

type recording struct {
	inner http.RoundTripper
	log   *wireLog
}

func (r *recording) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := r.inner.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(raw))
	r.log.mu.Lock()
	r.log.xs = append(r.log.xs, exchange{req.URL.Path, string(body), string(raw)})
	r.log.mu.Unlock()
	return resp, nil
}

type hook struct {
	inner  http.RoundTripper
	before func(*http.Request)
}

func (h *hook) RoundTrip(req *http.Request) (*http.Response, error) {
	h.before(req)
	return h.inner.RoundTrip(req)
}

var ids = regexp.MustCompile(`call_[0-9a-f]{16}|[a-z]+-\d{8}T\d{6}-[0-9a-f]{12}`)

// golden compares the wire exchanges with a file in testdata, ids
// normalized, or rewrites it with -update.
func golden(t *testing.T, w *wireLog, name string) {
	t.Helper()
	var b strings.Builder
	for _, x := range w.exchanges() {
		b.WriteString("POST " + x.path + "\n> " + indent(x.request) + "\n< " + indent(x.response) + "\n\n")
	}
	got := ids.ReplaceAllStringFunc(b.String(), func(s string) string {
		if strings.HasPrefix(s, "call_") {
			return "call_ID"
		}
		return "CONVERSATION_ID"
	})
	path := filepath.Join("testdata", name+".golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		os.WriteFile(path, []byte(got), 0o644)
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("the wire differs from %s (go test -update rewrites it):\n%s", path, got)
	}
}

func indent(s string) string {
	s = strings.TrimSpace(s)
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		var v any
		if json.Unmarshal([]byte(l), &v) == nil {
			b, _ := json.MarshalIndent(v, "  ", "  ")
			l = string(b)
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n  ")
}

// TestSlowCenter: a center that says nothing within the node's budget is
// given up on with one sentence.
func TestSlowCenter(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := newNode(t, c, "loft")
	n.node.o.Budget = 300 * time.Millisecond
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "Far too late.", FirstTokenDelay: 5 * time.Second})
	_, err := n.node.Reply(t.Context(), "tell me about the moon and its seas", func(s string) { n.said = append(n.said, s) })
	if err == nil || !strings.Contains(err.Error(), "within the budget") || !slices.Equal(n.said, []string{TooSlow}) {
		t.Errorf("err %v, said %q", err, n.said)
	}
}

// TestNodeDuringTheCentersLoad: a node's question while the center's model
// loads, for longer than any budget (the node's for each silence
// included), hears the center's line at once, then its answer; the center
// tells the node it still waits while it does, and the load is never
// abandoned.
func TestNodeDuringTheCentersLoad(t *testing.T) {
	loading := served
	loading.LoadDelay = 1500 * time.Millisecond
	c := newCenterServing(t, "", Options{Waiting: 300 * time.Millisecond}, loading, true)
	defer c.stop()
	n := newNode(t, c, "kitchen")
	// Streamed as a node hears it (the wire log reads whole answers), with
	// the node's own patience shorter than the load.
	hc := n.node.o.Client.hc
	hc.Transport = hc.Transport.(*recording).inner
	n.node.o.Budget = time.Second
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "The moon is about 384,000 kilometres away."})
	began := time.Now()
	var first time.Duration
	_, err := n.node.Reply(t.Context(), "how far away is the moon", func(s string) {
		if first == 0 {
			first = time.Since(began)
		}
		n.said = append(n.said, s)
	})
	if err != nil || len(n.said) != 2 || n.said[0] != "One moment, I'm still waking up." || !strings.Contains(n.said[1], "384,000") {
		t.Errorf("the node said %q (%v): want the line, then the answer", n.said, err)
	}
	if first > time.Second {
		t.Errorf("the first words came after %v", first)
	}
	if loads, aborted := c.llm.Loads(); loads != 1 || aborted != 0 {
		t.Errorf("loads %d, aborted %d", loads, aborted)
	}
}

// TestConversationStaysItsNodesAcrossARestart: after the center restarts,
// a node that names another node's conversation gets no history of it.
func TestConversationStaysItsNodesAcrossARestart(t *testing.T) {
	dir := t.TempDir()
	c := newCenter(t, dir, Options{})
	kitchen, _ := c.keys.Add(t.Context(), "kitchen")
	hall, _ := c.keys.Add(t.Context(), "hall")
	start := func(c *centerSide, cred, conv string) int {
		req, _ := http.NewRequest(http.MethodPost, c.http.URL+PathStart, strings.NewReader(`{"conversation_id":"`+conv+`","node_context":{"timezone":"UTC"}}`))
		req.Header.Set("X-API-Key", cred)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := start(c, kitchen, "conv-kitchen-1"); code != http.StatusOK {
		t.Fatalf("the kitchen's start: %d", code)
	}
	c.stop()
	again := newCenter(t, dir, Options{})
	defer again.stop()
	if code := start(again, hall, "conv-kitchen-1"); code != http.StatusForbidden {
		t.Errorf("the hall naming the kitchen's conversation after a restart: %d, want 403", code)
	}
	if code := start(again, kitchen, "conv-kitchen-1"); code != http.StatusOK {
		t.Errorf("the kitchen taking up its own conversation after a restart: %d, want 200", code)
	}
}

// TestConversationIDsAreBounded: a conversation id is a node's short
// name for its conversation (a Jarvis node's is a UUID); a start with an
// id too long or with a control character is refused, naming what is
// wrong, and leaves nothing in the store.
func TestConversationIDsAreBounded(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	cred := addNode(t, c.keys, "kitchen")
	h := c.srv.Handler()
	for _, tt := range []struct {
		name, id string
		code     int
		says     string
	}{
		{"a UUID", "0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a", 200, ""},
		{"a Hark node's", newConversationID("kitchen"), 200, ""},
		{"the longest", strings.Repeat("k", maxConversationID), 200, ""},
		{"one byte over", strings.Repeat("k", maxConversationID+1), 400, "conversation_id is 129 bytes long; want at most 128"},
		{"over what the store takes as a key", strings.Repeat("k", 70_000), 400, "conversation_id is 70000 bytes long"},
		{"a newline", "kitchen-1\nforged log line", 400, "conversation_id has a control character (U+000A) at byte 9"},
		{"a terminal escape", "kitchen-1\x1b[2J", 400, "control character (U+001B)"},
		{"a DEL", "kitchen-1\x7f", 400, "control character (U+007F)"},
	} {
		start, _ := json.Marshal(StartRequest{ConversationID: tt.id, NodeContext: NodeContext{Timezone: "UTC"}})
		req := httptest.NewRequest(http.MethodPost, PathStart, bytes.NewReader(start))
		req.Header.Set("X-API-Key", cred)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var e Error
		json.Unmarshal(rec.Body.Bytes(), &e)
		if rec.Code != tt.code || !strings.Contains(e.Error, tt.says) {
			t.Errorf("%s: %d %.200s; want %d naming %q", tt.name, rec.Code, strings.TrimSpace(rec.Body.String()), tt.code, tt.says)
		}
		var o owner
		kept, err := c.db.Settings().Get(t.Context(), ownerKey(tt.id), &o)
		if err != nil || kept != (tt.code == 200) {
			t.Errorf("%s: kept in the store %v (%v); want %v", tt.name, kept, err, tt.code == 200)
		}
	}
}

// TestWrongKeysAreLimited: an address that keeps sending wrong keys is
// refused before its keys are checked.
func TestWrongKeysAreLimited(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	id, _, _ := strings.Cut(func() string { s, _ := c.keys.Add(t.Context(), "kitchen"); return s }(), ":")
	codes := map[int]int{}
	for range 3 * badKeyBurst {
		req, _ := http.NewRequest(http.MethodGet, c.http.URL+PathStatus, nil)
		req.Header.Set("X-API-Key", id+":not-the-key")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		codes[resp.StatusCode]++
	}
	if codes[http.StatusUnauthorized] > badKeyBurst+1 || codes[http.StatusTooManyRequests] == 0 {
		t.Errorf("answers to %d wrong keys: %v; want at most %d checked, the rest refused", 3*badKeyBurst, codes, badKeyBurst+1)
	}
}

// TestWrongKeysSentTogetherAreLimited: wrong keys sent all at once from
// one address are held to the burst of wrong keys sent one by one, even
// when checking each takes a while.
func TestWrongKeysSentTogetherAreLimited(t *testing.T) {
	keys, h := slowCenter(t, Options{})
	id, _, _ := strings.Cut(addNode(t, keys, "kitchen"), ":")
	var creds []string
	for i := range 20 * badKeyBurst {
		creds = append(creds, fmt.Sprintf("%s:guess-%d", id, i))
	}
	codes := together(h, "192.168.1.66:40000", creds)
	if codes[http.StatusUnauthorized] > badKeyBurst+1 || codes[http.StatusUnauthorized]+codes[http.StatusTooManyRequests] != len(creds) {
		t.Errorf("answers to %d wrong keys sent together: %v; want at most %d checked, the rest refused", len(creds), codes, badKeyBurst+1)
	}
}

// TestRightKeysSentTogetherGetIn: more right keys than the burst of wrong
// ones, sent all at once from one address (nodes behind one router), all
// get in: a guess being checked holds back the ones after it, it does not
// refuse them.
func TestRightKeysSentTogetherGetIn(t *testing.T) {
	keys, h := slowCenter(t, Options{})
	var creds []string
	for i := range 3 * badKeyBurst {
		creds = append(creds, addNode(t, keys, fmt.Sprintf("node-%d", i)))
	}
	if codes := together(h, "192.168.1.1:40000", creds); codes[http.StatusOK] != len(creds) {
		t.Errorf("answers to %d right keys sent together: %v; want all %d 200", len(creds), codes, len(creds))
	}
}

// TestRightKeysSpendNoGuesses: a right key gives back the guess it was
// counted as, and the wrong keys of one address spend only its own.
func TestRightKeysSpendNoGuesses(t *testing.T) {
	c := newCenter(t, "", Options{Rate: 1e6, Burst: 1e6})
	defer c.stop()
	cred := addNode(t, c.keys, "kitchen")
	id, _, _ := strings.Cut(cred, ":")
	h := c.srv.Handler()
	const home, guesser = "192.168.1.20:40000", "192.168.1.66:40000"
	for i := range badKeyBurst - 1 {
		if code := keyAt(h, home, id+":typo"); code != http.StatusUnauthorized {
			t.Fatalf("wrong key %d from home: %d, want 401", i+1, code)
		}
	}
	for i := range 3 * badKeyBurst {
		if code := keyAt(h, home, cred); code != http.StatusOK {
			t.Fatalf("right key %d after %d wrong ones: %d, want 200", i+1, badKeyBurst-1, code)
		}
	}
	codes := map[int]int{}
	for range 2 * badKeyBurst {
		codes[keyAt(h, guesser, id+":guess")]++
	}
	if codes[http.StatusTooManyRequests] == 0 {
		t.Fatalf("answers to %d wrong keys from one address: %v; want some refused", 2*badKeyBurst, codes)
	}
	for _, tt := range []struct {
		name, from string
		want       int
	}{
		{"the right key from home", home, http.StatusOK},
		{"the right key from the guesser's address", guesser, http.StatusTooManyRequests},
	} {
		if got := keyAt(h, tt.from, cred); got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, got, tt.want)
		}
	}
}

// TestGuessesRememberFewAddresses: the addresses wrong keys came from are
// remembered up to maxSources, and those whose keys were right not at all.
func TestGuessesRememberFewAddresses(t *testing.T) {
	var g guesses
	addr := func(i int) string { return fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255) }
	for i := range maxSources + 100 {
		guess, ok := g.try(t.Context(), addr(i))
		if !ok {
			t.Fatalf("the first wrong key from %s was refused", addr(i))
		}
		guess.settle(true)
	}
	if got := len(g.sources); got != maxSources {
		t.Errorf("after wrong keys from %d addresses: %d remembered, want %d", maxSources+100, got, maxSources)
	}
	g = guesses{}
	for i := range 100 {
		guess, _ := g.try(t.Context(), addr(i))
		guess.settle(false)
	}
	if got := len(g.sources); got != 0 {
		t.Errorf("after right keys from 100 addresses: %d remembered, want none", got)
	}
}

// addNode enrols a node named name and returns its credential.
func addNode(t *testing.T, keys *Keys, name string) string {
	t.Helper()
	cred, err := keys.Add(t.Context(), name)
	if err != nil {
		t.Fatal(err)
	}
	return cred
}

// keyAt asks for the status with credential cred from address from, and
// returns the answer's status code.
func keyAt(h http.Handler, from, cred string) int {
	req := httptest.NewRequest(http.MethodGet, PathStatus, nil)
	req.RemoteAddr = from
	req.Header.Set("X-API-Key", cred)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// together sends creds all at once from address from, and counts the
// answers by status code.
func together(h http.Handler, from string, creds []string) map[int]int {
	var mu sync.Mutex
	codes := map[int]int{}
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, cred := range creds {
		wg.Go(func() {
			<-start
			code := keyAt(h, from, cred)
			mu.Lock()
			codes[code]++
			mu.Unlock()
		})
	}
	close(start)
	wg.Wait()
	return codes
}

// slowCenter is a center whose keys take a few milliseconds to read, as
// they do from an SD card; it answers status requests only.
func slowCenter(t *testing.T, o Options) (*Keys, http.Handler) {
	t.Helper()
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	o.Keys = NewKeys(slowSettings{db.Settings(), 5 * time.Millisecond})
	o.Engine = func(Conversation) (*reply.Engine, error) { return nil, errors.New("no conversations here") }
	srv, err := NewServer(o)
	if err != nil {
		t.Fatal(err)
	}
	return o.Keys, srv.Handler()
}

// slowSettings takes delay over each read.
type slowSettings struct {
	Settings
	delay time.Duration
}

func (s slowSettings) Get(ctx context.Context, key string, v any) (bool, error) {
	time.Sleep(s.delay)
	return s.Settings.Get(ctx, key, v)
}

// TestFaultsOfTheCenterNameNoFiles: when the center's own store or engine
// fails, a node is told what failed, not the center's paths or keys; the
// center's log has the rest.
func TestFaultsOfTheCenterNameNoFiles(t *testing.T) {
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	settings := &failingSettings{Settings: db.Settings()}
	keys := NewKeys(settings)
	cred := addNode(t, keys, "kitchen")
	srv, err := NewServer(Options{Keys: keys, Engine: func(Conversation) (*reply.Engine, error) {
		return nil, errors.New("reply: open /var/lib/hark-center/models/secret.gguf: no such file")
	}})
	if err != nil {
		t.Fatal(err)
	}
	start := func(id string) (int, string) {
		body, _ := json.Marshal(StartRequest{ConversationID: id, NodeContext: NodeContext{Timezone: "UTC"}})
		req := httptest.NewRequest(http.MethodPost, PathStart, bytes.NewReader(body))
		req.Header.Set("X-API-Key", cred)
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	if code, body := start("conversation-1"); code != http.StatusInternalServerError || strings.Contains(body, "/var/lib") || !strings.Contains(body, "starting the conversation failed") {
		t.Errorf("an engine that fails: %d %s", code, body)
	}
	settings.fail = errors.New("storage: write setting center/conversation/x in /var/lib/hark-center: read-only file system")
	if code, body := start("conversation-2"); code != http.StatusInternalServerError || strings.Contains(body, "/var/lib") || !strings.Contains(body, "failed on the center") {
		t.Errorf("a store that fails: %d %s", code, body)
	}
}

// failingSettings fails every write with fail, once it is set.
type failingSettings struct {
	Settings
	fail error
}

func (s *failingSettings) Set(ctx context.Context, key string, v any) error {
	if s.fail != nil {
		return s.fail
	}
	return s.Settings.Set(ctx, key, v)
}
