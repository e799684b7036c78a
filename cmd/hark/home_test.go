package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/harkbox/hark/reply/command/home/hatest"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// TestHomeAssistantContract: HA_URL and HA_TOKEN set with hark secrets
// (values on standard input) configure Home Assistant; "turn on the living
// room light" is then carried out offline, with no model, by the service
// call Home Assistant's REST API expects on the lights of the area Home
// Assistant's template API names, and the call shows in --json's tools.
func TestHomeAssistantContract(t *testing.T) {
	ha := hatest.New(t, nil, []hatest.Area{{ID: "living_room", Name: "Living Room"}}, nil, []hatest.Entity{
		{ID: "light.living_room_main", Name: "Living Room Main Light", State: "off", Area: "living_room"},
		{ID: "light.porch", Name: "Porch Light", State: "off"},
		{ID: "switch.kettle", Name: "Kettle", State: "off", Area: "living_room"},
	})
	srv, _ := modelServer(t)
	env := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()})
	data := t.TempDir()
	for name, value := range ha.Secrets() {
		var out, errOut output
		code := run(t.Context(), []string{"secrets", "set", name, "--data", data}, env1(env, strings.NewReader(value+"\n"), &out, &errOut))
		if code != 0 {
			t.Fatalf("secrets set %s: %d %q", name, code, errOut.String())
		}
	}
	code, out, errOut := ask(t, env, "ask", "--json", "--data", data, "turn on the living room light")
	var res struct {
		Offline bool
		Reply   string
		Tools   []struct {
			Name      string
			Arguments map[string]any
		}
	}
	json.Unmarshal([]byte(out), &res)
	if code != 0 || !res.Offline || res.Reply != "Turned on Living Room Main Light." || len(res.Tools) != 1 || res.Tools[0].Name != "home_service" {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	if calls, _ := json.Marshal(res.Tools[0].Arguments["calls"]); string(calls) != `[{"entity_id":["light.living_room_main"],"service":"light.turn_on"}]` {
		t.Errorf("tools show %s, want the service call", calls)
	}
	if len(srv.Chats()) != 0 {
		t.Error("the model was asked")
	}
	if got := ha.CallsMade(); len(got) != 1 || got[0] != "light.turn_on light.living_room_main {}" {
		t.Errorf("Home Assistant got %q", got)
	}
}

func env1(getenv func(string) string, in io.Reader, out, errOut *output) env {
	return env{stdin: in, stdout: out, stderr: errOut, getenv: getenv}
}

// TestHomeControlThroughTheModel: a request the offline core does not
// claim goes to the model, whose home_control call reaches Home
// Assistant; when Home Assistant refuses the token, the model reads that
// Home Assistant isn't set up.
func TestHomeControlThroughTheModel(t *testing.T) {
	var mu sync.Mutex
	token := "t0ken"
	var calls []string
	mux := http.NewServeMux()
	authorized := func(r *http.Request) bool {
		mu.Lock()
		defer mu.Unlock()
		return r.Header.Get("Authorization") == "Bearer "+token
	}
	mux.HandleFunc("GET /api/states", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		io.WriteString(w, `[{"entity_id": "light.living_room_main", "state": "on", "attributes": {"friendly_name": "Living Room Main Light", "brightness": 255}}]`)
	})
	mux.HandleFunc("POST /api/services/{domain}/{service}", func(w http.ResponseWriter, r *http.Request) {
		if !authorized(r) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		calls = append(calls, r.URL.Path+" "+string(body))
		mu.Unlock()
		io.WriteString(w, "[]")
	})
	ha := httptest.NewServer(mux)
	defer ha.Close()
	srv, m := modelServer(t)
	env := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()})
	data := t.TempDir()
	for name, value := range map[string]string{"HA_URL": ha.URL, "HA_TOKEN": "t0ken"} {
		var out, errOut output
		if code := run(t.Context(), []string{"secrets", "set", name, "--data", data}, env1(env, strings.NewReader(value+"\n"), &out, &errOut)); code != 0 {
			t.Fatalf("secrets set %s: %d %q", name, code, errOut.String())
		}
	}
	m.Says(replytest.Planner, `{"steps": ["home_control: dim the living room light", "reply"]}`).Says(replytest.Router, `{"tools": ["home_control"]}`)
	m.On(replytest.Chat,
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "home_control", Arguments: map[string]any{"action": "set_brightness", "entity": "living room light", "value": "30"}}}},
		ollamatest.Reply{Content: "Done, the living room light is at thirty percent."},
	)
	code, out, errOut := ask(t, env, "ask", "--data", data, "dim the living room light to thirty percent")
	if code != 0 || out != "Done, the living room light is at thirty percent.\n" {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	mu.Lock()
	got := strings.Join(calls, "|")
	token = "rotated" // the long-lived token was revoked in Home Assistant
	mu.Unlock()
	if got != `/api/services/light/turn_on {"brightness_pct":30,"entity_id":"light.living_room_main"}` {
		t.Errorf("Home Assistant got %q", got)
	}

	m.On(replytest.Chat,
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "home_control", Arguments: map[string]any{"action": "set_brightness", "entity": "living room light", "value": "60"}}}},
		ollamatest.Reply{Content: "Home Assistant isn't set up yet."},
	)
	if code, out, errOut = ask(t, env, "ask", "--data", data, "dim the living room light to sixty percent"); code != 0 {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	cs := chats(srv)
	last := cs[len(cs)-1].Messages
	if msg := last[len(last)-1].Content; !strings.Contains(msg, "Home Assistant isn't set up yet") {
		t.Errorf("after a 401 the model read %q", msg)
	}
}
