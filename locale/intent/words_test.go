package intent_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/harkbox/hark/locale/intent"
)

// TestWordsAreWhole: the words an intent's templates say, as the tool
// router reads them, are whole words: every word of a sentence made from
// Home Assistant's and Hark's templates is among them, but the values of
// its lists and wildcards, though the templates write a verb in pieces
// ("enc[i]end(a|e|er|é)", "(encendid|apagad)(o|a)[s]").
func TestWordsAreWhole(t *testing.T) {
	for _, lang := range langs {
		l, err := intent.Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		lists := sampleHouse(l)
		missing := map[string]int{}
		checked := 0
		for _, s := range l.Samples(rand.New(rand.NewPCG(5, 6)), 2, lists) {
			core, extra := l.Words(s.Intent)
			var slotWords []string
			for _, v := range s.Slots {
				if v, ok := v.(string); ok {
					slotWords = append(slotWords, saidWords(v)...)
				}
			}
			for _, w := range saidWords(s.Text) {
				if slices.ContainsFunc(slotWords, func(v string) bool { return strings.Contains(w, v) }) || strings.ContainsFunc(w, unicode.IsDigit) {
					continue // a list's value ("zorvexa's"), or a number
				}
				checked++
				if !slices.Contains(core, w) && !slices.Contains(extra, w) {
					missing[s.Intent+" "+w]++
				}
			}
		}
		if len(missing) > 0 {
			var some []string
			for k := range missing {
				some = append(some, k)
			}
			slices.Sort(some)
			t.Errorf("%s: %d of %d words said are not among their intents' words, such as %q", lang, len(missing), checked, some[:min(len(some), 20)])
		}
	}
}

// TestSpanishVerbsAreWords: the Spanish verbs of switching, which Home
// Assistant writes in pieces, are words of their intents, said or not in
// an optional part.
func TestSpanishVerbsAreWords(t *testing.T) {
	l, err := intent.Load("es")
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string][]string{
		"HassTurnOn":  {"enciende", "encienda", "prende", "activa", "conecta"},
		"HassTurnOff": {"apaga", "apague", "desconecta", "desactiva"},
	} {
		core, _ := l.Words(in)
		for _, w := range want {
			if !slices.Contains(core, w) {
				t.Errorf("%s: %q is not among its words %q", in, w, core[:min(len(core), 30)])
			}
		}
	}
}

// saidWords are the words of a sentence as the tool router splits them.
func saidWords(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return unicode.IsSpace(r) || r == '-' || r == '_' || strings.ContainsRune(".,;:!?¿¡\"“”«»()", r)
	}) {
		if w = strings.Trim(w, "'’"); w != "" {
			out = append(out, w)
		}
	}
	return out
}
