package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// freePort is a loopback address nothing listens on yet.
func freePort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// TestCenterContract: the command lines a test outside the project uses.
// `hark center --data D nodes add NAME` prints NODE_ID:KEY last; `hark
// center --data D --listen ADDR --insecure-http` serves the seed's paths
// with that key as a bearer token; and a box configured as a node asks
// it, while the center runs the model.
func TestCenterContract(t *testing.T) {
	srv, m := modelServer(t)
	env := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()})
	dir := t.TempDir()
	code, out, errOut := ask(t, env, "center", "--data", dir, "nodes", "add", "kitchen")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	cred := lines[len(lines)-1]
	if code != 0 || !strings.HasPrefix(cred, "kitchen:") || len(cred) < 40 {
		t.Fatalf("nodes add: %d %q %q", code, out, errOut)
	}
	if !strings.Contains(out, "fingerprint = \"sha256:") {
		t.Errorf("nodes add does not print the fingerprint to pin: %q", out)
	}
	addr := freePort(t)
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan int, 1)
	go func() {
		var o, e output
		served <- run(ctx, []string{"center", "--data", dir, "--listen", addr, "--insecure-http"}, envWith(env, &o, &e))
	}()
	defer func() {
		cancel()
		if code := <-served; code != 0 {
			t.Errorf("hark center exited %d", code)
		}
	}()
	waitListening(t, addr)

	m.On(replytest.Chat, ollamatest.Reply{Content: "Hello from the center."})
	body := `{"voice_command": "tell me something cheerful", "conversation_id": "c1", "node_context": {"room": "kitchen"}}`
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/api/v0/voice/command", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+cred)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var got map[string]any
	json.Unmarshal(raw, &got)
	if resp.StatusCode != 200 || got["stop_reason"] != "complete" || got["assistant_message"] != "Hello from the center." {
		t.Fatalf("%d %s", resp.StatusCode, raw)
	}
	for _, k := range []string{"commands", "request_information", "tool_calls", "validation_request"} {
		if _, ok := got[k]; !ok {
			t.Errorf("the answer lacks %q: %s", k, raw)
		}
	}
	if sys := chats(srv)[0].Messages; !strings.Contains(sys[len(sys)-1].Content, "the kitchen speaker") {
		t.Errorf("the node's room did not reach the prompt: %q", sys[len(sys)-1].Content)
	}

	// A box configured as a node of that center.
	node := writeConfig(t, fmt.Sprintf("[center]\nurl = \"http://%s\"\nkey = %q\ninsecure_http = true\nroom = \"hall\"\n", addr, cred))
	m.On(replytest.Chat, ollamatest.Reply{Content: "The center says hi."})
	nodeEnv := vars(map[string]string{"OLLAMA_HOST": "http://127.0.0.1:1", "HOME": t.TempDir()})
	code, out, errOut = ask(t, nodeEnv, "ask", "--data", t.TempDir(), "--config", node, "say something nice to me")
	if code != 0 || !strings.Contains(out, "The center says hi.") {
		t.Errorf("hark ask on a node: %d %q %q", code, out, errOut)
	}
	// The offline core still answers on the node, without the center.
	calls := len(srv.Chats())
	code, out, _ = ask(t, nodeEnv, "ask", "--data", t.TempDir(), "--config", node, "what is seven times six")
	if code != 0 || !strings.Contains(out, "42") || len(srv.Chats()) != calls {
		t.Errorf("offline on a node: %d %q, %d model calls", code, out, len(srv.Chats())-calls)
	}
}

// TestNodeWithoutItsCenter: a node whose center is down says so in one
// sentence and still answers offline; hark status shows the link.
func TestNodeWithoutItsCenter(t *testing.T) {
	addr := freePort(t)
	node := writeConfig(t, fmt.Sprintf("[center]\nurl = \"http://%s\"\nkey = \"hall:abc\"\ninsecure_http = true\n", addr))
	env := vars(map[string]string{"OLLAMA_HOST": "http://127.0.0.1:1", "HOME": t.TempDir()})
	data := t.TempDir()
	code, out, _ := ask(t, env, "ask", "--data", data, "--config", node, "tell me a story about the sea")
	if code == 0 || !strings.Contains(out, "can't reach the command center") {
		t.Errorf("center down: %d %q", code, out)
	}
	code, out, _ = ask(t, env, "ask", "--data", data, "--config", node, "what is seven times six")
	if code != 0 || !strings.Contains(out, "42") {
		t.Errorf("offline with the center down: %d %q", code, out)
	}
}

