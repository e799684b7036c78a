package memory

import (
	"slices"
	"testing"

	"github.com/harkbox/hark/storage"
)

// A question's keywords are its content words without the function words
// storage knows (storage.FunctionWord) and without its words of asking
// about what was said: in each language, and in English, which a
// household mixes in.
func TestKeywords(t *testing.T) {
	for _, c := range []struct {
		lang, question string
		want           []string
	}{
		{"en", "where are my car keys", []string{"car", "key"}},
		{"en", "do you remember what I told you about the plumber", []string{"plumber"}},
		{"en", "what is this", nil},
		{"en", "where is her bag", []string{"bag"}},
		{"de", "wo ist der Ersatzschlüssel", []string{"ersatzschlüssel"}},
		{"de", "wann hast du gesagt ist Annas Geburtstag", []string{"anna", "geburtstag"}},
		{"de", "wie lautet das WLAN-Passwort", []string{"passwort", "wlan"}},
		{"es", "dónde está la llave de repuesto", []string{"llave", "repuesto"}},
		{"es", "sabes dónde están mis llaves", []string{"llave"}},
		{"es", "quiénes son los vecinos", []string{"vecino"}},
		{"fr", "où est la clé de secours", []string{"clé", "secour"}},
		{"fr", "tu sais où sont mes clés", []string{"clé"}},
		{"fr", "tu te souviens où sont les clés", []string{"clé"}},
	} {
		if got := Keywords(c.question, c.lang); !slices.Equal(got, c.want) {
			t.Errorf("Keywords(%q, %q) = %q, want %q", c.question, c.lang, got, c.want)
		}
	}
}

// The words of asking are kept once: none is a function word, which
// storage keeps, and each is in the form ContentWords gives a word, or it
// would never be found.
func TestAskingWordsAreNotFunctionWords(t *testing.T) {
	for lang, words := range asking {
		for w := range words {
			if storage.FunctionWord(w, lang) {
				t.Errorf("%s: %q is a word of asking and a function word (storage.FunctionWord); keep it in one list", lang, w)
			}
			if !storage.ContentWords(w)[w] {
				t.Errorf("%s: %q is not in the form ContentWords gives it", lang, w)
			}
		}
	}
}
