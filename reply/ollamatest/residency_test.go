package ollamatest

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

var slowLoading = Model{Name: "llama3.2:1b", Family: "llama", ParameterSize: "1.2B", Capabilities: []string{"completion", "tools"}, LoadDelay: 300 * time.Millisecond}

func listed(t *testing.T, s *Server) []string {
	t.Helper()
	resp, err := http.Get(s.URL + "/api/ps")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ps struct {
		Models []struct {
			Name      string    `json:"name"`
			ExpiresAt time.Time `json:"expires_at"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ps); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range ps.Models {
		out = append(out, m.Name)
	}
	return out
}

func chatBody(messages string, keepAlive string) string {
	b := `{"model":"llama3.2:1b","stream":false,"messages":` + messages
	if keepAlive != "" {
		b += `,"keep_alive":` + keepAlive
	}
	return b + "}"
}

// TestLoadTakesItsTimeAndPsShowsIt: a cold model is loaded by the first
// request, which reports the load; /api/ps lists it from the load's start;
// a request meanwhile waits for the same load.
func TestLoadTakesItsTimeAndPsShowsIt(t *testing.T) {
	s := New(slowLoading)
	defer s.Close()
	s.Respond(func(ChatRequest) Reply { return Reply{Content: "Hi."} })
	if got := listed(t, s); len(got) != 0 {
		t.Fatalf("ps before any request lists %v, want nothing", got)
	}
	var wg sync.WaitGroup
	loads := make([]float64, 2)
	for i := range 2 {
		wg.Go(func() {
			resp := post(t, s.URL+"/api/chat", chatBody(`[{"role":"user","content":"hi"}]`, ""))
			defer resp.Body.Close()
			var m map[string]any
			json.NewDecoder(resp.Body).Decode(&m)
			loads[i], _ = m["load_duration"].(float64)
		})
		time.Sleep(50 * time.Millisecond)
	}
	if got := listed(t, s); len(got) != 1 || got[0] != "llama3.2:1b" {
		t.Errorf("ps while loading lists %v, want the model", got)
	}
	wg.Wait()
	if n, aborted := s.Loads(); n != 1 || aborted != 0 {
		t.Errorf("loads %d, aborted %d: want one load for both requests", n, aborted)
	}
	if loads[0] < float64(250*time.Millisecond) {
		t.Errorf("the loading request reported load_duration %v, want the load's 300 ms", time.Duration(loads[0]))
	}
}

// TestClientLeavingAbortsTheLoad: as on Ollama, a client that goes away
// while its request loads the model aborts the load.
func TestClientLeavingAbortsTheLoad(t *testing.T) {
	s := New(slowLoading)
	defer s.Close()
	s.Respond(func(ChatRequest) Reply { return Reply{Content: "Hi."} })
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.URL+"/api/chat", strings.NewReader(chatBody(`[{"role":"user","content":"hi"}]`, "")))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatal("the request came back before the load ended")
	}
	s.Quiet()
	if n, aborted := s.Loads(); n != 0 || aborted != 1 || s.Loaded("llama3.2:1b") {
		t.Errorf("loads %d, aborted %d, loaded %v: want the load aborted", n, aborted, s.Loaded("llama3.2:1b"))
	}
}

// TestLoadAndUnloadWithoutMessages: a chat without messages loads the
// model; with keep_alive 0 it unloads it, as does /api/generate.
func TestLoadAndUnloadWithoutMessages(t *testing.T) {
	s := New(slowLoading)
	defer s.Close()
	for _, c := range []struct {
		path, body, reason string
		loaded             bool
	}{
		{"/api/chat", chatBody(`[]`, ""), "load", true},
		{"/api/chat", chatBody(`[]`, "0"), "unload", false},
		{"/api/generate", `{"model":"llama3.2:1b"}`, "load", true},
		{"/api/generate", `{"model":"llama3.2:1b","keep_alive":0}`, "unload", false},
	} {
		resp := post(t, s.URL+c.path, c.body)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), `"done_reason":"`+c.reason+`"`) || s.Loaded("llama3.2:1b") != c.loaded {
			t.Errorf("%s %s: %s, loaded %v; want %s", c.path, c.body, b, s.Loaded("llama3.2:1b"), c.reason)
		}
	}
}

// TestLimitAnswersOneAtATime: with Limit(1) the second chat waits for the
// first, and its total_duration says how long it waited.
func TestLimitAnswersOneAtATime(t *testing.T) {
	s := New(llama)
	defer s.Close()
	s.Limit(1)
	s.Respond(func(ChatRequest) Reply { return Reply{Content: "Hi.", FirstTokenDelay: 200 * time.Millisecond} })
	var wg sync.WaitGroup
	totals := make([]time.Duration, 2)
	for i := range 2 {
		wg.Go(func() {
			resp := post(t, s.URL+"/api/chat", chatBody(`[{"role":"user","content":"hi"}]`, ""))
			defer resp.Body.Close()
			var m map[string]any
			json.NewDecoder(resp.Body).Decode(&m)
			total, _ := m["total_duration"].(float64)
			totals[i] = time.Duration(total)
		})
	}
	wg.Wait()
	if s.MostAtOnce() != 1 {
		t.Errorf("answered %d at once, want 1", s.MostAtOnce())
	}
	if longest := max(totals[0], totals[1]); longest < 350*time.Millisecond {
		t.Errorf("total durations %v: the one that waited must count its wait", totals)
	}
}