// serveCenterTest runs `hark center ARGS --listen ADDR --insecure-http`
// until the test ends, and returns ADDR once it listens.
func serveCenterTest(t *testing.T, env func(string) string, args ...string) string {
	t.Helper()
	addr := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan int, 1)
	go func() {
		var o, e output
		served <- run(ctx, append(append([]string{"center"}, args...), "--listen", addr, "--insecure-http"), envWith(env, &o, &e))
	}()
	t.Cleanup(func() {
		cancel()
		if code := <-served; code != 0 {
			t.Errorf("hark center exited %d", code)
		}
	})
	waitListening(t, addr)
	return addr
}

func envWith(e func(string) string, out, errOut *output) env {
	return env{stdin: strings.NewReader(""), stdout: out, stderr: errOut, getenv: e}
}

func waitListening(t *testing.T, addr string) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("nothing listens on %s", addr)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestFallbackChainContract: [[ollama.endpoint]] tables are a fallback
// chain; with the first server gone, the second answers, and a bad entry
// is named.
func TestFallbackChainContract(t *testing.T) {
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "The backup answers."})
	dead := freePort(t)
	cfg := writeConfig(t, fmt.Sprintf("[[ollama.endpoint]]\nhost = \"http://%s\"\nmodel = \"llama3.2:3b\"\n[[ollama.endpoint]]\nhost = %q\nmodel = \"llama3.2:3b\"\n", dead, srv.URL))
	env := vars(map[string]string{"HOME": t.TempDir()})
	code, out, errOut := ask(t, env, "ask", "--data", t.TempDir(), "--config", cfg, "tell me something cheerful")
	if code != 0 || !strings.Contains(out, "The backup answers.") {
		t.Errorf("%d %q %q", code, out, errOut)
	}
	bad := writeConfig(t, "[[ollama.endpoint]]\nhost = \"gpu.lan\"\n")
	code, _, errOut = ask(t, env, "ask", "--data", t.TempDir(), "--config", bad, "tell me a joke")
	if code == 0 || !strings.Contains(errOut, "ollama.endpoint[0].model") {
		t.Errorf("a model-less endpoint: %d %q", code, errOut)
	}
}

// TestCenterOffersMCPTools: the MCP servers configured on the center give
// every conversation their tools.
func TestCenterOffersMCPTools(t *testing.T) {
	srv, m := modelServer(t)
	env := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()})
	dir := t.TempDir()
	cfg := mcpConfig(t)
	_, out, _ := ask(t, env, "center", "--config", cfg, "--data", dir, "nodes", "add", "kitchen")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	cred := lines[len(lines)-1]
	addr := freePort(t)
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan int, 1)
	go func() {
		var o, e output
		served <- run(ctx, []string{"center", "--config", cfg, "--data", dir, "--listen", addr, "--insecure-http"}, envWith(env, &o, &e))
	}()
	defer func() {
		cancel()
		if code := <-served; code != 0 {
			t.Errorf("hark center exited %d", code)
		}
	}()
	waitListening(t, addr)
	m.Says(replytest.Planner, `{"steps": ["pantry_count: beans", "reply"]}`).Says(replytest.Router, `{"tools": ["pantry_count"]}`)
	m.On(replytest.Chat,
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "pantry_count", Arguments: map[string]any{"item": "beans"}}}},
		ollamatest.Reply{Content: "Three tins of beans."})
	body := `{"voice_command": "count the tins of beans in the pantry", "conversation_id": "c1", "node_context": {"room": "kitchen"}}`
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/api/v0/voice/command", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+cred)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(raw), "Three tins of beans.") {
		t.Fatalf("%d %s", resp.StatusCode, raw)
	}
	chats := chats(srv)
	if last := chats[len(chats)-1].Messages; !strings.Contains(last[len(last)-1].Content, "There are 3 tins of beans.") {
		t.Errorf("the model did not read the MCP result: %q", last[len(last)-1].Content)
	}
}

