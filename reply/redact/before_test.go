package redact

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The redaction as it was before the scanners, kept as the reference the
// whole of Redact is checked against: its sentence, look and pass, with
// the regexps of scan_test.go and the checksum with big numbers.

// redactBefore is Redact as it was, after the key-value pairs, which it
// reads as Redact does, as it does recovery codes.
func (r *Redactor) redactBefore(s string) (string, []Kind) {
	var kinds []Kind
	s, kinds = r.pairs(s, kinds)
	var b strings.Builder
	shorter := false
	for len(s) > 0 {
		n := sentence(s)
		if lookBefore(s[:n])&hasRecovery != 0 {
			n = recoveryEnd(s, n)
		}
		out, k := r.sentenceBefore(s[:n])
		kinds = append(kinds, k...)
		shorter = shorter || len(out) < n
		b.WriteString(out)
		s = s[n:]
	}
	if !shorter || !mentionsValue(b.String()) {
		return b.String(), kinds
	}
	return r.pairs(b.String(), kinds) // as Redact does
}

// sentenceBefore is sentence as it was.
func (r *Redactor) sentenceBefore(s string) (string, []Kind) {
	var kinds []Kind
	for range 8 {
		f := lookBefore(s)
		if f == 0 {
			break
		}
		out, k := r.passBefore(s, f)
		kinds = append(kinds, k...)
		if out == s {
			break
		}
		s = out
	}
	return s, kinds
}

// lookBefore is look as it was.
func lookBefore(s string) features {
	var f features
	run := 0     // letters, digits, _ and - in a row
	digits := 0  // digits in a row, spaces, dashes, dots and brackets between
	letters := 0 // letters in a row, for an IBAN's country
	lower := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '[' {
			if loc := placeholderRE.FindStringIndex(s[i:min(len(s), i+16)]); loc != nil && loc[0] == 0 {
				i += loc[1] - 1
				run, digits, letters = 0, 0, 0
				continue
			}
		}
		switch {
		case isDigit(c):
			digits++
			if letters >= 2 && i+1 < len(s) && isDigit(s[i+1]) {
				f |= hasIBAN // two letters, then two digits
			}
			letters = 0
		case c == ' ' || c == '-' || c == '.' || c == '(' || c == ')' || c == '+':
			letters = 0
		case c == '@':
			f |= hasAt
			digits, letters = 0, 0
		case isLetter(c):
			lower = lower || c <= 'Z'
			digits = 0
			letters++
		default:
			digits, letters = 0, 0
		}
		switch {
		case digits >= 13:
			f |= hasCard | hasPhone
		case digits >= 7:
			f |= hasPhone
		}
		if isWordByte(c) || c == '-' {
			if run++; run >= 16 {
				f |= hasLongRun
			}
		} else {
			run = 0
		}
	}
	l := s
	if lower {
		l = strings.ToLower(s)
	}
	for _, k := range keywords {
		if f&k.f != k.f && strings.Contains(l, k.word) {
			f |= k.f
		}
	}
	return f
}

// passBefore is pass as it was.
func (r *Redactor) passBefore(s string, f features) (string, []Kind) {
	var kinds []Kind
	replace := func(re *regexp.Regexp, k Kind, ok func(string) bool) {
		var b strings.Builder
		last := 0
		for _, loc := range re.FindAllStringIndex(s, -1) {
			if k == IBAN {
				// The pattern runs on into the words after an IBAN ("... 32
				// by Friday"): the IBAN is the longest start that checks.
				loc[1] = loc[0] + ibanPrefixBefore(s[loc[0]:loc[1]])
				if loc[1] == loc[0] {
					continue
				}
			}
			if k == Email {
				if loc[0] += escapeTail(s, loc[0]); s[loc[0]] == '@' {
					continue
				}
			}
			m := s[loc[0]:loc[1]]
			if ok != nil && !ok(m) || (k == Card || k == Phone) && afterIBANHead(s, loc[0]) {
				continue
			}
			if k == Phone && loc[0] > 0 && isWordByte(s[loc[0]-1]) {
				continue // digits glued to a word are part of it
			}
			b.WriteString(s[last:loc[0]])
			b.WriteString(r.placeholder(k, m))
			kinds = append(kinds, k)
			last = loc[1]
		}
		b.WriteString(s[last:])
		s = b.String()
	}
	if f&hasRecovery != 0 {
		s, kinds = r.recovery(s, kinds)
	}
	if f&hasAt != 0 {
		s, kinds = r.addresses(s, kinds) // as Redact does
		replace(emailRE, Email, nil)
	}
	if f&hasPassword != 0 {
		s, kinds = r.passwordsBefore(s, kinds)
	}
	if f&hasCode != 0 {
		var b strings.Builder
		last := 0
		for _, m := range codeRE.FindAllStringSubmatchIndex(s, -1) {
			if notSecretCodes[strings.ToLower(wordBefore(s, m[0]))] {
				continue
			}
			value := s[m[4]:m[5]]
			trimmed := strings.TrimRight(value, " \t\n-")
			b.WriteString(s[last:m[4]])
			b.WriteString(r.placeholder(Secret, strings.TrimSpace(trimmed)))
			kinds = append(kinds, Secret)
			last = m[4] + len(trimmed)
		}
		b.WriteString(s[last:])
		s = b.String()
	}
	if f&(hasPassword|hasCode) != 0 {
		s, kinds = r.named(s, kinds) // came after the scanners: its own reference
	}
	if f&(hasToken|hasLongRun) != 0 {
		replace(tokenRE, Secret, nil)
	}
	if f&hasIBAN != 0 {
		replace(ibanRE, IBAN, validIBANFolded)
	}
	if f&hasLongRun != 0 {
		replace(opaqueRE, Secret, opaque)
	}
	if f&hasCard != 0 {
		replace(cardRE, Card, luhnBefore)
	}
	if f&hasPhone != 0 {
		replace(phoneRE, Phone, phoneLikeBefore)
	}
	return s, kinds
}

