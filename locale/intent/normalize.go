package intent

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// punctuation is dropped from the start and end of what was said and of
// each of its words, as HassIL drops it; inside a word it stays ("7:30",
// "2.5").
const punctuation = ".。,，?¿？؟!¡！;；:：\"“”«»‘"

// Normalize is what was said as the templates are matched against it:
// lowercased in Unicode's composed form, the punctuation around words
// dropped, the language's skip words ("please", "can you") removed, words
// one space apart, ending with a space.
func (l *Language) Normalize(said string) string {
	s, _ := l.normalize(said)
	return s
}

// normalize returns what was said as matched, and as said but for case,
// when lowercasing kept every byte where it was (values keep their case:
// "add Milk").
func (l *Language) normalize(said string) (lower, cased string) {
	return l.normalizeSkipping(said, true)
}

// normalizeSkipping is normalize, dropping the skip words or not.
func (l *Language) normalizeSkipping(said string, skip bool) (lower, cased string) {
	s := strings.ReplaceAll(norm.NFC.String(said), "’", "'")
	var words []string
	for _, w := range strings.FieldsFunc(s, unicode.IsSpace) {
		w = strings.Trim(w, punctuation)
		if w != "" {
			words = append(words, w)
		}
	}
	cased = strings.Join(words, " ")
	lower = strings.ToLower(cased)
	if len(lower) != len(cased) {
		cased = lower
	}
	lw, cw := strings.Fields(lower), strings.Fields(cased)
	var keep, keepCased []string
	kept := l.kept(lw)
	if !skip {
		kept = kept[:0]
		for i := range lw {
			kept = append(kept, i)
		}
	}
	for _, i := range kept {
		keep, keepCased = append(keep, lw[i]), append(keepCased, cw[i])
	}
	if len(keep) == 0 {
		return "", ""
	}
	return strings.Join(keep, " ") + " ", strings.Join(keepCased, " ") + " "
}

// kept returns the indexes of the words that are not skip words: every
// skip word, longest first, is dropped where it stands as whole words,
// and a lead word before the first word kept.
func (l *Language) kept(words []string) []int {
	out := make([]int, 0, len(words))
	for i := 0; i < len(words); {
		n := 0
		for _, sw := range l.skip {
			if len(sw) <= len(words)-i && equalWords(words[i:i+len(sw)], sw) {
				n = len(sw)
				break
			}
		}
		for _, lw := range l.lead {
			if n == 0 && len(out) == 0 && len(lw) <= len(words)-i && equalWords(words[i:i+len(lw)], lw) {
				n = len(lw)
				break
			}
		}
		if n > 0 {
			i += n
			continue
		}
		out = append(out, i)
		i++
	}
	return out
}

func equalWords(a, b []string) bool {
	for i := range b {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
