package redact

import "strings"

// Recovery and backup codes, and recovery keys, said in a sentence or
// listed under a heading: they sign in as a password does.
//
//	Your backup codes are 1234 5678, 2345 6789 and 3456 7890.
//	Your recovery key is 7H3K-QX2M-9PLD-WV4R-TB8N-YC6J-ZF5S
//	GitHub recovery codes:\nabcde-12345\nfghij-67890
//
// After "recovery" or "backup" and "code", "codes", "key" or "keys" (one
// word or two, in any case), a link maybe ("is", "are", ":"), come the
// values: each is groups of letters and digits joined by dashes, one
// space between groups of digits, and the values are separated by
// commas, spaces, quotes, "and", "or" and line ends, escaped in a JSON
// string or not. A value is taken only when it is shaped like a code
// (codeShaped), so that talk about the codes ("the backup key is in the
// drawer") stays; the list ends at the first word that is not one.

// recoveryWords start the name, recoveryNouns end it, recoveryLinks may
// follow it (lower case).
var (
	recoveryWords = []string{"recovery", "backup"}
	recoveryNouns = []string{"codes", "code", "keys", "key"}
	recoveryLinks = []string{"is", "are", "was", "were", "'s", ":", "="}
)

// recoveryNameAt is the end of the name of recovery codes ("backup
// codes") and its link that start at s[i], or -1.
func recoveryNameAt(s string, i int) int {
	if i > 0 && isLetter(s[i-1]) {
		return -1
	}
	p := -1
	for _, w := range recoveryWords {
		if n := foldedPrefix(s, i, w); n >= 0 {
			p = i + n
			break
		}
	}
	if p < 0 {
		return -1
	}
	if p < len(s) && (s[p] == ' ' || s[p] == '_' || s[p] == '-') {
		p++
	}
	noun := -1
	for _, w := range recoveryNouns {
		if n := foldedPrefix(s, p, w); n >= 0 && (p+n == len(s) || !isLetter(s[p+n])) {
			noun = p + n
			break
		}
	}
	if noun < 0 {
		return -1
	}
	p = noun + spaceRun(s, noun)
	for _, l := range recoveryLinks {
		if n := foldedPrefix(s, p, l); n >= 0 && (!isLetter(l[0]) || p+n == len(s) || !isLetter(s[p+n])) {
			p += n
			if p < len(s) && s[p] == ':' && l[0] != ':' {
				p++ // "are:"
			}
			return p
		}
	}
	return noun
}

// recoveryValues appends to found the values of the list at s[p] that
// follows a name of recovery codes, and returns it and where the last
// value ends (p when there is none).
func recoveryValues(s string, p int, found []secret) ([]secret, int) {
	end := p
	for {
		q := listSeparators(s, p)
		e := recoveryCodeAt(s, q)
		if e < 0 {
			return found, end
		}
		found = append(found, secret{q, e, s[q:e]})
		end, p = e, e
	}
}

// listSeparators is the end of the separators between the values of a
// list at s[p]: spaces, line ends, commas, semicolons, quotes, "and",
// "or", and a line end or a quote escaped in a JSON string.
func listSeparators(s string, p int) int {
	for p < len(s) {
		switch c := s[p]; {
		case isSpace(c) || c == ',' || c == ';' || c == '"' || c == '\'':
			p++
		case c == '\\':
			k := p
			for k < len(s) && s[k] == '\\' {
				k++
			}
			if k == len(s) || strings.IndexByte(`nrt"`, s[k]) < 0 {
				return p
			}
			p = k + 1
		case p > 0 && isSpace(s[p-1]) && (foldedPrefix(s, p, "and ") >= 0 || foldedPrefix(s, p, "or ") >= 0):
			p += strings.IndexByte(s[p:], ' ') + 1
		default:
			return p
		}
	}
	return p
}