// passwordsBefore is passwords as it was.
func (r *Redactor) passwordsBefore(s string, kinds []Kind) (string, []Kind) {
	s = passwordRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := passwordRE.FindStringSubmatch(m)
		body := strings.TrimRight(sub[2], `\"'`)
		value := strings.TrimLeft(body, `\"'`)
		opening, closing := body[:len(body)-len(value)], sub[2][len(body):]
		if strings.HasPrefix(value, "[") || notSecretWords[strings.ToLower(value)] || pastTalk(lastField(sub[1]), sub[2]) {
			return m
		}
		kinds = append(kinds, Secret)
		return sub[1] + opening + r.placeholder(Secret, value) + closing
	})
	return s, kinds
}

// ibanPrefixBefore is ibanPrefix as it was.
func ibanPrefixBefore(m string) int {
	for end := len(m); end >= 15; {
		if validIBANFolded(m[:end]) {
			return end
		}
		i := strings.LastIndexByte(m[:end], ' ')
		if i < 0 {
			return 0
		}
		end = i
	}
	return 0
}

// isoDate is the date phoneLike turned down.
var isoDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// digitsBefore is digits as it was.
func digitsBefore(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// luhnBefore is luhn as it was.
func luhnBefore(s string) bool {
	d := digitsBefore(s)
	if len(d) < 13 || len(d) > 19 {
		return false
	}
	sum := 0
	for i := range d {
		n := int(d[len(d)-1-i] - '0')
		if i%2 == 1 {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return sum%10 == 0
}

// phoneLikeBefore is phoneLike as it was.
func phoneLikeBefore(s string) bool {
	d := digitsBefore(s)
	if len(d) < 7 || len(d) > 15 || isoDate.MatchString(s) {
		return false
	}
	if strings.Count(s, ".") > 0 && !strings.Contains(s, " ") && strings.Count(s, ".") < 2 {
		return false // 1234.5678: a decimal
	}
	return true
}

// sameRedaction checks that Redact, over one conversation, redacts each
// of texts as it did before.
func sameRedaction(t *testing.T, texts ...string) {
	t.Helper()
	now, before := New(), New()
	for _, s := range texts {
		got, gotKinds := now.Redact(s)
		want, wantKinds := before.redactBefore(s)
		if got != want || !slices.Equal(gotKinds, wantKinds) {
			t.Errorf("Redact(%q) = %q %v, before %q %v", s, got, gotKinds, want, wantKinds)
		}
	}
}

func TestRedactAsBefore(t *testing.T) {
	sameRedaction(t, household(4000))
	sameRedaction(t, strings.SplitAfter(household(2000), " ")...)
	sameRedaction(t, corpus(t)...)
	secrets := []string{" my password is hunter2", " wifi key: 'a b'", " token = abcdefgh12", " bearer abcdefghijklmnop12",
		" sk-abcdefghijklmnop1234", " AKIAIOSFODNN7EXAMPLE", " aB3dE5gH7jK9mN1pQ3sT5vX7", " api key is x1y2z3w4v5", " secret: ", " Code is ", " pin 12 34",
		" 2026-11-27", "2026-11-27 ", "-01-01", "1234.5678", "12:30",
		" backup codes: ", "Recovery key is ", "\nabcd-efgh", " and ", "1234 5678",
		" la contraseña del wifi es ", " le code de la porte est ", " dass das WLAN-Passwort ", " ist", " Türcode: "}
	all := append(slices.Clone(pieces), append(keywordPieces, secrets...)...)
	rng := rand.New(rand.NewPCG(26, 4))
	for range 1500 {
		var b strings.Builder
		for range rng.IntN(25) + 1 {
			if rng.IntN(3) == 0 {
				b.WriteString(valueShaped(rng))
			} else {
				b.WriteString(all[rng.IntN(len(all))])
			}
		}
		sameRedaction(t, b.String(), b.String()+" again")
	}
}

func FuzzRedactAsBefore(f *testing.F) {
	f.Add(household(300))
	f.Add("my password is hunter2 and mail a@b.io, card 4111 1111 1111 1111, the [SECRET_1] token is abcdefgh12")
	f.Fuzz(func(t *testing.T, s string) { sameRedaction(t, s) })
}
