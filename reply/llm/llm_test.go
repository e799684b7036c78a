package llm

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/ollama/ollama/envconfig"
)

var small = ollamatest.Model{Name: "llama3.2:1b", Family: "llama", ParameterSize: "1.2B", Quantization: "Q8_0",
	Capabilities: []string{"completion", "tools"}, ContextLength: 131072}

var noTools = ollamatest.Model{Name: "gemma:2b", Family: "gemma", ParameterSize: "2.5B", Capabilities: []string{"completion"}}

var thinker = ollamatest.Model{Name: "qwen3:4b", Family: "qwen3", ParameterSize: "4.0B", Capabilities: []string{"completion", "tools", "thinking"}}

func newClient(t testing.TB, srv *ollamatest.Server, model string) *Client {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(Options{Host: u, Model: model, KeepAlive: 30 * time.Minute, NumCtx: 4096})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestChatStreams(t *testing.T) {
	srv := ollamatest.New(small)
	defer srv.Close()
	srv.Enqueue(ollamatest.Reply{Content: "It is half past ten. Anything else?"})
	c := newClient(t, srv, "llama3.2:1b")
	var pieces []string
	resp, err := c.Chat(t.Context(), Request{Messages: []Message{{Role: RoleSystem, Content: "Be brief."}, {Role: RoleUser, Content: "What time is it?"}}},
		func(ch Chunk) error { pieces = append(pieces, ch.Content); return nil })
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(pieces, ""), "It is half past ten. Anything else?"; got != want {
		t.Errorf("streamed %q, want %q", got, want)
	}
	if len(pieces) < 5 {
		t.Errorf("got %d chunks, want the answer streamed word by word", len(pieces))
	}
	if resp.Message.Content != "It is half past ten. Anything else?" || resp.DoneReason != "stop" || resp.OutputTokens != len(pieces) {
		t.Errorf("response = %+v", resp)
	}
	chats := srv.Chats()
	if len(chats) != 1 {
		t.Fatalf("server saw %d chats", len(chats))
	}
	got := chats[0]
	if got.Model != "llama3.2:1b" || got.Stream != nil && !*got.Stream || len(got.Messages) != 2 || got.Messages[1].Content != "What time is it?" {
		t.Errorf("request = %+v", got)
	}
	if got.Options["num_ctx"] != float64(4096) {
		t.Errorf("options = %v, want num_ctx 4096", got.Options)
	}
	if string(got.KeepAlive) != `"30m0s"` {
		t.Errorf("keep_alive = %s, want \"30m0s\"", got.KeepAlive)
	}
}

func TestChatWhole(t *testing.T) {
	srv := ollamatest.New(small)
	defer srv.Close()
	srv.Enqueue(ollamatest.Reply{Content: `{"steps":["reply"]}`})
	c := newClient(t, srv, "llama3.2:1b")
	resp, err := c.Chat(t.Context(), Request{Messages: []Message{{Role: RoleUser, Content: "plan"}}, Format: json.RawMessage(`"json"`)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Content != `{"steps":["reply"]}` {
		t.Errorf("content = %q", resp.Message.Content)
	}
	req := srv.Chats()[0]
	if req.Stream == nil || *req.Stream {
		t.Errorf("stream = %v, want false", req.Stream)
	}
	if string(req.Format) != `"json"` {
		t.Errorf("format = %s", req.Format)
	}
}

func TestChatToolCallsAndHistory(t *testing.T) {
	srv := ollamatest.New(small)
	defer srv.Close()
	srv.Enqueue(ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"minutes": 5.0, "name": "tea"}}}})
	c := newClient(t, srv, "llama3.2:1b")
	tool := Tool{Name: "set_timer", Description: "Start a timer.", Parameters: json.RawMessage(`{"type":"object","properties":{"minutes":{"type":"integer"}},"required":["minutes"]}`)}
	history := []Message{
		{Role: RoleUser, Content: "timer"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{Name: "check_timers", Arguments: map[string]any{}}}},
		{Role: RoleTool, ToolName: "check_timers", Content: "no timers"},
		{Role: RoleUser, Content: "set a tea timer for five minutes"},
	}
	var streamed []ToolCall
	resp, err := c.Chat(t.Context(), Request{Messages: history, Tools: []Tool{tool}}, func(ch Chunk) error {
		streamed = append(streamed, ch.ToolCalls...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Message.ToolCalls) != 1 || resp.Message.ToolCalls[0].Name != "set_timer" || resp.Message.ToolCalls[0].Arguments["minutes"] != 5.0 {
		t.Errorf("tool calls = %+v", resp.Message.ToolCalls)
	}
	if len(streamed) != 1 {
		t.Errorf("streamed %d tool calls, want 1", len(streamed))
	}
	req := srv.Chats()[0]
	if len(req.Tools) != 1 || req.Tools[0].Type != "function" || req.Tools[0].Function.Name != "set_timer" {
		t.Fatalf("tools sent = %+v", req.Tools)
	}
	var schema map[string]any
	json.Unmarshal(req.Tools[0].Function.Parameters, &schema)
	if schema["required"].([]any)[0] != "minutes" {
		t.Errorf("schema sent = %s", req.Tools[0].Function.Parameters)
	}
	if m := req.Messages[1]; len(m.ToolCalls) != 1 || m.ToolCalls[0].Function.Name != "check_timers" {
		t.Errorf("assistant tool call in history = %+v", m)
	}
	if m := req.Messages[2]; m.Role != "tool" || m.ToolName != "check_timers" || m.Content != "no timers" {
		t.Errorf("tool result in history = %+v", m)
	}
}

func TestChatThinking(t *testing.T) {
	srv := ollamatest.New(thinker)
	defer srv.Close()
	srv.Enqueue(ollamatest.Reply{Thinking: "The user greets me.", Content: "Hello!"})
	c := newClient(t, srv, "qwen3:4b")
	think := true
	var thought, said string
	resp, err := c.Chat(t.Context(), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}, Think: &think}, func(ch Chunk) error {
		thought += ch.Thinking
		said += ch.Content
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if thought != "The user greets me." || said != "Hello!" || resp.Message.Thinking != thought {
		t.Errorf("thinking %q, content %q, response %+v", thought, said, resp.Message)
	}
	if string(srv.Chats()[0].Think) != "true" {
		t.Errorf("think sent = %s", srv.Chats()[0].Think)
	}
}

func TestChatFailures(t *testing.T) {
	srv := ollamatest.New(small, noTools)
	defer srv.Close()
	tool := []Tool{{Name: "get_current_time", Description: "Time now."}}
	tests := []struct {
		name    string
		model   string
		reply   *ollamatest.Reply
		tools   []Tool
		want    error
		message string
	}{
		{name: "model without tools", model: "gemma:2b", tools: tool, want: ErrNoTools, message: "registry.ollama.ai/library/gemma:2b does not support tools"},
		{name: "scripted no tools", model: "llama3.2:1b", reply: &ollamatest.Reply{Fault: ollamatest.NoTools}, want: ErrNoTools},
		{name: "model not pulled", model: "mistral:7b", want: ErrModelNotFound, message: `model "mistral:7b" not found, try pulling it first`},
		{name: "server error", model: "llama3.2:1b", reply: &ollamatest.Reply{Fault: ollamatest.ServerError, Error: "out of memory"}, want: ErrServerFailed, message: "server answered 500: out of memory"},
		{name: "refused", model: "llama3.2:1b", reply: &ollamatest.Reply{Fault: ollamatest.BadRequest, Error: "invalid format"}, message: "server answered 400: invalid format"},
		{name: "dropped mid-stream", model: "llama3.2:1b", reply: &ollamatest.Reply{Content: "one two three four", Fault: ollamatest.DropMidStream, DropAfter: 2}, want: ErrStreamCut},
		{name: "error line mid-stream", model: "llama3.2:1b", reply: &ollamatest.Reply{Content: "one two three", Fault: ollamatest.StreamError, DropAfter: 1, Error: "runner crashed"}, want: ErrServerFailed, message: "runner crashed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reply != nil {
				srv.Enqueue(*tt.reply)
			}
			c := newClient(t, srv, tt.model)
			_, err := c.Chat(t.Context(), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}, Tools: tt.tools}, func(Chunk) error { return nil })
			if err == nil {
				t.Fatal("Chat succeeded")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
			if tt.want == nil && errors.Is(err, ErrServerFailed) {
				t.Errorf("err = %v: a refusal of the request is no failure of the server", err)
			}
			if !strings.Contains(err.Error(), tt.message) || !strings.HasPrefix(err.Error(), "llm: chat:") {
				t.Errorf("err = %q, want it to start with the operation and contain %q", err, tt.message)
			}
		})
	}
}

func TestChatUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens here now
	c, _ := New(Options{Host: &url.URL{Scheme: "http", Host: addr}, Model: "llama3.2:1b"})
	_, err = c.Chat(t.Context(), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, func(Chunk) error { return nil })
	if !errors.Is(err, ErrUnreachable) {
		t.Fatalf("err = %v, want ErrUnreachable", err)
	}
	if _, err := c.Version(t.Context()); !errors.Is(err, ErrUnreachable) {
		t.Errorf("Version err = %v, want ErrUnreachable", err)
	}
}

func TestChatCancelledWhileWaitingForFirstToken(t *testing.T) {
	srv := ollamatest.New(small)
	defer srv.Close()
	srv.Enqueue(ollamatest.Reply{Content: "late", FirstTokenDelay: time.Minute})
	c := newClient(t, srv, "llama3.2:1b")
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err := c.Chat(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, func(Chunk) error { return nil })
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want the deadline", err)
	}
	srv.Quiet()
	if reqs := srv.Requests(); len(reqs) != 1 || !reqs[0].Cancelled {
		t.Errorf("server did not see the request cancelled: %+v", reqs)
	}
}

func TestChunkCallbackErrorStops(t *testing.T) {
	srv := ollamatest.New(small)
	defer srv.Close()
	srv.Enqueue(ollamatest.Reply{Content: "a b c d e f"})
	c := newClient(t, srv, "llama3.2:1b")
	stop := errors.New("enough")
	n := 0
	_, err := c.Chat(t.Context(), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}, func(Chunk) error {
		n++
		if n == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || n != 2 {
		t.Errorf("err = %v after %d chunks, want the callback's error after 2", err, n)
	}
}

func TestShowAndVersion(t *testing.T) {
	srv := ollamatest.New(small)
	defer srv.Close()
	c := newClient(t, srv, "llama3.2:1b")
	info, err := c.Show(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	if info.ParameterSize != "1.2B" || info.Parameters != 1_200_000_000 || info.Family != "llama" || info.ContextLength != 131072 || !info.Supports("tools") || info.Supports("thinking") {
		t.Errorf("Show = %+v", info)
	}
	if _, err := c.Show(t.Context(), "nope"); !errors.Is(err, ErrModelNotFound) {
		t.Errorf("Show unknown = %v, want ErrModelNotFound", err)
	}
	v, err := c.Version(t.Context())
	if err != nil || v != ollamatest.Version {
		t.Errorf("Version = %q, %v", v, err)
	}
}

func TestParseHostMatchesOllama(t *testing.T) {
	for _, in := range []string{
		"", "box.lan", "box.lan:8080", "10.0.0.5", "10.0.0.5:11435", "http://box.lan", "https://box.lan",
		"http://box.lan:9000", "https://box.lan/ollama", "[::1]", "[::1]:9999", "0.0.0.0", ":11434", "ollama.com",
		"  box.lan  ", "http://[fe80::1]:8000/x",
	} {
		t.Setenv("OLLAMA_HOST", in)
		want := envconfig.Host()
		got, err := ParseHost(in)
		if err != nil {
			t.Errorf("ParseHost(%q): %v", in, err)
			continue
		}
		if got.String() != want.String() {
			t.Errorf("ParseHost(%q) = %s, Ollama reads %s", in, got, want)
		}
	}
	for _, bad := range []string{"box.lan:99999", "box.lan:http", "ftp://box.lan", "not a host::", "box lan", "http://box..lan", "-box.lan"} {
		if _, err := ParseHost(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("ParseHost(%q) = %v, want an error naming it", bad, err)
		}
	}
}

func TestNewNeedsModel(t *testing.T) {
	if _, err := New(Options{}); err == nil {
		t.Error("New without a model succeeded")
	}
}

func TestDecodeJSON(t *testing.T) {
	var v struct {
		Steps []string `json:"steps"`
	}
	for _, in := range []string{`{"steps":["reply"]}`, "```json\n{\"steps\": [\"reply\"]}\n```", `Sure! {"steps": ["reply"]} Hope that helps.`} {
		v.Steps = nil
		if err := DecodeJSON(in, &v); err != nil || len(v.Steps) != 1 || v.Steps[0] != "reply" {
			t.Errorf("DecodeJSON(%q) = %v, %v", in, v, err)
		}
	}
	for _, bad := range []string{"no json", `{"steps": [`, `{"steps": [} ]}`} {
		if err := DecodeJSON(bad, &v); err == nil {
			t.Errorf("DecodeJSON(%q) succeeded", bad)
		}
	}
}

// TestShowReadsTheModelsBound: the num_predict a model's Modelfile sets is
// in what Show tells, 0 when it sets none.
func TestShowReadsTheModelsBound(t *testing.T) {
	for _, tt := range []struct {
		params string
		want   int
	}{
		{"", 0},
		{"temperature                    0", 0},
		{"num_predict                    20\nstop                           \"<|eot_id|>\"", 20},
		{"stop \"</s>\"\nnum_predict -1", -1},
	} {
		m := small
		m.Parameters = tt.params
		srv := ollamatest.New(m)
		info, err := newClient(t, srv, m.Name).Show(t.Context(), "")
		srv.Close()
		if err != nil || info.NumPredict != tt.want {
			t.Errorf("parameters %q: NumPredict = %d, %v; want %d", tt.params, info.NumPredict, err, tt.want)
		}
	}
}

// TestParseHostHidesAPassword: Ollama reads no user or password in its
// address, and neither does Hark; an address written with them is refused
// with an error that says so and never repeats the password, since the
// error reaches the log, the status and the page.
func TestParseHostHidesAPassword(t *testing.T) {
	for _, in := range []string{"http://admin:hunter2@box.lan:11434", "admin:hunter2@box.lan", "https://admin:hunter2@box.lan/ollama", "http://admin@box.lan"} {
		_, err := ParseHost(in)
		if err == nil {
			t.Errorf("ParseHost(%q): no error; want one saying a user and password are not read", in)
			continue
		}
		if msg := err.Error(); strings.Contains(msg, "hunter2") || !strings.Contains(msg, "box.lan") || !strings.Contains(msg, "user name") {
			t.Errorf("ParseHost(%q) = %q: want the address named without its password, and the user info said to be the problem", in, msg)
		}
	}
}
