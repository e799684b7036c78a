package reply

import (
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// TestSetPersona: a name and place set while the engine runs are in the
// next reply's prompt.
func TestSetPersona(t *testing.T) {
	f := newFixture(t, smallModel, Options{Name: "Jarvis"})
	f.model.on(kindChat, ollamatest.Reply{Content: "Hello."}, ollamatest.Reply{Content: "Hello again."})
	f.ask(t, "tell me a joke about cheese")
	f.eng.SetPersona("Friday", "the kitchen speaker, Porto")
	f.ask(t, "tell me another joke about bread")
	var prompts []string
	for _, c := range f.srv.Chats() {
		if replytest.KindOf(c) == replytest.Chat {
			prompts = append(prompts, c.Messages[0].Content)
		}
	}
	if len(prompts) != 2 || !strings.Contains(prompts[0], "You are Jarvis") || !strings.Contains(prompts[1], "You are Friday") {
		t.Fatalf("system prompts:\n%s", strings.Join(prompts, "\n---\n"))
	}
	var last string
	for _, c := range f.srv.Chats() {
		if replytest.KindOf(c) == replytest.Chat {
			last = c.Messages[len(c.Messages)-1].Content
		}
	}
	if !strings.Contains(last, "Place: the kitchen speaker, Porto.") {
		t.Errorf("the last question's stamp: %q", last)
	}
}
