package reply

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/lookup"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/storage"
)

// canary is an outside server that records every request it gets.
type canary struct {
	mu   sync.Mutex
	seen []string
}

func (c *canary) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	c.mu.Lock()
	c.seen = append(c.seen, r.URL.String()+" "+string(body))
	c.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"results": [{"title": "A page", "url": "https://example.org", "content": "Something."}]}`)
}

func (c *canary) heard(s string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.seen {
		if strings.Contains(r, s) {
			return true
		}
	}
	return false
}

// TestSecretsNeverLeaveTheBox: what the user said of a password reaches
// the model as a placeholder; when the model hands that placeholder to a
// web search, the search is refused and told the value is withheld, and
// the outside server never hears it; a local command (remember) still gets
// the real value.
func TestSecretsNeverLeaveTheBox(t *testing.T) {
	c := &canary{}
	outside := httptest.NewServer(c)
	defer outside.Close()
	f := newFixtureWith(t, smallModel, Options{PlannerOff: true}, func(*storage.DB) []*command.Command {
		return lookup.Commands(lookup.Options{SearXNG: outside.URL})
	})
	search := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "web_search", Arguments: map[string]any{"query": "is [SECRET_1] a strong wifi password"}}}}
	keep := ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "remember", Arguments: map[string]any{"fact": "the wifi password is [SECRET_1]"}}}}
	f.model.json(kindRouter, `{"tools": ["web_search", "remember"]}`).on(kindChat, ollamatest.Reply{Content: "Noted."}, search, ollamatest.Reply{Content: "I can't look that up."}, keep, ollamatest.Reply{Content: "I'll remember it."})
	if _, _, err := f.ask(t, "my wifi password is hunter2-Secret!"); err != nil {
		t.Fatal(err)
	}
	res, _, err := f.ask(t, "is that a strong password? search the web")
	if err != nil {
		t.Fatal(err)
	}
	if c.heard("hunter2") {
		t.Fatalf("the outside server heard the password: %q", c.seen)
	}
	if len(res.Tools) != 1 || !res.Tools[0].Failed {
		t.Errorf("tools %+v: want the search refused", res.Tools)
	}
	last := f.srv.Chats()[len(f.srv.Chats())-1]
	if body := last.Messages[len(last.Messages)-1].Content; !strings.Contains(body, "withheld") || strings.Contains(body, "hunter2") {
		t.Errorf("the model was told %q; want the value withheld, not given", body)
	}
	if _, _, err := f.ask(t, "remember that password please"); err != nil {
		t.Fatal(err)
	}
	facts, _ := f.db.Facts().All(t.Context())
	if len(facts) != 1 || len(facts[0].Sealed) == 0 || strings.Contains(facts[0].Text, "hunter2") {
		t.Errorf("facts %+v: a local command gets the real value, and keeps it sealed", facts)
	}
}

// TestToolJSONCredentialsStayOnTheBox: a tool that answers in JSON, as an
// MCP server or Home Assistant does, with the guest network's password
// among its fields: the model reads the result with the password as a
// placeholder, and the dialogue record on the card never holds it.
func TestToolJSONCredentialsStayOnTheBox(t *testing.T) {
	const password = "sunflower-tulip-42"
	router := &command.Command{
		Name: "router_status", Description: "Reports the home router's networks and their state.",
		Run: func(context.Context, command.Call) (command.Response, error) {
			status := `{"networks": [{"ssid": "Garden", "band": "5GHz", "wifi_password": "` + password + `", "clients": 7}]}`
			return command.Response{Data: map[string]any{"result": command.Fence("the router", status, 3000)}}, nil
		},
	}
	f := newFixtureWith(t, smallModel, Options{PlannerOff: true}, func(*storage.DB) []*command.Command { return []*command.Command{router} })
	f.model.json(kindRouter, `{"tools": ["router_status"]}`).on(kindChat,
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "router_status", Arguments: map[string]any{}}}},
		ollamatest.Reply{Content: "Seven devices are on the Garden network."})
	if _, said, err := f.ask(t, "how many devices are on the garden wifi"); err != nil {
		t.Fatalf("said %q, err %v", said, err)
	}
	if sent := sentToModel(f); strings.Contains(sent, password) || !strings.Contains(sent, `wifi_password\\\": \\\"[SECRET_1]`) {
		t.Errorf("the model was sent %s; want the password as a placeholder", sent)
	}
	if hits := filesHold(t, f.db.Dir(), password); len(hits) > 0 {
		t.Errorf("the password is in clear in %v", hits)
	}
}
