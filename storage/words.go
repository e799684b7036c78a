package storage

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a remembered fact holds of a question is decided here, for the
// search and for those that must not guess (the answer with the model
// down, search_memory keeping the whole match, forget). A word of the
// question is held when the fact has it, or another form of it: the same
// stem once an ending of inflection is taken off (en -ed, -ing and the
// -es of a plural, whose -ies is a -y; de -en, -es, -e; es the
// participle, infinitive, gerund and the -es of a plural; fr -é, -ée,
// -er, -ez). A stem keeps
// four letters or more, so that short words ("bed", "casa", "gare") stay
// themselves; no ending of derivation is taken off ("university" is not
// "universe"), nor one that mostly ends other words (English -e: "plane"
// is not "plan"; German -t and -st: "Nacht" is not "nach"; Spanish -a
// and -o: "puerta" is not "puerto").

// ContentWords returns the lower-cased words of s with three or more
// letters, in any script, with a trailing plural "s" dropped.
func ContentWords(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) < 3 {
			continue
		}
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		out[w] = true
	}
	return out
}

// HoldsAll reports whether fact holds every content word of asked, in
// the form asked or another form of it in language lang (an ISO 639-1
// code; other forms are English's when lang is empty, and none for a
// language without rules here). Asked without content words is held.
func HoldsAll(fact, asked, lang string) bool {
	n, of := Shared(fact, asked, lang)
	return n == of
}

// Shared counts the content words of asked that fact holds (as HoldsAll
// says), of how many asked has. A function word of lang or of English
// (FunctionWord) is not counted: "the plane" shares nothing with "the
// plan is on the fridge".
func Shared(fact, asked, lang string) (n, of int) {
	if lang == "" {
		lang = "en"
	}
	stems := map[string]bool{}
	for w := range ContentWords(fact) {
		for _, f := range forms(w, lang) {
			stems[f] = true
		}
	}
	for w := range ContentWords(asked) {
		if FunctionWord(w, lang) {
			continue
		}
		of++
		for _, f := range forms(w, lang) {
			if stems[f] {
				n++
				break
			}
		}
	}
	return n, of
}

// FunctionWord reports whether w, a word as ContentWords gives it, is a
// function word (an article, a pronoun, a conjunction, a plain
// preposition, a verb of being or having) in language lang (an ISO 639-1
// code; English when empty) or in English, whose such words a household
// mixes into every language. Such a word says nothing of what a fact is
// about. Another language's function word is a word of its own in lang:
// the French "car" is an English car.
func FunctionWord(w, lang string) bool {
	if lang == "" {
		lang = "en"
	}
	return functionWords[lang][w] || functionWords["en"][w]
}

// functionWords are, by language, its function words of three letters or
// more (ContentWords keeps no shorter word), in the form ContentWords
// gives them ("does" is "doe", "dans" is "dan"). Prepositions of place
// ("under", "unter", "bajo", "sous") stay content words: where a thing is
// is part of the fact.
var functionWords = map[string]map[string]bool{
	"en": ContentWords(`the and but nor for with from into onto about than then that this these those there here
		its his her hers him she they them their theirs you your yours our ours mine myself yourself ourselves
		are was were been being has have had having does did doing will would shall should can could may might must
		what who whom whose which when where why how not also just all any some anything something everything`),
	"de": ContentWords(`der die das den dem des ein eine einen einem einer eines und oder aber auch also noch schon doch denn
		dass wenn weil als wie was wer wen wem wann warum welche welcher welches woher wohin hier dort kein keine ist sind war waren bin bist seid sein wird werden wurde wurden
		hat habe hast haben hatte hatten ich mich mir mein meine meinen meinem meiner meines dich dir dein deine deinen deinem deiner deines
		sie ihr ihre ihren ihrem ihrer ihres ihn ihm wir uns unser unsere unseren unserem unserer unseres euch euer eure man
		mit von für auf aus bei nach zum zur beim vom ins nicht dies diese dieser dieses diesem diesen`),
	"es": ContentWords(`los las uno una unos unas del que pero porque como cuando donde qué cómo cuándo dónde adónde
		cual cuál cuales cuáles quien quién quienes quiénes cuánto cuánta cuántos cuántas mío mía tuyo tuya
		muy más también son era eran fue está están estaba estaban esta este esto estos estas eso esa ese esos esas
		hay han has hemos tiene tienen tengo mis tus sus nuestro nuestra nuestros nuestras vuestro vuestra vuestros vuestras
		ella ellos ellas nosotros nosotras vosotros vosotras usted ustedes les con sin por para`),
	"fr": ContentWords(`les une des aux mais donc car que qui quoi dont quand comment pourquoi quel quelle quels quelles combien est sont était étaient été être
		suis sommes êtes ont avons avez avait mon mes ton tes son ses notre nos votre vos leur leurs
		elle ils elles nous vous moi toi lui eux cet cette ces cela avec pour par dans chez pas plus très aussi`),
}

