// Package compound splits a request that asks two things at once ("what's
// the weather in Paris and what time is it in Tokyo") into its parts, so the
// reply engine can check a small model answered both. It knows one
// conjunction per language and splits only when both parts are long enough
// to be questions of their own; languages it does not know are not split.
package compound

import (
	"strings"
	"unicode/utf8"
)

// MinClause is the shortest part, in characters, that counts as a
// question: shorter ones are idioms ("rock and roll", "pros and cons").
const MinClause = 9

var conjunctions = map[string]string{
	"en": "and", "es": "y", "fr": "et", "de": "und", "pt": "e", "it": "e", "nl": "en", "tr": "ve",
}

// Split returns the two parts of a compound query, or nil. An empty
// language is English; other languages than the eight known are not split.
func Split(text, language string) []string {
	lang := strings.ToLower(language)
	if i := strings.IndexAny(lang, "-_"); i > 0 {
		lang = lang[:i]
	}
	if lang == "" {
		lang = "en"
	}
	conj, ok := conjunctions[lang]
	if !ok {
		return nil
	}
	words := strings.Fields(text)
	for i, w := range words {
		if strings.ToLower(strings.Trim(w, ",;")) != conj || i == 0 || i == len(words)-1 {
			continue
		}
		left := strings.TrimRight(strings.Join(words[:i], " "), ",;")
		right := strings.Join(words[i+1:], " ")
		if utf8.RuneCountInString(left) >= MinClause && utf8.RuneCountInString(right) >= MinClause {
			return []string{left, right}
		}
	}
	return nil
}
