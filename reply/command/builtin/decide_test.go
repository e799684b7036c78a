package builtin

import (
	"testing"

	"github.com/harkbox/hark/locale"
)

// TestDecideShortQuestions: a turn's language is read from the sentence
// templates as well as the words. Typed text, too short for its words to
// tell, is in the one language whose templates it matches; so is speech
// whose language recognition guessed (whisper set to "auto") when that
// language's templates match nothing: a tiny model hears a short German
// question as English. A language the household set is never overruled.
func TestDecideShortQuestions(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		heard, text string
		guessed     bool
		want        string
	}{
		// Typed: nothing heard.
		{"", "welche Timer laufen", true, "de"},
		{"", "welche Timer", true, "de"},
		{"", "wie spät ist es", true, "de"},
		{"", "quels sont mes réveils", true, "fr"},
		{"", "quels réveils", true, "fr"},
		{"", "quelle heure est-il", true, "fr"},
		{"", "qué alarmas tengo", true, "es"},
		{"", "qué hora es", true, "es"},
		{"", "what time is it", true, "en"},
		{"", "mis alarmas", true, "es"},
		{"", "hay alarmas", true, "es"},
		{"", "temporizadores", true, "es"},
		{"", "mes minuteurs", true, "fr"},
		{"", "meine Timer", true, "de"},
		{"", "meine Wecker", true, "de"},
		{"", "my timers", true, "en"},
		{"", "welche Timer laufen", false, "de"}, // typed text goes by its words whatever the setting
		// Heard, and guessed.
		{"en", "wie spät ist es", true, "de"},
		{"en", "welche Timer laufen", true, "de"},
		{"en-US", "quels réveils", true, "fr"},
		{"nl", "welche Timer", true, "de"},
		{"de", "quelle heure est-il", true, "fr"},
		{"en", "what time is it", true, "en"},
		{"en", "tell me a joke", true, "en"},         // no template anywhere: what was heard stands
		{"fr", "raconte-moi une blague", true, "fr"}, // the same
		{"de", "stopp", true, "de"},
		// Heard in the language the household set: it stands.
		{"de", "quelle heure est-il", false, "de"},
		{"en", "wie spät ist es", false, "en"},
	} {
		if got := f.reg.Decide(t.Context(), tc.heard, tc.text, locale.English, tc.guessed); got != tc.want {
			t.Errorf("Decide(%q, %q, guessed %v) = %q, want %q", tc.heard, tc.text, tc.guessed, got, tc.want)
		}
	}
}
