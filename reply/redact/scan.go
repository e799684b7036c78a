package redact

import "strings"

// Hand-written scanners for the value patterns. They find exactly what the
// regular expressions kept beside them in scan_test.go find, with the same
// leftmost-first choices (greedy repeats try the longest first), the same
// ASCII word boundaries and the same case folding; but a sentence costs a
// few comparisons per byte instead of a regexp call, whose fixed cost
// dominated Redact on text with many short sentences.

// A finder looks for a match starting at s[i]: its end, or -1 and the next
// position worth trying (a finder may skip starts that cannot match).
type finder func(s string, i int) (end, next int)

// boundary is regexp's \b at s[i]: a word byte on one side only. A byte
// of a multi-byte rune is never a word byte, as the rune is not.
func boundary(s string, i int) bool {
	return (i > 0 && isWordByte(s[i-1])) != (i < len(s) && isWordByte(s[i]))
}

// foldLetter is the width of the letter at s[i] that (?i)[a-z] matches: an
// ASCII letter, or one of the two other runes that fold to one (ſ to s,
// the Kelvin sign to k); 0 for none.
func foldLetter(s string, i int) int {
	switch {
	case i >= len(s):
		return 0
	case isLetter(s[i]):
		return 1
	case s[i] == 0xC5 && i+1 < len(s) && s[i+1] == 0xBF: // ſ
		return 2
	case s[i] == 0xE2 && i+2 < len(s) && s[i+1] == 0x84 && s[i+2] == 0xAA: // K
		return 3
	}
	return 0
}

// foldAlnum is the width of what (?i)[a-z0-9] matches at s[i], or 0.
func foldAlnum(s string, i int) int {
	if i < len(s) && isDigit(s[i]) {
		return 1
	}
	return foldLetter(s, i)
}

// digitRun is the number of digits at s[i:], at most max.
func digitRun(s string, i, max int) int {
	n := 0
	for n < max && i+n < len(s) && isDigit(s[i+n]) {
		n++
	}
	return n
}

// isPhoneSep is [\s.\-].
func isPhoneSep(c byte) bool {
	return isSpace(c) || c == '.' || c == '-'
}

// phoneAt finds the phone pattern
//
//	(?:\+\d{1,3}[\s.\-]?)?(?:\(\d{1,5}\)[\s.\-]?)?\d{2,8}(?:[\s.\-]\d{2,8}){1,4}\b|\+\d{7,15}\b
//
// at s[i]: digit groups with separators, or a leading +.
func phoneAt(s string, i int) (int, int) {
	c := s[i]
	if c != '+' && c != '(' && !isDigit(c) {
		return -1, i + 1
	}
	if c == '+' {
		// The country code's digits, longest first; a separator after
		// them is taken when there is one.
		for n := digitRun(s, i+1, 3); n >= 1; n-- {
			p := i + 1 + n
			if p < len(s) && isPhoneSep(s[p]) {
				if end := phoneAfterCountry(s, p+1); end >= 0 {
					return end, 0
				}
			}
			if end := phoneAfterCountry(s, p); end >= 0 {
				return end, 0
			}
		}
	}
	if end := phoneAfterCountry(s, i); end >= 0 {
		return end, 0
	}
	if c == '+' { // the second alternative: + and 7 to 15 digits
		for n := digitRun(s, i+1, 15); n >= 7; n-- {
			if boundary(s, i+1+n) {
				return i + 1 + n, 0
			}
		}
	}
	return -1, i + 1
}

// phoneAfterCountry matches (?:\(\d{1,5}\)[\s.\-]?)? and the groups at s[p].
func phoneAfterCountry(s string, p int) int {
	if p < len(s) && s[p] == '(' {
		// Fewer digits than the run leave a digit where ")" must be.
		if n := digitRun(s, p+1, 6); n >= 1 && n <= 5 && p+1+n < len(s) && s[p+1+n] == ')' {
			q := p + 2 + n
			if q < len(s) && isPhoneSep(s[q]) {
				if end := phoneGroups(s, q+1, -1); end >= 0 {
					return end
				}
			}
			if end := phoneGroups(s, q, -1); end >= 0 {
				return end
			}
		}
	}
	return phoneGroups(s, p, -1)
}

