package mcp

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harkbox/hark/reply/command"
)

type secrets map[string]string

func (s secrets) Get(_ context.Context, k string) (string, error) { return s[k], nil }

// start runs a hub over servers into a fresh registry until the test ends,
// and waits for every server's first try.
func start(t *testing.T, reg *command.Registry, o Options) *Hub {
	t.Helper()
	if reg == nil {
		reg = command.NewRegistry(command.Options{})
	}
	o.Catalogue = reg
	if o.MinBackoff == 0 {
		o.MinBackoff = 20 * time.Millisecond
	}
	if testing.Verbose() {
		o.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	h, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		h.Wait()
		for _, s := range h.Servers() {
			if s.State != "stopped" {
				t.Errorf("server %s is %s after Wait", s.Name, s.State)
			}
		}
	})
	h.Start(ctx)
	rctx, rcancel := context.WithTimeout(ctx, 30*time.Second)
	defer rcancel()
	if err := h.Ready(rctx); err != nil {
		t.Fatalf("servers not tried within 30 s: %v", err)
	}
	return h
}

// waitFor polls cond until it holds, failing after 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); !cond(); {
		if time.Now().After(end) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func names(reg *command.Registry) []string {
	var out []string
	for _, c := range reg.Commands() {
		out = append(out, c.Name)
	}
	return out
}

func result(t *testing.T, r command.Response) string {
	t.Helper()
	if r.Kind != command.Success {
		t.Fatalf("call failed: %q %v", r.Spoken, r.Data)
	}
	s, _ := r.Data["result"].(string)
	return s
}

func TestStdioServerToolsJoinTheCatalogue(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	h := start(t, reg, Options{Servers: []Server{selfServer(t, "kit", "sdk")}})
	got := names(reg)
	for _, want := range []string{"get_sum", "echo", "hang", "fail", "die"} {
		if !slices.Contains(got, want) {
			t.Errorf("catalogue %v lacks %s", got, want)
		}
	}
	out := result(t, reg.Call(context.Background(), "get_sum", map[string]any{"a": 2, "b": 3.5}, "what is two plus three and a half"))
	if !strings.Contains(out, "The sum is 5.5.") || !strings.HasPrefix(out, "UNTRUSTED TEXT FROM the kit server") {
		t.Errorf("result %q: want the sum, fenced", out)
	}
	// camelCase parameters become snake_case and go back as the server names them
	out = result(t, reg.Call(context.Background(), "echo", map[string]any{"message": "hello", "loud_voice": true}, "say hello loudly"))
	if !strings.Contains(out, "HELLO") {
		t.Errorf("echo with loud_voice: %q", out)
	}
	st := h.Servers()
	if len(st) != 1 || st[0].State != "up" || st[0].Transport != "stdio" || len(st[0].Tools) != 5 {
		t.Errorf("status %+v", st)
	}
}

func TestToolSchemaBecomesParameters(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	start(t, reg, Options{Servers: []Server{selfServer(t, "kit", "sdk")}})
	c, ok := reg.Lookup("echo")
	if !ok {
		t.Fatal("no echo")
	}
	params := map[string]command.Parameter{}
	for _, p := range c.Parameters {
		params[p.Name] = p
	}
	if p := params["message"]; p.Type != "string" || !p.Required || p.Description != "what to say back" {
		t.Errorf("message parameter %+v", p)
	}
	if p := params["loud_voice"]; p.Type != "bool" || p.Required {
		t.Errorf("loud_voice parameter %+v", p)
	}
	// a wrong type is refused before the server is asked
	if r := reg.Call(context.Background(), "get_sum", map[string]any{"a": "lots", "b": 1}, ""); r.Kind != command.Invalid {
		t.Errorf("a string for a number: %v %q", r.Kind, r.Spoken)
	}
}

func TestHTTPServerWithBearerToken(t *testing.T) {
	srv := testServer()
	ts := httptest.NewServer(bearerOnly("s3cret", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)))
	t.Cleanup(ts.Close)
	reg := command.NewRegistry(command.Options{})
	h := start(t, reg, Options{
		Servers: []Server{{Name: "house", URL: ts.URL, TokenSecret: "HOUSE_TOKEN"}},
		Secrets: secrets{"HOUSE_TOKEN": "s3cret"},
	})
	if st := h.Servers()[0]; st.State != "up" || st.Transport != "http" {
		t.Fatalf("status %+v", st)
	}
	if out := result(t, reg.Call(context.Background(), "get_sum", map[string]any{"a": 40, "b": 2}, "")); !strings.Contains(out, "42") {
		t.Errorf("sum over HTTP: %q", out)
	}
}

