package ollamatest

import (
	"bufio"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

var llama = Model{Name: "llama3.2:1b", Family: "llama", ParameterSize: "1.2B", Quantization: "Q8_0", Capabilities: []string{"completion", "tools"}}

func post(t *testing.T, url, body string) *http.Response {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func TestStreamIsNDJSONEndingInDone(t *testing.T) {
	s := New(llama)
	defer s.Close()
	s.Enqueue(Reply{Thinking: "hmm", Content: "Hi there."})
	resp := post(t, s.URL+"/api/chat", `{"model":"llama3.2:1b","messages":[{"role":"user","content":"hi"}]}`)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "application/x-ndjson" {
		t.Errorf("Content-Type = %q", ct)
	}
	var lines []map[string]any
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", sc.Text(), err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 4 { // thinking, "Hi", " there.", done
		t.Fatalf("got %d lines: %v", len(lines), lines)
	}
	first := lines[0]["message"].(map[string]any)
	if first["role"] != "assistant" || first["thinking"] != "hmm" || first["content"] != "" {
		t.Errorf("first chunk = %v", first)
	}
	if lines[1]["message"].(map[string]any)["content"] != "Hi" || lines[2]["message"].(map[string]any)["content"] != " there." {
		t.Errorf("content chunks = %v %v", lines[1], lines[2])
	}
	last := lines[3]
	if last["done"] != true || last["done_reason"] != "stop" || last["eval_count"] != float64(3) || last["model"] != "llama3.2:1b" {
		t.Errorf("final chunk = %v", last)
	}
	for _, l := range lines[:3] {
		if l["done"] != false {
			t.Errorf("chunk %v is not marked done:false", l)
		}
		if _, ok := l["created_at"].(string); !ok {
			t.Errorf("chunk %v has no created_at", l)
		}
	}
}

func TestUnstreamedIsOneObject(t *testing.T) {
	s := New(llama)
	defer s.Close()
	s.Enqueue(Reply{Content: "Hello.", ToolCalls: []ToolCall{{Name: "get_current_time"}}})
	resp := post(t, s.URL+"/api/chat", `{"model":"llama3.2:1b","stream":false,"messages":[{"role":"user","content":"hi"}]}`)
	defer resp.Body.Close()
	var m struct {
		Message struct {
			Content   string         `json:"content"`
			ToolCalls []WireToolCall `json:"tool_calls"`
		} `json:"message"`
		Done bool `json:"done"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	if !m.Done || m.Message.Content != "Hello." || len(m.Message.ToolCalls) != 1 || m.Message.ToolCalls[0].Function.Name != "get_current_time" {
		t.Errorf("answer = %+v", m)
	}
}

func TestErrorsHaveOllamaShape(t *testing.T) {
	s := New(llama, Model{Name: "gemma:2b", Family: "gemma", Capabilities: []string{"completion"}})
	defer s.Close()
	tests := []struct {
		body   string
		script *Reply
		status int
		msg    string
	}{
		{`{"model":"nope","messages":[]}`, nil, 404, `model "nope" not found, try pulling it first`},
		{`{"model":"gemma:2b","messages":[],"tools":[{"type":"function","function":{"name":"x"}}]}`, nil, 400, "registry.ollama.ai/library/gemma:2b does not support tools"},
		{`{"model":"gemma:2b","messages":[],"think":true}`, nil, 400, "registry.ollama.ai/library/gemma:2b does not support thinking"},
		{``, nil, 400, "missing request body"},
		{`{"messages":[]}`, nil, 400, "model is required"},
		{`{"model":"llama3.2:1b","messages":[{"role":"user","content":"hi"}]}`, &Reply{Fault: ServerError, Error: "boom"}, 500, "boom"},
		{`{"model":"llama3.2:1b","messages":[{"role":"user","content":"hi"}]}`, nil, 500, "ollamatest: no scripted reply for this request"},
	}
	for _, tt := range tests {
		if tt.script != nil {
			s.Enqueue(*tt.script)
		}
		resp := post(t, s.URL+"/api/chat", tt.body)
		var e struct {
			Error string `json:"error"`
		}
		json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != tt.status || e.Error != tt.msg {
			t.Errorf("%s: got %d %q, want %d %q", tt.body, resp.StatusCode, e.Error, tt.status, tt.msg)
		}
	}
}

func TestDropCutsTheConnection(t *testing.T) {
	s := New(llama)
	defer s.Close()
	s.Enqueue(Reply{Content: "one two three", Fault: DropMidStream, DropAfter: 1})
	resp := post(t, s.URL+"/api/chat", `{"model":"llama3.2:1b","messages":[{"role":"user","content":"hi"}]}`)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("reading a dropped stream: err = %v, want unexpected EOF", err)
	}
	if strings.Count(string(body), "\n") != 1 || strings.Contains(string(body), `"done":true`) {
		t.Errorf("body before the drop = %q, want one chunk and no done", body)
	}
}

func TestModelEndpoints(t *testing.T) {
	s := New(llama)
	defer s.Close()
	resp, _ := http.Get(s.URL + "/api/tags")
	var tags struct {
		Models []struct {
			Name    string `json:"name"`
			Digest  string `json:"digest"`
			Details struct {
				ParameterSize string `json:"parameter_size"`
			} `json:"details"`
		} `json:"models"`
	}
	json.NewDecoder(resp.Body).Decode(&tags)
	resp.Body.Close()
	if len(tags.Models) != 1 || tags.Models[0].Name != "llama3.2:1b" || len(tags.Models[0].Digest) != 64 || tags.Models[0].Details.ParameterSize != "1.2B" {
		t.Errorf("tags = %+v", tags)
	}
	resp = post(t, s.URL+"/api/show", `{"model":"llama3.2:1b"}`)
	var show struct {
		Capabilities []string       `json:"capabilities"`
		ModelInfo    map[string]any `json:"model_info"`
	}
	json.NewDecoder(resp.Body).Decode(&show)
	resp.Body.Close()
	if strings.Join(show.Capabilities, ",") != "completion,tools" || show.ModelInfo["general.parameter_count"] != float64(1.2e9) {
		t.Errorf("show = %+v", show)
	}
	resp = post(t, s.URL+"/api/show", `{"name":"other"}`)
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("show of an unknown model: %d, want 404", resp.StatusCode)
	}
	resp, _ = http.Get(s.URL + "/api/version")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.TrimSpace(string(b)) != `{"version":"`+Version+`"}` {
		t.Errorf("version = %s", b)
	}
	resp, _ = http.Head(s.URL + "/")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("HEAD / = %d", resp.StatusCode)
	}
	if n := len(s.Requests()); n != 5 {
		t.Errorf("recorded %d requests, want 5", n)
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{"llama3.2": "llama3.2:latest", "llama3.2:1b": "llama3.2:1b", "host:5000/ns/m": "host:5000/ns/m:latest"} {
		if got := normalize(in); got != want {
			t.Errorf("normalize(%q) = %q, want %q", in, got, want)
		}
	}
}

// A server that closes each connection lets a client in a synctest bubble
// wait: no connection stays idle on a socket, and the bubble's clock
// moves once the answer is in.
func TestCloseEachLetsABubblesClockMove(t *testing.T) {
	s := New(llama)
	defer s.Close()
	s.CloseEach()
	s.Enqueue(Reply{Content: "Hi there."})
	synctest.Test(t, func(t *testing.T) {
		hc := &http.Client{Transport: &http.Transport{}}
		resp, err := hc.Post(s.URL+"/api/chat", "application/json", strings.NewReader(`{"model":"llama3.2:1b","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if !resp.Close {
			t.Error("the answer keeps the connection open")
		}
		before := time.Now()
		time.Sleep(time.Hour)
		if got := time.Since(before); got != time.Hour {
			t.Errorf("an hour's sleep in the bubble took %v", got)
		}
	})
}