// phoneGroups matches \d{2,8}(?:[\s.\-]\d{2,8}){1,4}\b at s[p], where k
// groups after the first are matched already (-1: not even the first).
// More groups and longer groups are tried first, as regexp does.
func phoneGroups(s string, p, k int) int {
	if k < 0 {
		for n := digitRun(s, p, 8); n >= 2; n-- {
			if end := phoneGroups(s, p+n, 0); end >= 0 {
				return end
			}
		}
		return -1
	}
	if k < 4 && p < len(s) && isPhoneSep(s[p]) {
		for n := digitRun(s, p+1, 8); n >= 2; n-- {
			if end := phoneGroups(s, p+1+n, k+1); end >= 0 {
				return end
			}
		}
	}
	if k >= 1 && boundary(s, p) {
		return p
	}
	return -1
}

// cardAt finds \b\d(?:[ \-]?\d){12,18}\b at s[i]: 13 to 19 digits, single
// spaces or dashes between them.
func cardAt(s string, i int) (int, int) {
	if !isDigit(s[i]) || !boundary(s, i) {
		return -1, i + 1
	}
	// Each repeat has one way to match at most (a digit, or a separator
	// and a digit), so the ends of up to 18 are recorded, then the
	// longest run that ends on a word boundary is taken.
	var ends [19]int
	k, p := 0, i+1
	for k < 18 {
		switch {
		case p < len(s) && isDigit(s[p]):
			p++
		case p+1 < len(s) && (s[p] == ' ' || s[p] == '-') && isDigit(s[p+1]):
			p += 2
		default:
			return longestBounded(s, ends[:k+1], 12, i)
		}
		k++
		ends[k] = p
	}
	return longestBounded(s, ends[:k+1], 12, i)
}

// longestBounded is the last of ends, from index min on, at a word
// boundary: the greedy repeat backing off. The second result is where the
// search goes on when there is none.
func longestBounded(s string, ends []int, min, i int) (int, int) {
	for k := len(ends) - 1; k >= min; k-- {
		if boundary(s, ends[k]) {
			return ends[k], 0
		}
	}
	return -1, i + 1
}

// ibanAt finds (?i)\b[a-z]{2}\d{2}(?:[ ]?[a-z0-9]){11,30}\b at s[i]: a
// country code, check digits, then letters and digits, optionally in groups.
func ibanAt(s string, i int) (int, int) {
	if foldLetter(s, i) == 0 || !boundary(s, i) {
		return -1, i + 1
	}
	p := i
	for range 2 {
		w := foldLetter(s, p)
		if w == 0 {
			return -1, i + 1
		}
		p += w
	}
	if digitRun(s, p, 2) < 2 {
		return -1, i + 1
	}
	p += 2
	var ends [31]int
	k := 0
	for k < 30 {
		if w := foldAlnum(s, p); w > 0 {
			p += w
		} else if p < len(s) && s[p] == ' ' && foldAlnum(s, p+1) > 0 {
			p += 1 + foldAlnum(s, p+1)
		} else {
			break
		}
		k++
		ends[k] = p
	}
	return longestBounded(s, ends[:k+1], 11, i)
}

// emailLocal is the width of (?i)[a-z0-9._%+\-] at s[i], or 0.
func emailLocal(s string, i int) int {
	if i < len(s) {
		switch s[i] {
		case '.', '_', '%', '+', '-':
			return 1
		}
	}
	return foldAlnum(s, i)
}

// emailDomain is the width of (?i)[a-z0-9.\-] at s[i], or 0.
func emailDomain(s string, i int) int {
	if i < len(s) && (s[i] == '.' || s[i] == '-') {
		return 1
	}
	return foldAlnum(s, i)
}

// emailAt finds (?i)\b[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}\b at s[i].
// Every start in one run of the local part's characters ends at the same
// "@" and domain, so when one fails the rest of the run is skipped: that
// keeps a long run linear.
func emailAt(s string, i int) (int, int) {
	if emailLocal(s, i) == 0 || !boundary(s, i) {
		return -1, i + 1
	}
	at := i
	for w := emailLocal(s, at); w > 0; w = emailLocal(s, at) {
		at += w
	}
	if at >= len(s) || s[at] != '@' {
		return -1, at
	}
	end := at + 1
	for w := emailDomain(s, end); w > 0; w = emailDomain(s, end) {
		end += w
	}
	// The domain is greedy: its last dot that is followed by a top-level
	// domain is tried first.
	for dot := end - 1; dot > at+1; dot-- {
		if s[dot] != '.' {
			continue
		}
		if tld := topLevel(s, dot+1); tld >= 0 {
			return tld, 0
		}
	}
	return -1, at
}

