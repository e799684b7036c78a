package center

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// FuzzRequests sends what a node might send, whatever it is, to the
// endpoints that decode a body: the center answers each with a status
// that names the problem — never an internal error, never a panic (the
// model's own failures are 502, a gateway's).
func FuzzRequests(f *testing.F) {
	for _, seed := range []string{
		`{"conversation_id":"c1","node_context":{"timezone":"UTC-00:00"},"client_tools":[{"type":"function","function":{"name":"set_timer","parameters":{"type":"object"}}}]}`,
		`{"voice_command":"what time is it","conversation_id":"c1"}`,
		`{"conversation_id":"c1","tool_results":[{"tool_call_id":"x","output":{"success":false,"error":"no"}}]}`,
		`{"conversation_id":"c1","validation_response":"tea"}`,
		`{"messages":[{"role":"user","content":"hi"}]}`,
		`{"conversation_id":`, `[]`, `null`, ``,
	} {
		for _, path := range []string{PathStart, PathCommand, PathContinue, PathChat, PathAcknowledge} {
			f.Add(path, seed)
		}
	}
	c := newCenter(f, "", Options{Rate: 1e6, Burst: 1 << 20})
	f.Cleanup(c.stop)
	c.model.Default(replytest.Chat, ollamatest.Reply{Content: "Fine."})
	cred, err := c.keys.Add(f.Context(), "kitchen")
	if err != nil {
		f.Fatal(err)
	}
	h := c.srv.Handler()
	f.Fuzz(func(t *testing.T, path, body string) {
		switch path {
		case PathStart, PathCommand, PathContinue, PathChat, PathAcknowledge:
		default:
			return
		}
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("X-API-Key", cred)
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code == http.StatusInternalServerError || w.Code == 0 {
			t.Errorf("POST %s %q: %d %s", path, body, w.Code, w.Body.String())
		}
	})
}
