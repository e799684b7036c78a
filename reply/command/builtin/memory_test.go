package builtin

import (
	"strings"
	"testing"

	"github.com/harkbox/hark/locale"
)

// search_memory and forget find a fact by other forms of its words, as
// the answer with the model down does: the fact holding every word asked
// about is the answer, not the newer one sharing a word of it.
func TestMemoryFindsOtherFormsOfTheWords(t *testing.T) {
	f := newFixture(t)
	for _, fact := range []string{"remember that my car is parked on level 3", "remember that my car keys are in the kitchen drawer"} {
		f.say(t, fact)
	}
	for _, c := range []struct{ ask, want string }{
		{"what do you remember about parking my car", "You told me: your car is parked on level 3."},
		{"forget that I'm parking my car on level 3", "OK, I've forgotten that."},
		{"what do you remember about parking my car", "You told me: your car keys are in the kitchen drawer."},
	} {
		if said, _ := f.say(t, c.ask); said != c.want {
			t.Errorf("%q: said %q, want %q", c.ask, said, c.want)
		}
	}
}

// TestWhatDoYouKnowAboutMe: "what do you know about me" is answered in
// every language with what the household told about itself, a secret
// among it named, never said; a fact about nobody in the house is left
// out.
func TestWhatDoYouKnowAboutMe(t *testing.T) {
	for _, tt := range []struct {
		l    locale.Lang
		tell []string
		ask  string
		want string
	}{
		{locale.English, []string{"remember that my bike is blue", "remember that our wifi password is Tr0ub4dor3x", "remember that the bus leaves at eight"},
			"what do you know about me", "You told me: your wifi password is a secret. And your bike is blue."},
		{locale.German, []string{"merk dir, dass mein Fahrrad blau ist", "merk dir, dass unser WLAN-Passwort Tr0ub4dor3x ist", "merk dir, dass der Bus um acht fährt"},
			"was weißt du über mich", "Du hast mir gesagt: euer WLAN-Passwort ist ein Geheimnis. Und dein Fahrrad ist blau."},
		{locale.Spanish, []string{"recuerda que mi bici es azul", "recuerda que nuestra contraseña del wifi es Tr0ub4dor3x", "recuerda que el autobús sale a las ocho"},
			"qué sabes de mí", "Me dijiste: vuestra contraseña del wifi es un secreto. Y tu bici es azul."},
		{locale.French, []string{"souviens-toi que mon vélo est bleu", "souviens-toi que notre mot de passe wifi est Tr0ub4dor3x", "souviens-toi que le bus part à huit heures"},
			"que sais-tu de moi", "Tu m'as dit : votre mot de passe wifi est un secret. Et ton vélo est bleu."},
	} {
		f := newSealedFixture(t)
		for _, s := range tt.tell {
			f.sayIn(t, tt.l, s)
		}
		r := f.sayIn(t, tt.l, tt.ask)
		if r.Spoken != tt.want || strings.Contains(r.Spoken, "Tr0ub4dor3x") || len(r.Reveal) > 0 {
			t.Errorf("%s %q: said %q (revealed %q), want %q", tt.l, tt.ask, r.Spoken, r.Reveal, tt.want)
		}
	}
}

// TestSearchMemoryCountsContentWordsOnly: a fact sharing only a function
// word ("the", "das", "las", "les") with what is asked about is not read
// back, in any language; asked by a word it holds, it is.
func TestSearchMemoryCountsContentWordsOnly(t *testing.T) {
	for _, tt := range []struct {
		l                     locale.Lang
		tell, miss, none, hit string
	}{
		{locale.English, "remember that the plan is on the fridge", "what do you remember about the plane", "I don't remember anything about that.",
			"what do you remember about the plan"},
		{locale.German, "merk dir, dass das Auto in der Garage steht", "was weißt du über das Flugzeug", "Dazu habe ich mir nichts gemerkt.",
			"was weißt du über das Auto"},
		{locale.Spanish, "recuerda que las llaves están en el cajón", "qué sabes de las bicis", "No recuerdo nada sobre eso.",
			"qué sabes de las llaves"},
		{locale.French, "souviens-toi que les clés sont dans le tiroir", "que sais-tu sur les vélos", "Je ne me souviens de rien à ce sujet.",
			"que sais-tu sur les clés"},
	} {
		f := newFixture(t)
		f.sayIn(t, tt.l, tt.tell)
		if r := f.sayIn(t, tt.l, tt.miss); r.Spoken != tt.none {
			t.Errorf("%s %q after %q: said %q, want %q", tt.l, tt.miss, tt.tell, r.Spoken, tt.none)
		}
		if r := f.sayIn(t, tt.l, tt.hit); r.Spoken == tt.none || r.Spoken == "" {
			t.Errorf("%s %q after %q: said %q, want the fact", tt.l, tt.hit, tt.tell, r.Spoken)
		}
	}
}