func TestHTTPServerRefusesAWrongToken(t *testing.T) {
	srv := testServer()
	ts := httptest.NewServer(bearerOnly("s3cret", sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)))
	t.Cleanup(ts.Close)
	reg := command.NewRegistry(command.Options{})
	h := start(t, reg, Options{
		Servers:    []Server{{Name: "house", URL: ts.URL, TokenSecret: "HOUSE_TOKEN"}, {Name: "other", URL: ts.URL, TokenSecret: "UNSET"}},
		Secrets:    secrets{"HOUSE_TOKEN": "wrong"},
		MinBackoff: time.Hour,
	})
	st := h.Servers()
	if st[0].State != "down" || !strings.Contains(st[0].Error, "401") && !strings.Contains(strings.ToLower(st[0].Error), "unauthorized") {
		t.Errorf("wrong token: %+v", st[0])
	}
	if st[1].State != "down" || !strings.Contains(st[1].Error, "hark secrets set UNSET") {
		t.Errorf("token not set: %+v", st[1])
	}
	if len(reg.Commands()) != 0 {
		t.Errorf("tools of a refused server registered: %v", names(reg))
	}
}

func TestAllowAndDenyLists(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	a, b := selfServer(t, "a", "sdk"), selfServer(t, "b", "sdk")
	a.Allow = []string{"get-sum", "echo"}
	b.Deny = []string{"die", "hang", "fail", "echo"}
	start(t, reg, Options{Servers: []Server{a, b}})
	got := names(reg)
	slices.Sort(got)
	// b's get-sum clashes with a's (or the other way round): one is prefixed
	if len(got) != 3 || !slices.Contains(got, "echo") || !slices.Contains(got, "get_sum") ||
		!slices.Contains(got, "a_get_sum") && !slices.Contains(got, "b_get_sum") {
		t.Errorf("catalogue %v, want echo, get_sum and a prefixed get_sum", got)
	}
}

func TestNamesNeverShadowBuiltIns(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	builtIn := &command.Command{Name: "echo", Description: "The box's own echo.", Run: func(context.Context, command.Call) (command.Response, error) {
		return command.Response{Spoken: "built-in"}, nil
	}}
	if err := reg.Register(builtIn); err != nil {
		t.Fatal(err)
	}
	h := start(t, reg, Options{Servers: []Server{selfServer(t, "kit", "sdk")}})
	if r := reg.Call(context.Background(), "echo", map[string]any{}, ""); r.Spoken != "built-in" {
		t.Errorf("echo is no longer the built-in: %q", r.Spoken)
	}
	if out := result(t, reg.Call(context.Background(), "kit_echo", map[string]any{"message": "hi"}, "")); !strings.Contains(out, "hi") {
		t.Errorf("kit_echo: %q", out)
	}
	var tools []Tool
	for _, s := range h.Servers() {
		tools = append(tools, s.Tools...)
	}
	if !slices.Contains(tools, Tool{Name: "kit_echo", Remote: "echo"}) {
		t.Errorf("status tools %v lack kit_echo for echo", tools)
	}
}

func TestAHungToolTimesOut(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	s := selfServer(t, "kit", "sdk")
	s.Timeout = 300 * time.Millisecond
	start(t, reg, Options{Servers: []Server{s}})
	r := reg.Call(context.Background(), "hang", nil, "")
	if r.Kind != command.Failure || r.Spoken != "The hang tool took too long to answer." {
		t.Errorf("hung tool: %v %q", r.Kind, r.Spoken)
	}
	// the server is still there for the next call
	if out := result(t, reg.Call(context.Background(), "get_sum", map[string]any{"a": 1, "b": 1}, "")); !strings.Contains(out, "2") {
		t.Errorf("after a timeout: %q", out)
	}
}

func TestAToolErrorIsSpokenShortAndFenced(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	start(t, reg, Options{Servers: []Server{selfServer(t, "kit", "sdk")}})
	r := reg.Call(context.Background(), "fail", nil, "")
	if r.Kind != command.Failure || r.Spoken != "The fail tool reported a problem." {
		t.Errorf("failed tool: %v %q", r.Kind, r.Spoken)
	}
	if e, _ := r.Data["error"].(string); !strings.Contains(e, "sensor is offline") || !strings.HasPrefix(e, "UNTRUSTED TEXT") {
		t.Errorf("error data %q: want the server's words, fenced", e)
	}
}

