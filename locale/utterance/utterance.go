// Package utterance reads quantities out of what people say to a speaker:
// numbers written in words or digits ("twelve", "1,500", "two and a half"),
// durations ("an hour and a half", "90 seconds"), clock times ("half past
// seven", "7:30 pm") and days of the week ("on weekdays"). The offline
// command path and the commands' argument repair use it, so a timer can be
// set with no model at all.
//
// It understands English; other languages go to the model.
package utterance

import (
	"strings"
	"unicode"
)

// Normalize lowercases s, turns typographic quotes into plain ones, drops
// punctuation that does not belong to a number or a time (keeping "7:30",
// "2.5", "1,000", "-3", "%") and collapses white space.
func Normalize(s string) string {
	s = strings.ToLower(s)
	s = strings.NewReplacer("’", "'", "‘", "'", "“", "", "”", "", "°", " degrees ").Replace(s)
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		digitBefore := i > 0 && unicode.IsDigit(rs[i-1])
		digitAfter := i+1 < len(rs) && unicode.IsDigit(rs[i+1])
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '\'' || r == '%':
			b.WriteRune(r)
		case (r == ':' || r == '.' || r == ',') && digitBefore && digitAfter:
			b.WriteRune(r)
		case r == '-' && digitAfter && (i == 0 || rs[i-1] == ' '):
			b.WriteRune(r)
		case r == '-' && digitAfter && digitBefore:
			b.WriteString(" - ")
		case r == '*' || r == '/' || r == '+' || r == '^' || r == '=' || r == '×' || r == '÷':
			b.WriteString(" " + string(r) + " ")
		default:
			b.WriteRune(' ')
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// Words splits a normalized utterance into words.
func Words(s string) []string { return strings.Fields(s) }

// contractions that change how an utterance reads.
var contractions = strings.NewReplacer(
	"what's", "what is", "how's", "how is", "it's", "it is", "that's", "that is",
	"i'd", "i would", "i'm", "i am", "don't", "do not", "let's", "let us",
	"there's", "there is", "who's", "who is", "where's", "where is",
)

// Expand normalizes s and spells out common contractions.
func Expand(s string) string { return contractions.Replace(Normalize(s)) }
