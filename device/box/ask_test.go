package box

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// TestTypedQuestionsAreTheAskers: each typed question is a conversation of
// its own; its asker continues it by id, or the last one, and nobody else
// can.
func TestTypedQuestionsAreTheAskers(t *testing.T) {
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "A blue bicycle."}, ollamatest.Reply{Content: "Something else."}, ollamatest.Reply{Content: "It was blue."},
		ollamatest.Reply{Content: "Still blue."})
	cfg, res := configure(t, "[reply]\nplanner = false\n", map[string]string{"OLLAMA_HOST": srv.URL})
	b, err := Open(cfg, res, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	asker := b.API().Asker
	as := func(uid int) context.Context {
		return control.WithIdentity(t.Context(), control.Identity{Role: control.Admin, Via: "peer credentials", UID: uid})
	}
	ask := func(ctx context.Context, q control.Question) (reply.Result, error) {
		r, err := asker.Ask(ctx, q, func(string) {}, func(string) {})
		res, _ := r.(reply.Result)
		return res, err
	}
	first, err := ask(as(0), control.Question{Text: "remember the bicycle"})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := ask(as(0), control.Question{Text: "something else now"})
	if other.Conversation == first.Conversation {
		t.Fatal("two typed questions shared a conversation")
	}
	again, err := ask(as(0), control.Question{Text: "what colour was it", Conversation: first.Conversation})
	if err != nil || again.Conversation != first.Conversation {
		t.Fatalf("continuing by id: %v, %s", err, again.Conversation)
	}
	if last, err := ask(as(0), control.Question{Text: "and now", Continue: true}); err != nil || last.Conversation != first.Conversation {
		t.Errorf("--continue: %v, conversation %s, want the last one, %s", err, last.Conversation, first.Conversation)
	}
	chats := srv.Chats()
	if msgs := chats[len(chats)-1].Messages; !strings.Contains(msgs[1].Content, "remember the bicycle") {
		t.Errorf("the continued question went without its history: %+v", msgs)
	}
	if _, err := ask(as(1000), control.Question{Text: "mine now", Conversation: first.Conversation}); !errors.Is(err, control.ErrForbidden) {
		t.Errorf("another user's conversation: %v, want forbidden", err)
	}
	if _, err := ask(as(0), control.Question{Text: "hm", Conversation: "c-none"}); !errors.Is(err, control.ErrNotFound) {
		t.Errorf("an unknown conversation: %v, want not found", err)
	}
}
