package center

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// A center that restarts cleanly between two questions of a conversation
// (an update, a power cut) leaves its nodes nothing to notice: no request
// failed, so the node goes on in the same conversation.

// TestQuietRestartBetweenQuestions: the center restarts between two
// questions of a Hark node's conversation, and the node saw no failure.
// Its next question, "keep an eye on my tea", finds the conversation on
// the center again with the node's tools: the timer is set on the node,
// the center's answer is said, and the model still has the first
// question.
func TestQuietRestartBetweenQuestions(t *testing.T) {
	dir := t.TempDir()
	c := newCenter(t, dir, Options{})
	url := c.http.URL
	n := newNode(t, c, "larder")
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "Noted."})
	n.ask(t, "store this for later: the spare key is under the blue pot")
	c.stop()

	d := newCenterAt(t, dir, url)
	defer d.stop()
	d.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration": "PT10M", "name": "tea"}}}},
		ollamatest.Reply{Content: "Your tea timer runs for ten minutes."})
	n.said = nil
	n.ask(t, "my tea needs steeping so could you keep an eye on it for me")
	if items, _ := n.sched.Pending(t.Context()); len(items) != 1 {
		t.Errorf("the node's schedule holds %d items, want the tea timer: %+v", len(items), items)
	}
	if want := []string{"Your tea timer runs for ten minutes."}; !slices.Equal(n.said, want) {
		t.Errorf("said %q, want %q", n.said, want)
	}
	i := slices.IndexFunc(d.llm.Chats(), func(c ollamatest.ChatRequest) bool { return replytest.KindOf(c) == replytest.Chat })
	if i < 0 {
		t.Fatal("the restarted center asked its model nothing")
	}
	first := d.llm.Chats()[i]
	if !slices.ContainsFunc(first.Tools, func(tool ollamatest.Tool) bool { return tool.Function.Name == "set_timer" }) {
		t.Errorf("the model was offered no set_timer after the restart")
	}
	if !strings.Contains(fmtMsgs(first), "blue pot") {
		t.Errorf("the conversation's first question is gone after the restart: %s", fmtMsgs(first))
	}
}

// TestJarvisQuietRestartBetweenQuestions: a Jarvis node registers its
// tools only when its conversation starts, and takes any answer but 200
// for a failure that loses the question. After a quiet restart its
// follow-up in the same conversation is answered, from the conversation's
// history, as before the restart.
func TestJarvisQuietRestartBetweenQuestions(t *testing.T) {
	dir := t.TempDir()
	c := newCenter(t, dir, Options{})
	url := c.http.URL
	n := newJarvisNode(t, c, "lounge")
	const conv = "0f4d7a3e-2b1c-4e5f-9a8b-7c6d5e4f3a2b"
	n.do("POST", PathStart, jarvisStart(conv, timerTool()))
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "Noted."})
	n.do("POST", PathCommand, map[string]any{"voice_command": "the spare key is under the blue pot", "conversation_id": conv})
	c.stop()

	d := newCenterAt(t, dir, url)
	defer d.stop()
	d.model.On(replytest.Chat, ollamatest.Reply{Content: "Under the blue pot."})
	code, _, body := n.do("POST", PathCommand, map[string]any{"voice_command": "where did I say the spare key was", "conversation_id": conv})
	var resp Response
	json.Unmarshal(body, &resp)
	if code != http.StatusOK || resp.StopReason != StopComplete || resp.AssistantMessage != "Under the blue pot." {
		t.Fatalf("the follow-up after the restart: %d %s; want 200 and the answer", code, body)
	}
	chats := d.llm.Chats()
	if last := chats[len(chats)-1]; !strings.Contains(fmtMsgs(last), "blue pot") {
		t.Errorf("the history was lost: %s", fmtMsgs(last))
	}
}

// TestCommandInAConversationTheCenterDoesNotHold: a command sent with
// HeaderStartAgain in a conversation the running center does not hold is
// answered 404, for the node to start it again; one that lapsed 410, and
// another node's 403, as ever. Without the header the conversation is made
// anew, as a Jarvis node needs.
func TestCommandInAConversationTheCenterDoesNotHold(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	a, _ := c.keys.Add(t.Context(), "a")
	b, _ := c.keys.Add(t.Context(), "b")
	c.model.Default(replytest.Chat, ollamatest.Reply{Content: "Fine."})
	c.srv.mu.Lock()
	c.srv.expired["a-old"] = time.Now()
	c.srv.mu.Unlock()
	command := func(cred, conv string, again bool) (int, string) {
		body := `{"voice_command": "how are things", "conversation_id": "` + conv + `"}`
		req := httptest.NewRequest(http.MethodPost, PathCommand, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+cred)
		if again {
			req.Header.Set(HeaderStartAgain, "1")
		}
		rec := httptest.NewRecorder()
		c.srv.Handler().ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	if code, body := command(a, "a-1", false); code != http.StatusOK {
		t.Fatalf("a's conversation made by its command: %d %s", code, body)
	}
	for _, tt := range []struct {
		name, cred, conv string
		again            bool
		code             int
		says             string
	}{
		{"not held, starts again", a, "a-2", true, 404, "no conversation a-2 on the center (it may have restarted); start it again"},
		{"held, starts again", a, "a-1", true, 200, ""},
		{"lapsed, starts again", a, "a-old", true, 410, "expired"},
		{"another node's, starts again", b, "a-1", true, 403, "another node"},
		{"not held", a, "a-3", false, 200, ""},
	} {
		code, body := command(tt.cred, tt.conv, tt.again)
		if code != tt.code || !strings.Contains(body, tt.says) {
			t.Errorf("%s: %d %s; want %d naming %q", tt.name, code, body, tt.code, tt.says)
		}
	}
	if n := c.srv.Conversations(); n != 2 {
		t.Errorf("%d conversations open, want a-1 and a-3", n)
	}
}
