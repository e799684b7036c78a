package ollamatest

import (
	"bufio"
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

// expiry is the expiry /api/ps lists for the one model it lists.
func expiry(t *testing.T, s *Server) time.Time {
	t.Helper()
	resp, err := http.Get(s.URL + "/api/ps")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var ps struct {
		Models []struct {
			ExpiresAt time.Time `json:"expires_at"`
		} `json:"models"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&ps); err != nil || len(ps.Models) != 1 {
		t.Fatalf("ps: %+v, %v: want one model", ps, err)
	}
	return ps.Models[0].ExpiresAt
}

// TestPsExpiryStandsStillOnceAnswered: as on Ollama, a model has no
// expiry until a request that used it ends, and /api/ps shows one computed
// afresh at each listing (now plus the keep-alive): while it loads, and
// while it answers its first request. Once a request ended, the expiry
// stands still, also while the next request is answered, and the end of
// that one moves it on.
func TestPsExpiryStandsStillOnceAnswered(t *testing.T) {
	s := New(slowLoading)
	defer s.Close()
	first, second := make(chan struct{}), make(chan struct{})
	s.Enqueue(Reply{Content: "Hi there.", Gate: first, GateAfter: 1}, Reply{Content: "Hi again.", Gate: second, GateAfter: 1})
	// ask sends a chat; begun is closed when its first words come.
	ask := func() (begun, done <-chan struct{}) {
		b, d := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(d)
			resp := post(t, s.URL+"/api/chat", `{"model":"llama3.2:1b","messages":[{"role":"user","content":"hi"}],"keep_alive":"10m"}`)
			defer resp.Body.Close()
			r := bufio.NewReader(resp.Body)
			r.ReadString('\n')
			close(b)
			io.Copy(io.Discard, r)
		}()
		return b, d
	}
	twice := func() (time.Time, time.Time) {
		a := expiry(t, s)
		time.Sleep(20 * time.Millisecond)
		return a, expiry(t, s)
	}
	begun, answered := ask()
	for len(listed(t, s)) == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if a, b := twice(); a.Equal(b) || s.Loaded("llama3.2:1b") {
		t.Errorf("while loading: %v then %v, want an expiry that moves", a, b)
	}
	<-begun
	if a, b := twice(); a.Equal(b) {
		t.Errorf("answering its first request: %v then %v, want an expiry that moves", a, b)
	}
	close(first)
	<-answered
	set, again := twice()
	if !set.Equal(again) || time.Until(set) < 9*time.Minute {
		t.Errorf("after the first answer: %v then %v, want the request's 10 min, standing still", set, again)
	}
	begun, answered = ask()
	<-begun
	if a, b := twice(); !a.Equal(set) || !b.Equal(set) {
		t.Errorf("answering the next request: %v then %v, want %v", a, b, set)
	}
	close(second)
	<-answered
	if after := expiry(t, s); !after.After(set) {
		t.Errorf("after the next answer: %v, want later than %v", after, set)
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
