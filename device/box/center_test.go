package box

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/reply/center"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
	"github.com/harkbox/hark/storage"
)

// centerDiary is a center serving its nodes in a synctest bubble, as
// Serve does but without sockets: the nodes' requests go to its handler,
// and the model server (outside the bubble) closes each connection.
type centerDiary struct {
	c    *Center
	srv  *center.Server
	cred string
	stop func()
	// cfg and res are the center's configuration, for another center
	// over the same store (a restart).
	cfg *config.Loaded
	res config.Resolved
}

func serveCenterDiary(t *testing.T, model *ollamatest.Server, prepare func(c *Center)) *centerDiary {
	t.Helper()
	cfg, res := configure(t, "[reply]\nplanner = false\n", map[string]string{"OLLAMA_HOST": model.URL})
	return serveCenter(t, cfg, res, "", prepare)
}

// restart stops d's center and serves another over the same store, to
// which the kitchen node stays enrolled.
func (d *centerDiary) restart(t *testing.T) *centerDiary {
	t.Helper()
	d.stop()
	return serveCenter(t, d.cfg, d.res, d.cred, nil)
}

// serveCenter serves a center of cfg; cred is the kitchen node's
// credential, enrolled anew when empty.
func serveCenter(t *testing.T, cfg *config.Loaded, res config.Resolved, cred string, prepare func(c *Center)) *centerDiary {
	t.Helper()
	c, err := OpenCenter(cfg, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if prepare != nil {
		prepare(c)
	}
	if cred == "" {
		if cred, err = center.NewKeys(c.db.Settings()).Add(t.Context(), "kitchen"); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := c.nodes(center.Media{Model: c.brain.model, ModelName: cfg.Ollama.Model})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	c.upkeep(ctx, srv, &wg)
	return &centerDiary{c: c, srv: srv, cred: cred, cfg: cfg, res: res, stop: func() {
		cancel()
		wg.Wait()
		c.Close()
	}}
}

// say is the node's request that the center answer text in conversation
// id.
func (d *centerDiary) say(t *testing.T, id, text string) {
	t.Helper()
	body := `{"voice_command": "` + text + `", "conversation_id": "` + id + `", "node_context": {"room": "kitchen"}}`
	r := httptest.NewRequest(http.MethodPost, center.PathCommand, strings.NewReader(body))
	r.Header.Set("Authorization", "Bearer "+d.cred)
	w := httptest.NewRecorder()
	d.srv.Handler().ServeHTTP(w, r)
	if w.Code != http.StatusOK {
		t.Fatalf("%q: %d %s", text, w.Code, w.Body)
	}
}

// entries are the diary entries of conversation id.
func (d *centerDiary) entries(t *testing.T, id string) int {
	t.Helper()
	all, err := d.c.db.Diary().Search(t.Context(), nil, time.Time{}, time.Time{}, 100)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range all {
		if e.Conversation == id {
			n++
		}
	}
	return n
}

// diaryCalls counts the diary calls the model server saw.
func diaryCalls(srv *ollamatest.Server) int {
	n := 0
	for _, k := range replytest.Kinds(srv) {
		if k == replytest.Diary {
			n++
		}
	}
	return n
}

// TestCenterWritesANodesConversationInTheDiary: what a household said
// through a node is found again by recall, which searches the diary: the
// node's conversation gets its entry once it lapses, and only once; not
// while it goes on.
func TestCenterWritesANodesConversationInTheDiary(t *testing.T) {
	model, m := modelServer(t)
	model.CloseEach()
	m.Default(replytest.Chat, ollamatest.Reply{Content: "Noted."})
	synctest.Test(t, func(t *testing.T) {
		d := serveCenterDiary(t, model, nil)
		defer d.stop()
		d.say(t, "kitchen-1", "my sister Clara arrives from Lisbon on Friday")
		time.Sleep(4 * time.Minute)
		d.say(t, "kitchen-1", "and she stays a week")
		time.Sleep(4 * time.Minute) // eight minutes in, four since it was last used
		synctest.Wait()
		if n := d.entries(t, "kitchen-1"); n != 0 {
			t.Errorf("%d entries of the conversation while it may go on, want none", n)
		}
		time.Sleep(5 * time.Minute) // it lapsed
		synctest.Wait()
		if n := d.entries(t, "kitchen-1"); n != 1 {
			t.Fatalf("%d entries of the node's conversation after it lapsed, want 1: recall cannot find Clara's visit", n)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if n, calls := d.entries(t, "kitchen-1"), diaryCalls(model); n != 1 || calls != 1 {
			t.Errorf("an hour later: %d entries, %d diary calls; want the one", n, calls)
		}
	})
}

// TestCenterWritesTheEntriesLeftAtStart: a node's conversation the last
// center never wrote up (it was stopped, or the model server was down)
// gets its entry once the center serves again, before anyone speaks.
func TestCenterWritesTheEntriesLeftAtStart(t *testing.T) {
	model, _ := modelServer(t)
	model.CloseEach()
	synctest.Test(t, func(t *testing.T) {
		d := serveCenterDiary(t, model, func(c *Center) {
			x := storage.Exchange{At: time.Now().Add(-time.Hour), Conversation: "hall-7", Client: "hall",
				User: "remind me what Clara likes", Assistant: "Green tea."}
			if err := c.db.Dialogue().Append(t.Context(), x); err != nil {
				t.Fatal(err)
			}
		})
		defer d.stop()
		time.Sleep(time.Minute)
		synctest.Wait()
		if n := d.entries(t, "hall-7"); n != 1 {
			t.Errorf("%d entries of the conversation the last center left, want 1", n)
		}
	})
}

// TestCenterRewritesTheEntryOfAReopenedConversation: the center restarts,
// and a node goes on with a conversation id whose entry the last center
// wrote once it lapsed. What was said after the restart is found again by
// recall: once the conversation lapses again, its one entry is rewritten
// to cover it.
func TestCenterRewritesTheEntryOfAReopenedConversation(t *testing.T) {
	model, m := modelServer(t)
	model.CloseEach()
	m.Default(replytest.Chat, ollamatest.Reply{Content: "Noted."})
	model.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
		if replytest.KindOf(r) != replytest.Diary {
			return m.Respond(r)
		}
		// The model's summary is what it was given: the entry shows it.
		b, _ := json.Marshal(map[string]any{"summary": r.Messages[len(r.Messages)-1].Content, "keywords": []string{"chat"}})
		return ollamatest.Reply{Content: string(b)}
	})
	synctest.Test(t, func(t *testing.T) {
		d := serveCenterDiary(t, model, nil)
		d.say(t, "kitchen-1", "my sister Clara arrives from Lisbon on Friday")
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		if n := d.entries(t, "kitchen-1"); n != 1 {
			t.Fatalf("%d entries of the node's conversation after it lapsed, want 1", n)
		}
		d = d.restart(t)
		defer d.stop()
		d.say(t, "kitchen-1", "she brings her dog Rex")
		time.Sleep(10 * time.Minute)
		synctest.Wait()
		got, err := d.c.db.Diary().Search(t.Context(), []string{"rex"}, time.Time{}, time.Time{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].Conversation != "kitchen-1" || d.entries(t, "kitchen-1") != 1 {
			t.Errorf("recall for the dog Rex, said after the restart, finds %+v; want the conversation's one entry", got)
		}
		if n := diaryCalls(model); n != 2 {
			t.Errorf("%d diary calls, want 2: the entry and its rewrite", n)
		}
	})
}