// languages are those with rules for other forms of a word.
var languages = []string{"en", "de", "es", "fr"}

// anyForms are the forms of words in every language with rules: for
// ranking a search, which knows no language.
func anyForms(words map[string]bool) map[string]bool {
	out := map[string]bool{}
	for w := range words {
		for _, lang := range languages {
			for _, f := range forms(w, lang) {
				out[f] = true
			}
		}
	}
	return out
}

// forms are a content word (as ContentWords gives it) and its stems in
// language lang.
func forms(w, lang string) []string {
	out := []string{w}
	add := func(stem string, least int) {
		if utf8.RuneCountInString(stem) >= least {
			out = append(out, stem)
		}
	}
	switch lang {
	case "en":
		if enWhole[w] {
			break
		}
		for _, end := range []string{"ing", "ed"} {
			stem, ok := strings.CutSuffix(w, end)
			if !ok {
				continue
			}
			add(stem, 4)
			if doubled(stem) { // shopping, planned
				add(stem[:len(stem)-1], 4)
			} else if utf8.RuneCountInString(stem) >= 3 { // stored, hiking
				out = append(out, stem+"e")
			}
			break
		}
		// The -es of a plural after a hissing sound (ContentWords took its s).
		if stem, ok := strings.CutSuffix(w, "e"); ok && hasAnySuffix(stem, "s", "x", "z", "ch", "sh") {
			add(stem, 3)
		}
		// The -ies of a plural of a word in -y (ContentWords took its s).
		if stem, ok := strings.CutSuffix(w, "ie"); ok && utf8.RuneCountInString(stem) >= 3 {
			out = append(out, stem+"y")
		}
	case "de":
		add(cutFirst(w, "en", "es", "e"), 4)
	case "es":
		add(cutFirst(w, "iendo", "ando", "ado", "ada", "ido", "ida", "ar", "er", "ir"), 4)
		// The -es of a plural after a consonant (ContentWords took its s).
		if stem, ok := strings.CutSuffix(w, "ione"); ok {
			out = append(out, stem+"ión") // canciones, canción
		} else if stem, ok := strings.CutSuffix(w, "e"); ok && hasAnySuffix(stem, "l", "r", "n", "d", "z", "j", "y") {
			add(stem, 3)
		}
	case "fr":
		add(cutFirst(w, "ée", "é", "er", "ez"), 4)
	}
	return out
}

// sharesAny reports whether a and b have a word in common.
func sharesAny(a, b map[string]bool) bool {
	for w := range a {
		if b[w] {
			return true
		}
	}
	return false
}

// enWhole are English words whose -ing or -ed is no ending.
var enWhole = map[string]bool{"evening": true, "wicked": true, "crooked": true}

// cutFirst is w without the first of ends it ends with; "" when none.
func cutFirst(w string, ends ...string) string {
	for _, end := range ends {
		if stem, ok := strings.CutSuffix(w, end); ok {
			return stem
		}
	}
	return ""
}

func hasAnySuffix(w string, ends ...string) bool {
	for _, end := range ends {
		if strings.HasSuffix(w, end) {
			return true
		}
	}
	return false
}

// doubled reports whether w ends in a doubled consonant that an ending
// doubled (not the ll, ss or zz of "call", "miss", "buzz").
func doubled(w string) bool {
	n := len(w)
	if n < 2 || w[n-1] != w[n-2] {
		return false
	}
	return !strings.ContainsRune("aeioulsz", rune(w[n-1]))
}
