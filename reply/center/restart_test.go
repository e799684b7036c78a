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

// TestJarvisToolsAcrossAQuietRestart: a Jarvis node registers its tools
// only when its conversation starts, so after a quiet restart its
// follow-up in the same conversation must find them still: the center
// makes the conversation anew with the tools the node last registered,
// as it kept them in its store, and another node's conversation gets
// none of them.
func TestJarvisToolsAcrossAQuietRestart(t *testing.T) {
	dir := t.TempDir()
	c := newCenter(t, dir, Options{})
	url := c.http.URL
	n := newJarvisNode(t, c, "lounge")
	other := newJarvisNode(t, c, "hall")
	const conv = "3c2b1a09-8f7e-4d6c-5b4a-392817060504"
	if code, _, body := n.do("POST", PathStart, jarvisStart(conv, timerTool())); code != http.StatusOK {
		t.Fatalf("start: %d %s", code, body)
	}
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "Noted."})
	n.do("POST", PathCommand, map[string]any{"voice_command": "the tea is oolong today", "conversation_id": conv})
	offered := timerOffered(t, c.llm.Chats())
	c.stop()

	d := newCenterAt(t, dir, url)
	defer d.stop()
	d.model.On(replytest.Chat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration_seconds": 180, "label": "tea"}}}},
		ollamatest.Reply{Content: "Three minutes for the oolong."})
	code, _, body := n.do("POST", PathCommand, map[string]any{"voice_command": "count down three minutes for the brew", "conversation_id": conv})
	var resp Response
	json.Unmarshal(body, &resp)
	if code != http.StatusOK || resp.StopReason != StopToolCalls || len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Function.Name != "set_timer" {
		t.Fatalf("the follow-up after the restart: %d %s; want 200 and the node's set_timer called", code, body)
	}
	result := map[string]any{"conversation_id": conv, "tool_results": []any{map[string]any{"tool_call_id": resp.ToolCalls[0].ID,
		"output": map[string]any{"success": true, "message": "Timer set for 3 minutes.", "context": nil, "error": nil}}}}
	code, _, body = n.do("POST", PathContinue, result)
	resp = Response{}
	json.Unmarshal(body, &resp)
	if code != http.StatusOK || resp.StopReason != StopComplete || resp.AssistantMessage != "Three minutes for the oolong." {
		t.Fatalf("the tool's result after the restart: %d %s; want 200 and the answer", code, body)
	}
	if got := timerOffered(t, d.llm.Chats()); got.Function.Description != offered.Function.Description || string(got.Function.Parameters) != string(offered.Function.Parameters) {
		t.Errorf("after the restart the model was offered set_timer as\n%s %s\nwant it as before:\n%s %s",
			got.Function.Description, got.Function.Parameters, offered.Function.Description, offered.Function.Parameters)
	}
	i := slices.IndexFunc(d.llm.Chats(), func(c ollamatest.ChatRequest) bool { return replytest.KindOf(c) == replytest.Chat })
	if first := d.llm.Chats()[i]; !strings.Contains(fmtMsgs(first), "oolong") {
		t.Errorf("the history was lost: %s", fmtMsgs(first))
	}

	d.model.On(replytest.Chat, ollamatest.Reply{Content: "Fine."})
	before := len(d.llm.Chats())
	if code, _, body := other.do("POST", PathCommand, map[string]any{"voice_command": "count down three minutes for the brew", "conversation_id": "hall-1"}); code != http.StatusOK {
		t.Fatalf("another node's command: %d %s", code, body)
	}
	for _, ch := range d.llm.Chats()[before:] {
		if slices.ContainsFunc(ch.Tools, func(tool ollamatest.Tool) bool { return tool.Function.Name == "set_timer" }) {
			t.Errorf("a node that registered no tools was offered another node's set_timer")
		}
	}
}

// timerOffered is the set_timer tool as the first reply chat offered it to
// the model.
func timerOffered(t *testing.T, chats []ollamatest.ChatRequest) ollamatest.Tool {
	t.Helper()
	i := slices.IndexFunc(chats, func(c ollamatest.ChatRequest) bool { return replytest.KindOf(c) == replytest.Chat })
	if i < 0 {
		t.Fatal("the center asked its model nothing")
	}
	j := slices.IndexFunc(chats[i].Tools, func(tool ollamatest.Tool) bool { return tool.Function.Name == "set_timer" })
	if j < 0 {
		t.Fatalf("the model was not offered the node's set_timer")
	}
	return chats[i].Tools[j]
}

// TestKeptToolsRefused: client tools kept for a node that the center will
// not take (a center before this one kept them) do not cost the node its
// question: the conversation is made anew without them, and answered.
func TestKeptToolsRefused(t *testing.T) {
	c := newCenter(t, "", Options{})
	defer c.stop()
	n := newJarvisNode(t, c, "lounge")
	bad := registered{Tools: []Tool{{Type: "function", Function: Function{Name: "set_timer", Parameters: json.RawMessage(`"no schema"`)}}}, At: time.Now()}
	if err := c.db.Settings().Set(t.Context(), toolsPrefix+"lounge", bad); err != nil {
		t.Fatal(err)
	}
	c.model.On(replytest.Chat, ollamatest.Reply{Content: "Fine."})
	code, _, body := n.do("POST", PathCommand, map[string]any{"voice_command": "how are things", "conversation_id": "lounge-1"})
	if code != http.StatusOK || !strings.Contains(string(body), "Fine.") {
		t.Fatalf("a command with refused tools kept: %d %s; want 200 and the answer", code, body)
	}
}