// TestCenterServesTheHouseholdsPage: `hark center` serves the web page on
// [web] listen, with the household's memory and the center's health, and
// keeps its setup code in a file only its user may read (its output goes
// to the journal, which others may read), naming the file on its output.
func TestCenterServesTheHouseholdsPage(t *testing.T) {
	srv, _ := modelServer(t)
	env := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()})
	page := freePort(t)
	cfg := writeConfig(t, fmt.Sprintf("[web]\nlisten = %q\n", page))
	addr := freePort(t)
	data := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan int, 1)
	var o, e output
	go func() {
		served <- run(ctx, []string{"center", "--config", cfg, "--data", data, "--listen", addr, "--insecure-http"}, envWith(env, &o, &e))
	}()
	defer func() {
		cancel()
		if code := <-served; code != 0 {
			t.Errorf("hark center exited %d: %s", code, e.String())
		}
	}()
	waitListening(t, page)
	o.waitFor(t, "its first visit asks for the code in ", 1)
	codeFile := filepath.Join(data, "web", "setup-code")
	if st, err := os.Stat(codeFile); err != nil || st.Mode().Perm() != 0o600 || !strings.Contains(o.String(), codeFile) {
		t.Fatalf("the setup code's file %s: %v (%v); output:\n%s", codeFile, st, err, o.String())
	}
	b, _ := os.ReadFile(codeFile)
	m := []string{"", strings.TrimSpace(string(b))}
	if len(m[1]) != 8 || strings.Contains(o.String(), m[1]) {
		t.Errorf("the setup code %q is on the center's output:\n%s", m[1], o.String())
	}
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.PostForm("http://"+page+"/setup", url.Values{"code": {m[1]}, "password": {"household page"}})
	if err != nil || resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("setup: %v %v", resp, err)
	}
	resp.Body.Close()
	get := func(path string) (int, string) {
		req, _ := http.NewRequest("GET", "http://"+page+path, nil)
		req.AddCookie(resp.Cookies()[0])
		r, err := noRedirect.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, _ := io.ReadAll(r.Body)
		return r.StatusCode, string(b)
	}
	if code, body := get("/"); code != http.StatusOK || !strings.Contains(body, "serving the household") || !strings.Contains(body, "model server") {
		t.Errorf("the center's status page: %d\n%s", code, body)
	}
	if code, _ := get("/memory"); code != http.StatusOK {
		t.Errorf("the household's memory: %d", code)
	}
	if code, body := get("/timers"); code != http.StatusNotFound || !strings.Contains(body, "does not offer") {
		t.Errorf("timers on the center (they live on the nodes): %d", code)
	}
}

// TestCenterEnrolsAJarvisNode: `hark center nodes add NAME --id ID --key
// KEY --room ROOM` enrols a Jarvis node with the id and key it already
// has, printing ID:KEY last; the node then gets through with X-API-Key and
// nothing else, and the room it never sends reaches the prompt.
func TestCenterEnrolsAJarvisNode(t *testing.T) {
	srv, m := modelServer(t)
	env := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()})
	dir := t.TempDir()
	const id, key = "0d6c1c2e-7d4b-4d56-9a51-6c1f3b1c2a10", "the-key-this-node-was-given"
	code, out, errOut := ask(t, env, "center", "--data", dir, "nodes", "add", "kitchen", "--id", id, "--key", key, "--room", "kitchen")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || lines[len(lines)-1] != id+":"+key {
		t.Fatalf("nodes add: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := ask(t, env, "center", "--data", dir, "nodes", "add", "den", "--key", key); code == 0 || !strings.Contains(errOut, "--key needs --id") {
		t.Errorf("a key without an id: %d %q", code, errOut)
	}
	if _, out, _ := ask(t, env, "center", "--data", dir, "nodes", "list"); !strings.Contains(out, "kitchen") || !strings.Contains(out, id) {
		t.Errorf("nodes list: %q", out)
	}
	addr := serveCenterTest(t, env, "--data", dir)
	do := func(method, path, body string) (*http.Response, []byte) {
		req, _ := http.NewRequest(method, "http://"+addr+path, strings.NewReader(body))
		req.Header.Set("X-API-Key", id+":"+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		return resp, raw
	}
	if resp, raw := do("GET", "/api/v0/generate/date-context?timezone=UTC-00:00", ""); resp.StatusCode != 200 || !strings.Contains(string(raw), `"weekday_number"`) {
		t.Fatalf("date context: %d %s", resp.StatusCode, raw)
	}
	if resp, raw := do("POST", "/api/v0/conversation/start", `{"conversation_id": "c1", "node_context": {"timezone": "UTC-00:00"}, "client_tools": []}`); resp.StatusCode != 200 {
		t.Fatalf("start: %d %s", resp.StatusCode, raw)
	}
	m.On(replytest.Chat, ollamatest.Reply{Content: "Hello from the center."})
	resp, raw := do("POST", "/api/v0/voice/command/stream", `{"voice_command": "tell me something cheerful", "conversation_id": "c1"}`)
	switch {
	case resp.StatusCode == 200: // the center has a voice (espeak-ng)
		if resp.Header.Get("Content-Type") != "audio/raw" || resp.Header.Get("X-Assistant-Message") != "Hello%20from%20the%20center." || len(raw) == 0 {
			t.Errorf("a spoken answer: %v, %d bytes", resp.Header, len(raw))
		}
	case resp.StatusCode == 202:
		if !strings.Contains(string(raw), "Hello from the center.") {
			t.Errorf("a text answer: %s", raw)
		}
	default:
		t.Fatalf("stream: %d %s", resp.StatusCode, raw)
	}
	if sys := chats(srv)[0].Messages; !strings.Contains(sys[len(sys)-1].Content, "the kitchen speaker") {
		t.Errorf("the node's room did not reach the prompt: %q", sys[len(sys)-1].Content)
	}
}