// TestModelsOwnBound: a model's parameters, as its Modelfile sets them,
// are what /api/show reports, and its num_predict bounds an answer whose
// request sets none, as Ollama's does; a request's own takes its place.
func TestModelsOwnBound(t *testing.T) {
	bounded := Model{Name: "tiny", Family: "llama", ParameterSize: "260K", Capabilities: []string{"completion"},
		Parameters: "num_predict                    3\nstop                           \"<|eot_id|>\""}
	s := New(bounded)
	defer s.Close()
	resp := post(t, s.URL+"/api/show", `{"model":"tiny"}`)
	var show struct {
		Parameters string `json:"parameters"`
	}
	json.NewDecoder(resp.Body).Decode(&show)
	resp.Body.Close()
	if show.Parameters != bounded.Parameters {
		t.Errorf("show's parameters = %q, want %q", show.Parameters, bounded.Parameters)
	}
	for _, tt := range []struct {
		options string
		want    string
		reason  string
	}{
		{``, "one two three", "length"},
		{`,"options":{"num_predict":2}`, "one two", "length"},
		{`,"options":{"num_predict":10}`, "one two three four five", "stop"},
	} {
		s.Enqueue(Reply{Content: "one two three four five"})
		resp := post(t, s.URL+"/api/chat", `{"model":"tiny","stream":false,"messages":[{"role":"user","content":"count"}]`+tt.options+`}`)
		var m struct {
			Message    struct{ Content string } `json:"message"`
			DoneReason string                   `json:"done_reason"`
		}
		json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if strings.TrimSpace(m.Message.Content) != tt.want || m.DoneReason != tt.reason {
			t.Errorf("options %s: answer %q (%s), want %q (%s)", tt.options, m.Message.Content, m.DoneReason, tt.want, tt.reason)
		}
	}
	if got := s.Chats()[0].Options; got != nil {
		t.Errorf("the recorded request's options = %v: want them as sent, none", got)
	}
}
