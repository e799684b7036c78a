package locale

import (
	"slices"
	"strings"
	"unicode"
)

// germanArticles lead a German noun: articles and possessives.
var germanArticles = []string{"der", "die", "das", "den", "dem", "des", "ein", "eine", "einen", "einem", "einer", "eines",
	"mein", "meine", "meinen", "meinem", "meiner", "meines", "dein", "deine", "deinen", "deinem", "deiner", "deines",
	"sein", "seine", "seinen", "seinem", "seiner", "ihr", "ihre", "ihren", "ihrem", "ihrer", "unser", "unsere", "unseren",
	"unserem", "unserer", "euer", "eure", "euren", "kein", "keine", "keinen"}

// germanPronouns are a German clause's subject in one word.
var germanPronouns = []string{"ich", "du", "er", "sie", "es", "wir", "ihr", "man"}

// separablePrefixes start a German verb whose prefix a main clause leaves
// at the end ("der Bus fährt um acht ab"): a clause ending in such a verb
// is not reordered.
var separablePrefixes = []string{"ab", "an", "auf", "aus", "bei", "ein", "fest", "fort", "her", "hin", "los", "mit",
	"nach", "vor", "weg", "weiter", "zu", "zurück", "zusammen", "heim", "um", "dar", "da"}

// notVerbs are words that end a German clause but are no verb: a clause
// ending in one ("… ist und so") is left as said.
var notVerbs = []string{"so", "und", "oder", "auch", "noch", "nicht", "ja", "nein", "gut", "mehr", "hier", "dort", "da",
	"also", "halt", "eben", "doch", "immer", "heute", "morgen", "gestern", "jetzt", "bitte", "etwa", "ungefähr"}

// attributes start what belongs to the noun before them ("die Schlüssel
// von meinem Auto", "die Tür der Garage") rather than to the verb; after
// the first part they leave the clause as said, since the verb's place
// then depends on the meaning.
var attributes = []string{"von", "vom", "des", "der", "eines", "einer", "meines", "meiner", "deines", "deiner",
	"seines", "seiner", "unseres", "unserer"}

// MainClause puts a German clause said after "dass" in said, the whole
// utterance ("merk dir, dass der Schlüssel unter der Matte liegt"), in the
// order of a main clause: "der Schlüssel liegt unter der Matte", the last
// word (the finite verb) after the first part. Only a plain first part is
// moved past (a pronoun, a name, an article or possessive with its noun,
// and the names right after it), and never a verb whose separable prefix
// would have to stay behind ("abfährt"); a clause in any other language,
// or not after "dass", is returned as it is. The words are the
// household's; only their order changes.
func (l Lang) MainClause(said, clause string) string {
	if l != German {
		return clause
	}
	body := strings.TrimRight(clause, ".!? ")
	end := clause[len(body):]
	i := strings.Index(strings.ToLower(said), strings.ToLower(body))
	if i < 0 {
		return clause
	}
	before := strings.Fields(strings.NewReplacer(",", " ", ":", " ").Replace(strings.ToLower(said[:i])))
	if len(before) == 0 || before[len(before)-1] != "dass" {
		return clause
	}
	words := strings.Fields(body)
	n := len(words)
	if n < 3 {
		return clause
	}
	verb := words[n-1]
	if !allLower(verb) || slices.Contains(notVerbs, verb) {
		return clause
	}
	for _, p := range separablePrefixes {
		if strings.HasPrefix(verb, p) && len([]rune(verb)) > len([]rune(p))+2 {
			return clause
		}
	}
	k := firstPart(words[:n-1])
	if k == 0 || k >= n-1 || slices.Contains(attributes, strings.ToLower(words[k])) {
		return clause
	}
	out := slices.Concat(words[:k], []string{verb}, words[k:n-1])
	return strings.Join(out, " ") + end
}

// firstPart is how many words at the start of a German clause make its
// first part: a pronoun, an article or possessive with up to two words and
// its noun, or a name; the names right after the noun go with it ("meine
// Schwester Anna"), not a capital word with digits (a password). Zero
// when the start is none of these.
func firstPart(words []string) int {
	first := strings.ToLower(words[0])
	k := 0
	switch {
	case slices.Contains(germanArticles, first):
		for j := 1; j < len(words) && j <= 3; j++ {
			if capital(words[j]) {
				k = j + 1
				break
			}
		}
		if k == 0 && slices.Contains(germanPronouns, first) { // "ihr", "sie"
			return 1
		}
	case slices.Contains(germanPronouns, first):
		return 1
	case capital(words[0]):
		k = 1
	}
	if k == 0 {
		return 0
	}
	for k < len(words) && capital(words[k]) && nameLike(words[k]) {
		k++
	}
	return k
}

// nameLike reports whether w is letters alone, as a name is: "Anna", not
// a password such as "Tr0ub4dor3x".
func nameLike(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) && r != '-' {
			return false
		}
	}
	return true
}

func capital(w string) bool {
	for _, r := range w {
		return unicode.IsUpper(r)
	}
	return false
}

func allLower(w string) bool {
	for _, r := range w {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return w != ""
}
