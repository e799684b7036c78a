package box

import (
	"testing"

	"github.com/harkbox/hark/reply"
)

// TestTurnLanguageHeedsTheSetting: under [whisper] language = "auto" the
// language recognition guessed gives way to the one language whose
// sentence templates match what it heard; a language set there stands, so
// a box set to German answers speech in German. Typed text goes by its
// templates under either.
func TestTurnLanguageHeedsTheSetting(t *testing.T) {
	for _, tc := range []struct {
		setting, heard, text, want string
	}{
		{"auto", "en", "wie spät ist es", "de"},
		{"auto", "en", "what time is it", "en"},
		{"auto", "", "quels réveils", "fr"},
		{"de", "de", "quelle heure est-il", "de"},
		{"de", "", "welche Timer laufen", "de"},
		{"en", "en", "welche Timer laufen", "en"},
	} {
		cfg, res := configure(t, "[whisper]\nlanguage = \""+tc.setting+"\"\n", map[string]string{"OLLAMA_HOST": "127.0.0.1:1"})
		b, err := Open(cfg, res, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := b.decide(t.Context(), reply.Microphone, tc.heard, tc.text); got != tc.want {
			t.Errorf("language %q, heard %q in %q: %q, want %q", tc.setting, tc.heard, tc.text, got, tc.want)
		}
		b.Close()
	}
}
