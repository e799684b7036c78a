package reply

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/ollamatest"
)

// sentToModel is every request the model server received, as JSON.
func sentToModel(f *fixture) string {
	b, _ := json.Marshal(f.srv.Chats())
	return string(b)
}

// filesHold reports whether any file under dir holds s in clear.
func filesHold(t *testing.T, dir, s string) []string {
	t.Helper()
	var hits []string
	filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), s) {
			hits = append(hits, filepath.Base(path))
		}
		return nil
	})
	return hits
}

// The model writes placeholders; the local command gets the real value,
// and the model never sees it.
func TestPlaceholdersAreRestoredForLocalTools(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	f.model.json(kindPlanner, `{"steps": ["remember: the locker code", "reply"]}`).
		json(kindRouter, `{"tools": ["remember"]}`).
		on(kindChat,
			ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "remember", Arguments: map[string]any{"fact": "my locker code is [SECRET_1]"}}}},
			ollamatest.Reply{Content: "Done, I'll keep that safe."})
	_, said, err := f.ask(t, "could you keep in mind that my locker code is 7351")
	if err != nil {
		t.Fatalf("said %q: %v", said, err)
	}
	facts, err := f.db.Facts().All(t.Context())
	if err != nil || len(facts) != 1 {
		t.Fatalf("facts %v %v", facts, err)
	}
	if facts[0].Text != "my locker code is [SECRET_1]" || len(facts[0].Sealed) == 0 {
		t.Errorf("stored %+v: want the placeholder shown and the fact sealed", facts[0])
	}
	got, err := f.db.SealedFacts(f.db.Secrets("")).Reveal(t.Context(), facts[0])
	if err != nil || got != "my locker code is 7351" {
		t.Errorf("revealed %q, %v: the local command did not get the real value", got, err)
	}
	if strings.Contains(sentToModel(f), "7351") {
		t.Error("the model received the code")
	}
	if hits := filesHold(t, f.db.Dir(), "7351"); len(hits) > 0 {
		t.Errorf("the code is in clear in %v", hits)
	}
}

// Remembering a secret keeps it: sealed on disk, two secrets apart, said
// back when asked for it by name, never on "what do you know about me",
// never sent to the model.
func TestRememberedSecretRoundTrip(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	_, said, err := f.ask(t, "remember that my wifi password is Tr0ub4dor3x")
	if err != nil || !slices.Equal(said, []string{"OK, I'll remember that, and keep it secret."}) {
		t.Fatalf("remember: %q %v", said, err)
	}
	f.ask(t, "remember that my bank password is correcthorse")
	facts, _ := f.db.Facts().All(t.Context())
	if len(facts) != 2 || facts[0].Text != "my wifi password is [SECRET_1]" || facts[1].Text != "my bank password is [SECRET_1]" {
		t.Errorf("facts %+v", facts)
	}
	for _, secret := range []string{"Tr0ub4dor3x", "correcthorse"} {
		if hits := filesHold(t, f.db.Dir(), secret); len(hits) > 0 {
			t.Errorf("%s is in clear in %v", secret, hits)
		}
	}

	// Asked for: the model looks it up, sees a placeholder, and the box
	// says the password.
	f.model.json(kindPlanner, `{"steps": ["search_memory: the wifi password", "reply"]}`).
		json(kindRouter, `{"tools": ["search_memory"]}`).
		on(kindChat,
			ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "search_memory", Arguments: map[string]any{"query": "wifi password"}}}})
	// Then the model answers from the tool's result, naming the
	// placeholder it was given, as a model does.
	f.srv.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
		last := r.Messages[len(r.Messages)-1]
		if last.Role == "tool" {
			if ph := regexp.MustCompile(`wifi password is (\[SECRET_\d+\])`).FindStringSubmatch(last.Content); ph != nil {
				return ollamatest.Reply{Content: "Your wifi password is " + ph[1] + "."}
			}
		}
		return f.model.respond(r)
	})
	res, said, err := f.ask(t, "what is my wifi password")
	if err != nil || !slices.Equal(said, []string{"Your wifi password is Tr0ub4dor3x."}) {
		t.Errorf("asked for the password: %q %v", said, err)
	}
	if strings.Contains(sentToModel(f), "Tr0ub4dor3x") {
		t.Error("the model received the password")
	}
	if strings.Contains(res.Text, "Tr0ub4dor3x") {
		t.Error("the password is in the reply's record")
	}
	if hits := filesHold(t, f.db.Dir(), "Tr0ub4dor3x"); len(hits) > 0 {
		t.Errorf("the password said aloud was stored in clear in %v", hits)
	}
	// Not asked for by name: not said.
	_, said, _ = f.ask(t, "what do you know about me")
	if s := strings.Join(said, " "); strings.Contains(s, "Tr0ub4dor3x") || !strings.Contains(s, "a secret") {
		t.Errorf("what do you know about me: %q", s)
	}

}

// TestPlaceholderIsNotReadOut: the model, which only ever saw an address
// as its placeholder, repeats the placeholder; the speaker says "a
// secret", in the reply's language, never the brackets and underscore,
// and the record keeps the placeholder, not the address.
func TestPlaceholderIsNotReadOut(t *testing.T) {
	for _, tc := range []struct{ lang, text, answer, want string }{
		{"en", "please note my cousin's address anna.berger@example.com for the invitation",
			"Got it, I'll send the invitation to [EMAIL_1] tonight.", "Got it, I'll send the invitation to a secret tonight."},
		{"de", "bitte notier dir die Adresse meiner Cousine anna.berger@example.com für die Einladung",
			"Gut, ich schicke die Einladung heute Abend an [EMAIL_1].", "Gut, ich schicke die Einladung heute Abend an ein Geheimnis."},
	} {
		f := newFixture(t, smallModel, Options{PlannerOff: true})
		f.model.on(kindChat, ollamatest.Reply{Content: tc.answer})
		var said []string
		res, err := f.eng.Reply(t.Context(), Query{Text: tc.text, Language: tc.lang}, func(s string) { said = append(said, s) })
		if err != nil || !slices.Equal(said, []string{tc.want}) {
			t.Errorf("%s: said %q, err %v; want %q", tc.lang, said, err, tc.want)
		}
		if res.Text != tc.answer {
			t.Errorf("%s: the reply's text is %q, want the placeholder kept: %q", tc.lang, res.Text, tc.answer)
		}
	}
}