// escapeTail is the length of the tail of a JSON escape of a character
// at s[i], after its backslash: "u003c" of \u003c, as an encoder writes
// < and >; 0 for none. An address found there begins after it.
func escapeTail(s string, i int) int {
	if i+5 > len(s) || s[i] != 'u' || backslashesBefore(s, i)%2 == 0 {
		return 0
	}
	for _, c := range []byte(s[i+1 : i+5]) {
		if !isDigit(c) && (c|0x20 < 'a' || c|0x20 > 'f') {
			return 0
		}
	}
	return 5
}

// topLevel matches (?i)[a-z]{2,}\b at s[p]: the end of the most letters
// that end on a word boundary, or -1.
func topLevel(s string, p int) int {
	best := -1
	for n := 1; ; n++ {
		w := foldLetter(s, p)
		if w == 0 {
			return best
		}
		p += w
		if n >= 2 && boundary(s, p) {
			best = p
		}
	}
}

// The code pattern ("my locker code is 7351", "the alarm code's 4 4 1 9",
// "gate combination: 12-34-56", "CVV 123", "the code is four two one"),
//
//	(?i)\b((?:code|combination|combo|cvv2?|cvc|security code|pin)\s*(?:is|=|:|was|'s|number is)?\s*)
//	((?:\d[\d\s\-]{1,14}\d|\d{3,8}|(?:(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)[\s\-]*){3,12}))
//
// in parts: its words, what may come between the word and the value, and
// the numbers said as words. The word before the code (its kind: "zip
// code") is read by wordBefore.
var (
	codeWords   = []string{"code", "combination", "combo", "cvv2", "cvv", "cvc", "security code", "pin"}
	codeLinks   = []string{"is", "=", ":", "was", "'s", "number is"}
	numberWords = []string{"zero", "oh", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"}
)

// nextCode finds the first code at or after s[from] as regexp's
// FindAllStringSubmatchIndex does: where it starts, where its value
// (group 2) starts, and where both end; -1s for none. Its word and link
// (group 1) run from start to value.
func nextCode(s string, from int) (start, value, end int) {
	for i := from; i < len(s); i++ {
		if c := s[i] | 0x20; c != 'c' && c != 's' && c != 'p' && s[i] != 0xC5 {
			continue // not a word's first letter, nor ſ
		}
		if value, end := codeAt(s, i); end >= 0 {
			return i, value, end
		}
	}
	return -1, -1, -1
}

// codeAt matches the code pattern at s[i]: where its value starts and
// ends, or -1. Its alternatives are tried in the pattern's order ("cvv2"
// before "cvv", a link before none). Fewer spaces than there are before a
// link or a value are not tried: what follows would be a space, which
// neither starts with.
func codeAt(s string, i int) (value, end int) {
	if !boundary(s, i) {
		return -1, -1
	}
	for _, word := range codeWords {
		w := foldedPrefix(s, i, word)
		if w < 0 {
			continue
		}
		p := i + w
		p += spaceRun(s, p)
		for _, link := range codeLinks {
			if l := foldedPrefix(s, p, link); l >= 0 {
				v := p + l + spaceRun(s, p+l)
				if end := codeValue(s, v); end >= 0 {
					return v, end
				}
			}
		}
		if end := codeValue(s, p); end >= 0 {
			return p, end
		}
	}
	return -1, -1
}

// codeValue matches \d[\d\s\-]{1,14}\d|\d{3,8}|(?:(?:zero|…|nine)[\s\-]*){3,12}
// at s[p]: its end, or -1. It ends the pattern, so each alternative is
// greedy with nothing after it to give way to.
func codeValue(s string, p int) int {
	if p < len(s) && isDigit(s[p]) {
		run := 0 // [\d\s\-] after the first digit
		for p+1+run < len(s) && run < 15 && (isDigit(s[p+1+run]) || isSpace(s[p+1+run]) || s[p+1+run] == '-') {
			run++
		}
		for k := min(14, run-1); k >= 1; k-- {
			if isDigit(s[p+1+k]) {
				return p + 2 + k
			}
		}
		if n := digitRun(s, p, 8); n >= 3 {
			return p + n
		}
		return -1
	}
	n, q := 0, p
	for ; n < 12; n++ {
		w := -1
		for _, word := range numberWords {
			if w = foldedPrefix(s, q, word); w >= 0 {
				break
			}
		}
		if w < 0 {
			break
		}
		q += w
		for q < len(s) && (isSpace(s[q]) || s[q] == '-') {
			q++
		}
	}
	if n < 3 {
		return -1
	}
	return q
}

// isSpace is regexp's \s: ASCII space, tab, newline, form feed, carriage
// return.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// spaceRun is the number of \s at s[p:].
func spaceRun(s string, p int) int {
	n := 0
	for p+n < len(s) && isSpace(s[p+n]) {
		n++
	}
	return n
}

// foldedPrefix is the width of word (lower case) at s[p] as (?i) matches
// it: ASCII letters in either case, ſ for s, the Kelvin sign for k; -1
// when it is not there.
func foldedPrefix(s string, p int, word string) int {
	start := p
	for j := 0; j < len(word); j++ {
		c := word[j]
		switch {
		case p < len(s) && (s[p] == c || isLetter(c) && s[p]|0x20 == c && isLetter(s[p])):
			p++
		case c == 's' && foldLetter(s, p) == 2, c == 'k' && foldLetter(s, p) == 3:
			p += foldLetter(s, p)
		default:
			return -1
		}
	}
	return p - start
}

// tokenStarts are what each of tokenPatterns begins with, in their
// order: as written, or folded where the pattern ignores case.
var tokenStarts = []struct {
	text    string
	folded  bool
	pattern int
}{
	{"sk-", false, 0}, {"pk-", false, 0}, {"rk-", false, 0}, {"gh", false, 1}, {"xox", false, 2}, {"AKIA", false, 3},
	{"AIza", false, 4}, {"eyJ", false, 5}, {"bearer", true, 6}, {"api", true, 7}, {"token", true, 7}, {"secret", true, 7},
}

// tokenFirst are the bytes a token pattern's start can begin with: as
// written, in either case where it is folded, and the first byte of ſ,
// which folds to s.
var tokenFirst = func() (first [256]bool) {
	for _, t := range tokenStarts {
		first[t.text[0]] = true
		if t.folded {
			first[t.text[0]&^0x20] = true
		}
	}
	first[0xC5] = true
	return first
}()

// tokenAt finds the token patterns at s[i]. Each starts at a word
// boundary, checked here; then only the patterns whose start is at s[i]
// are tried, in their order, each anchored: small patterns called at a
// few places instead of one large one searched at every byte.
func tokenAt(s string, i int) (int, int) {
	if !tokenFirst[s[i]] || !boundary(s, i) {
		return -1, i + 1
	}
	for _, t := range tokenStarts {
		if t.folded && foldedPrefix(s, i, t.text) < 0 || !t.folded && !strings.HasPrefix(s[i:], t.text) {
			continue
		}
		if loc := tokenAnchored[t.pattern].FindStringIndex(s[i:]); loc != nil {
			return i + loc[1], 0
		}
	}
	return -1, i + 1
}

// isKeyByte is [A-Za-z0-9_\-].
func isKeyByte(c byte) bool { return isWordByte(c) || c == '-' }

// opaqueAt finds \b[A-Za-z0-9_\-]{24,}\b at s[i]: a long run that may be a
// generated key. The repeat is greedy, so the match ends at the run's
// last word boundary; a start later in the same run has the same last
// boundary, nearer, so when this one fails the run is skipped.
func opaqueAt(s string, i int) (int, int) {
	if !isKeyByte(s[i]) || !boundary(s, i) {
		return -1, i + 1
	}
	end := i
	for end < len(s) && isKeyByte(s[end]) {
		end++
	}
	for p := end; p >= i+24; p-- {
		if boundary(s, p) {
			return p, 0
		}
	}
	return -1, end
}