func TestAMalformedResponseIsAShortError(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	start(t, reg, Options{Servers: []Server{selfServer(t, "broken", "malformed")}})
	r := reg.Call(context.Background(), "garbled", nil, "")
	if r.Kind != command.Failure || r.Spoken != "The garbled tool gave an answer I can't use." {
		t.Errorf("malformed answer: %v %q %v", r.Kind, r.Spoken, r.Data)
	}
	if out := result(t, reg.Call(context.Background(), "fine", nil, "")); !strings.Contains(out, "all good") {
		t.Errorf("the server's other tool after a malformed answer: %q", out)
	}
}

func TestADeadServerLeavesAndComesBack(t *testing.T) {
	reg := command.NewRegistry(command.Options{})
	h := start(t, reg, Options{Servers: []Server{selfServer(t, "kit", "sdk")}, MinBackoff: 300 * time.Millisecond})
	r := reg.Call(context.Background(), "die", nil, "")
	if r.Kind != command.Failure {
		t.Errorf("a call that killed the server: %v %q", r.Kind, r.Spoken)
	}
	waitFor(t, "the dead server's tools to leave", func() bool { _, ok := reg.Lookup("get_sum"); return !ok })
	if st := h.Servers()[0]; st.State != "down" && st.State != "connecting" {
		t.Errorf("state after death: %+v", st)
	}
	if r := reg.Call(context.Background(), "get_sum", map[string]any{"a": 1, "b": 2}, ""); r.Kind != command.Failure {
		t.Errorf("calling a tool that left: %v", r.Kind)
	}
	waitFor(t, "the server to be started again", func() bool { _, ok := reg.Lookup("get_sum"); return ok })
	if st := h.Servers()[0]; st.State != "up" || st.Restarts < 1 {
		t.Errorf("state after restart: %+v", st)
	}
	if out := result(t, reg.Call(context.Background(), "get_sum", map[string]any{"a": 1, "b": 2}, "")); !strings.Contains(out, "3") {
		t.Errorf("after restart: %q", out)
	}
}

func TestAChangedToolListIsReadAgain(t *testing.T) {
	srv := testServer()
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	reg := command.NewRegistry(command.Options{})
	start(t, reg, Options{Servers: []Server{{Name: "house", URL: ts.URL}}})
	sdk.AddTool(srv, &sdk.Tool{Name: "garage_door", Description: "Whether the garage door is open."},
		func(context.Context, *sdk.CallToolRequest, noIn) (*sdk.CallToolResult, any, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "open"}}}, nil, nil
		})
	waitFor(t, "the new tool", func() bool { _, ok := reg.Lookup("garage_door"); return ok })
	srv.RemoveTools("hang")
	waitFor(t, "the removed tool to leave", func() bool { _, ok := reg.Lookup("hang"); return !ok })
}

func TestServerConfigurationIsChecked(t *testing.T) {
	for _, tc := range []struct {
		s    Server
		want string
	}{
		{Server{Name: "Bad Name", URL: "http://x"}, "lower-case"},
		{Server{Name: "x"}, "neither a command"},
		{Server{Name: "x", URL: "http://x", Command: []string{"y"}}, "both"},
		{Server{Name: "x", URL: "ftp://x"}, "not http"},
		{Server{Name: "x", Command: []string{"y"}, TokenSecret: "T"}, "token is for a url"},
	} {
		if err := tc.s.Check(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want %q", tc.s, err, tc.want)
		}
	}
	if _, err := New(Options{Catalogue: command.NewRegistry(command.Options{}), Servers: []Server{{Name: "a", URL: "http://x"}, {Name: "a", URL: "http://y"}}}); err == nil {
		t.Error("two servers of one name accepted")
	}
}

func TestSnakeNames(t *testing.T) {
	for in, want := range map[string]string{
		"get-sum": "get_sum", "maxTokens": "max_tokens", "HassTurnOn": "hass_turn_on", "HTTPServer": "http_server",
		"echo": "echo", "get.weather/now": "get_weather_now", "2fa": "t_2fa", "--": "", "already_snake": "already_snake",
	} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}
