package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestHomeAssistantContract: HA_URL and HA_TOKEN set with hark secrets
// (values on standard input) configure Home Assistant; "turn on the living
// room light" is then answered offline, with no model, by the service call
// Home Assistant's REST API expects, on the entity whose friendly name is
// the one good match.
func TestHomeAssistantContract(t *testing.T) {
	var mu sync.Mutex
	var calls []string
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/states", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		io.WriteString(w, `[{"entity_id": "light.living_room_main", "state": "off", "attributes": {"friendly_name": "Living Room Main Light"}},
			{"entity_id": "light.porch", "state": "off", "attributes": {"friendly_name": "Porch Light"}},
			{"entity_id": "switch.kettle", "state": "off", "attributes": {"friendly_name": "Kettle"}}]`)
	})
	mux.HandleFunc("POST /api/services/{domain}/{service}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
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
	srv, _ := modelServer(t)
	env := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()})
	data := t.TempDir()
	for name, value := range map[string]string{"HA_URL": ha.URL, "HA_TOKEN": "t0ken"} {
		var out, errOut output
		code := run(t.Context(), []string{"secrets", "set", name, "--data", data}, env1(env, strings.NewReader(value+"\n"), &out, &errOut))
		if code != 0 {
			t.Fatalf("secrets set %s: %d %q", name, code, errOut.String())
		}
	}
	code, out, errOut := ask(t, env, "ask", "--json", "--data", data, "turn on the living room light")
	var res map[string]any
	json.Unmarshal([]byte(out), &res)
	if code != 0 || res["offline"] != true || !strings.Contains(out, "Living Room Main Light is on.") {
		t.Fatalf("%d %q %q", code, out, errOut)
	}
	if len(srv.Chats()) != 0 {
		t.Error("the model was asked")
	}
	mu.Lock()
	defer mu.Unlock()
	var body map[string]any
	if len(calls) != 1 || !strings.HasPrefix(calls[0], "/api/services/light/turn_on ") ||
		json.Unmarshal([]byte(strings.SplitN(calls[0], " ", 2)[1]), &body) != nil || body["entity_id"] != "light.living_room_main" {
		t.Errorf("Home Assistant got %q", calls)
	}
}

func env1(getenv func(string) string, in io.Reader, out, errOut *output) env {
	return env{stdin: in, stdout: out, stderr: errOut, getenv: getenv}
}
