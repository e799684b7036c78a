package builtin

import (
	"slices"
	"strings"
	"testing"

	"github.com/harkbox/hark/locale"
)

// TestSecretsKeptInEachLanguage: a household secret told in English,
// German, Spanish or French is kept sealed (the value neither shown nor
// stored in clear), and said back when a question names it, in the
// language asked.
func TestSecretsKeptInEachLanguage(t *testing.T) {
	for _, tt := range []struct {
		l                locale.Lang
		tell, ask, value string
	}{
		{locale.English, "remember that the code for the garage is 4711", "what do you remember about the garage code", "4711"},
		{locale.German, "merk dir, dass das WLAN-Passwort hunter2 ist", "was weißt du über das WLAN-Passwort", "hunter2"},
		{locale.German, "merk dir, dass der Türcode 4711 ist", "was weißt du über den Türcode", "4711"},
		{locale.Spanish, "recuerda que la contraseña del wifi es hunter2", "qué sabes de la contraseña del wifi", "hunter2"},
		{locale.Spanish, "recuerda que el código de la puerta es 4711", "qué sabes del código de la puerta", "4711"},
		{locale.French, "retiens que le mot de passe du wifi est hunter2", "que sais-tu du mot de passe du wifi", "hunter2"},
		{locale.French, "retiens que le code de la porte est 4711", "que sais-tu du code de la porte", "4711"},
	} {
		f := newSealedFixture(t)
		f.sayIn(t, tt.l, tt.tell)
		facts, _ := f.db.Facts().All(t.Context())
		if len(facts) != 1 || len(facts[0].Sealed) == 0 || strings.Contains(facts[0].Text, tt.value) {
			t.Errorf("%s %q: kept %+v, want one fact, sealed, without %q", tt.l, tt.tell, facts, tt.value)
			continue
		}
		r := f.sayIn(t, tt.l, tt.ask)
		if !strings.Contains(r.Spoken, tt.value) || !slices.Equal(r.Reveal, []string{tt.value}) {
			t.Errorf("%s %q: said %q, revealed %q; want %q said", tt.l, tt.ask, r.Spoken, r.Reveal, tt.value)
		}
	}
}