// recoveryCodeAt is the end of the value shaped like a recovery code at s[p],
// or -1: its groups of letters and digits joined by dashes, and the
// groups of digits that follow it after a space ("1234 5678").
func recoveryCodeAt(s string, p int) int {
	end := chunkEnd(s, p)
	if end < 0 || !codeShaped(s[p:end]) {
		return -1
	}
	for end+1 < len(s) && s[end] == ' ' && isDigit(s[end+1]) {
		e := chunkEnd(s, end+1)
		if e < 0 || !allDigits(s[end+1:e]) {
			break
		}
		end = e
	}
	return end
}

// chunkEnd is the end of the letters, digits and dashes at s[p], when
// they end a word (at the end of s, a space, a quote, a backslash or a
// mark that ends a clause), or -1.
func chunkEnd(s string, p int) int {
	e := p
	for e < len(s) && (isLetter(s[e]) || isDigit(s[e]) || s[e] == '-') {
		e++
	}
	if e == p || e < len(s) && !isSpace(s[e]) && strings.IndexByte(`,;.!?)]}"'\<>`, s[e]) < 0 {
		return -1
	}
	return e
}

// codeShaped reports whether a word of letters, digits and dashes is
// shaped like a generated code: at least four letters and digits, in
// groups joined by single dashes, and either a digit in it and groups of
// two or more ("1234", "abcde-12345"), or no digit and two groups or
// more of one length, of four or more letters, each of one case
// ("ABCD-EFGH", "abcd-efgh"). "2-factor", "one-time" and "self-service"
// are not.
func codeShaped(w string) bool {
	groups := strings.Split(w, "-")
	digits, letters := 0, 0
	for _, g := range groups {
		if g == "" {
			return false
		}
		for i := 0; i < len(g); i++ {
			if isDigit(g[i]) {
				digits++
			} else {
				letters++
			}
		}
	}
	if digits+letters < 4 {
		return false
	}
	if digits > 0 {
		for _, g := range groups {
			if len(g) < 2 {
				return false
			}
		}
		return true
	}
	if len(groups) < 2 {
		return false
	}
	for _, g := range groups {
		if len(g) != len(groups[0]) || len(g) < 4 || strings.ToUpper(g) != g && strings.ToLower(g) != g {
			return false
		}
	}
	return true
}

// allDigits reports whether s is digits only.
func allDigits(s string) bool { return digitRun(s, 0, len(s)) == len(s) }

// recoveryCodes finds the lists of recovery codes whose names are in
// s[:n], and returns the values and where the last ends (n at least). A
// list may run on past n, on the lines after its heading.
func recoveryCodes(s string, n int, found []secret) ([]secret, int) {
	end := n
	for i := 0; i < n; i++ {
		if c := s[i] | 0x20; c != 'r' && c != 'b' {
			continue
		}
		p := recoveryNameAt(s, i)
		if p < 0 {
			continue
		}
		var e int
		if found, e = recoveryValues(s, p, found); e > end {
			end = e
		}
		i = max(i, e-1)
	}
	return found, end
}

// recovery puts placeholders for the recovery codes in s and adds their
// kinds to kinds. With nothing replaced it returns s itself.
func (r *Redactor) recovery(s string, kinds []Kind) (string, []Kind) {
	found, _ := recoveryCodes(s, len(s), nil)
	if len(found) == 0 {
		return s, kinds
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, v := range found {
		b.WriteString(s[last:v.start])
		b.WriteString(r.placeholder(Secret, v.value))
		kinds = append(kinds, Secret)
		last = v.end
	}
	b.WriteString(s[last:])
	return b.String(), kinds
}

// recoveryEnd is the end of the sentence at the start of s, n long, or,
// when the values of a list of recovery codes named in it run on past
// it, of the sentence in which the last ends: the list is redacted with
// its name.
func recoveryEnd(s string, n int) int {
	for {
		_, end := recoveryCodes(s, n, nil)
		if end <= n {
			return n
		}
		n = end + sentence(s[end:])
	}
}
