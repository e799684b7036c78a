package reply

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/ollamatest"
)

// TestLanguageFollowsEachUtterance: each request is answered in its own
// language, a follow-up in another language switches, and nothing sticks.
func TestLanguageFollowsEachUtterance(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	_, said, err := f.ask(t, "set a timer for 5 minutes")
	if err != nil || !slices.Equal(said, []string{"Timer set for 5 minutes."}) {
		t.Fatalf("English: said %q, err %v", said, err)
	}
	// The follow-up changes that timer, in German, and is answered so.
	res, said, err := f.ask(t, "eigentlich zehn Minuten")
	want := locale.German.T("OK, the timer is now %s.", locale.German.Duration(10*time.Minute))
	if err != nil || !slices.Equal(said, []string{want}) || !res.Offline || !strings.Contains(want, "10 Minuten") || strings.HasPrefix(want, "OK, the timer") {
		t.Fatalf("German follow-up: said %q, want %q (err %v)", said, want, err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != "set_timer" || res.Tools[0].Arguments["duration"] != 10*time.Minute {
		t.Errorf("German follow-up ran %+v; want the timer changed to 10 minutes", res.Tools)
	}
	// Back to English at once, then French: nothing sticks.
	if _, said, _ := f.ask(t, "what time is it"); len(said) != 1 || !strings.HasPrefix(said[0], "It's ") {
		t.Errorf("English after German: said %q", said)
	}
	if _, said, _ := f.ask(t, "quelle heure est-il"); len(said) != 1 || !strings.HasPrefix(said[0], "Il est ") {
		t.Errorf("French: said %q", said)
	}
	if len(f.srv.Requests()) != 0 {
		t.Errorf("the model was asked %d times; all four are offline", len(f.srv.Requests()))
	}
}

// TestLanguageToTheModel: a typed German question that no command claims
// goes to the model with the instruction to answer in German.
func TestLanguageToTheModel(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	f.model.on(kindChat, ollamatest.Reply{Content: "Berlin."})
	if _, said, err := f.ask(t, "was ist die Hauptstadt von Deutschland"); err != nil || !slices.Equal(said, []string{"Berlin."}) {
		t.Fatalf("said %q, err %v", said, err)
	}
	var last string
	for _, r := range f.srv.Requests() {
		if r.Chat != nil {
			last = string(r.Body)
		}
	}
	if !strings.Contains(last, `code \"de\"; answer in it`) {
		t.Errorf("the model was not told to answer in German: %s", last)
	}
}

// TestUnitsInTheAnswersLanguage: a unit the model writes with a slash is
// said in words of the language it answers in.
func TestUnitsInTheAnswersLanguage(t *testing.T) {
	f := newFixture(t, smallModel, Options{PlannerOff: true})
	f.model.on(kindChat, ollamatest.Reply{Content: "Eine Schwalbe fliegt etwa 40 km/h schnell."})
	if _, said, err := f.ask(t, "wie schnell fliegt eine Schwalbe"); err != nil || !slices.Equal(said, []string{"Eine Schwalbe fliegt etwa 40 Kilometer pro Stunde schnell."}) {
		t.Errorf("said %q, err %v", said, err)
	}
}

// TestUnknownLanguageLoggedOnce: a language without phrases is answered
// with English fixed sentences, and that is logged once.
func TestUnknownLanguageLoggedOnce(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	for range 2 {
		var said []string
		if _, err := f.eng.Reply(t.Context(), Query{Text: "set a timer for 5 minutes", Language: "ja"}, func(s string) { said = append(said, s) }); err != nil ||
			!slices.Equal(said, []string{"Timer set for 5 minutes."}) {
			t.Fatalf("said %q, err %v", said, err)
		}
	}
	if n := strings.Count(f.log.String(), "no offline phrases for this language"); n != 1 {
		t.Errorf("logged %d times; want once:\n%s", n, f.log.String())
	}
}

// TestReminderInGerman: a German reminder is kept in the user's words, as
// Hark says them back, and said in German.
func TestReminderInGerman(t *testing.T) {
	f := newFixture(t, smallModel, Options{})
	_, said, err := f.ask(t, "Erinnere mich in zehn Minuten, meine Mutter anzurufen.")
	if err != nil || !slices.Equal(said, []string{"OK, ich erinnere dich in 10 Minuten daran, deine Mutter anzurufen."}) {
		t.Errorf("said %q, err %v", said, err)
	}
}
