package reply

import (
	"strings"
	"testing"
	"time"

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

// TestWhoAreYouSaysThePersonasName: "who are you" is answered offline
// with the name the persona has now, the one set while the engine runs.
func TestWhoAreYouSaysThePersonasName(t *testing.T) {
	f := newFixture(t, smallModel, Options{Name: "Jarvis"})
	for _, c := range []struct{ name, want string }{
		{"", "I'm Jarvis, the voice assistant in this speaker."},
		{"Friday", "I'm Friday, the voice assistant in this speaker."},
	} {
		if c.name != "" {
			f.eng.SetPersona(c.name, "")
		}
		res, said, err := f.ask(t, "who are you")
		if err != nil || !res.Offline || strings.Join(said, " ") != c.want {
			t.Errorf("who are you: said %q (offline %v), err %v; want %q", said, res.Offline, err, c.want)
		}
	}
}

// TestSetLocation: a time zone set while the engine runs stamps the next
// question with the time there.
func TestSetLocation(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Skip("no time zone database:", err)
	}
	f := newFixture(t, smallModel, Options{}) // Berlin
	f.model.on(kindChat, ollamatest.Reply{Content: "Hello."}, ollamatest.Reply{Content: "Hello again."})
	f.ask(t, "tell me a joke about cheese")
	f.eng.SetLocation(tokyo)
	f.ask(t, "tell me another joke about bread")
	var stamps []string
	for _, c := range f.srv.Chats() {
		if replytest.KindOf(c) == replytest.Chat {
			stamps = append(stamps, c.Messages[len(c.Messages)-1].Content)
		}
	}
	if len(stamps) != 2 || !strings.Contains(stamps[0], "(CET)") || !strings.Contains(stamps[1], "(JST)") {
		t.Errorf("got the questions' stamps %q, want Berlin's CET, then JST", stamps)
	}
}
