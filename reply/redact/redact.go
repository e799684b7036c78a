// Package redact replaces personal data and secrets in what the user says
// with typed placeholders before anything reaches a model, a log or the
// store: e-mail addresses, phone numbers, payment card numbers (Luhn
// checked), IBANs (checksum checked), API keys and tokens, and what follows
// "my password is". The placeholders keep the sentence readable, so the
// model still gives a sensible answer: "my email is [EMAIL_1]".
package redact

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// Kind is the type of a redacted value.
type Kind string

// The kinds of redacted values.
const (
	Email  Kind = "EMAIL"
	Phone  Kind = "PHONE"
	Card   Kind = "CARD"
	IBAN   Kind = "IBAN"
	Secret Kind = "SECRET"
)

// Redactor numbers placeholders within one conversation, so the same value
// gets the same placeholder each time it is said. It is safe for concurrent
// use; Reset starts afresh.
type Redactor struct {
	mu    sync.Mutex
	seen  map[string]string // value → placeholder
	count map[Kind]int
}

// New returns an empty Redactor.
func New() *Redactor { return &Redactor{seen: map[string]string{}, count: map[Kind]int{}} }

// Reset forgets the placeholders handed out, as a conversation ends.
func (r *Redactor) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = map[string]string{}
	r.count = map[Kind]int{}
}

func (r *Redactor) placeholder(k Kind, value string) string {
	if p, ok := r.seen[value]; ok {
		return p
	}
	r.count[k]++
	p := fmt.Sprintf("[%s_%d]", k, r.count[k])
	r.seen[value] = p
	return p
}

var (
	emailRE = regexp.MustCompile(`(?i)\b[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}\b`)
	// Phone numbers: digit groups with separators or a leading +, 7 to 15
	// digits in all. Plain runs of digits are left to the card check.
	phoneRE = regexp.MustCompile(`(?:\+\d{1,3}[\s.\-]?)?(?:\(\d{1,5}\)[\s.\-]?)?\d{2,8}(?:[\s.\-]\d{2,8}){1,4}\b|\+\d{7,15}\b`)
	isoDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	// ibanHead is the start of an IBAN-shaped string, whose digits are not
	// a card or a phone even when its checksum fails.
	ibanHead = regexp.MustCompile(`(?i)\b[a-z]{2}\d{2}\s?$`)
	// Card numbers: 13 to 19 digits, optionally in groups.
	cardRE = regexp.MustCompile(`\b\d(?:[ \-]?\d){12,18}\b`)
	// IBANs: country code, check digits, then up to 30 letters and digits,
	// optionally in groups of four.
	ibanRE = regexp.MustCompile(`(?i)\b[a-z]{2}\d{2}(?:[ ]?[a-z0-9]){11,30}\b`)
	// Tokens with a known shape.
	tokenREs = []*regexp.Regexp{
		regexp.MustCompile(`\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}\b`),                                  // OpenAI-style keys
		regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{30,}\b`),                                        // GitHub tokens
		regexp.MustCompile(`\bxox[abprs]-[A-Za-z0-9\-]{10,}\b`),                                     // Slack tokens
		regexp.MustCompile(`\bAKIA[0-9A-Z]{16}\b`),                                                  // AWS access keys
		regexp.MustCompile(`\bAIza[0-9A-Za-z_\-]{35}\b`),                                            // Google API keys
		regexp.MustCompile(`\beyJ[A-Za-z0-9_\-]+\.eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\b`),           // JWTs
		regexp.MustCompile(`(?i)\bbearer\s+[A-Za-z0-9._\-]{16,}`),                                   // bearer tokens
		regexp.MustCompile(`(?i)\b(?:api[_ ]?key|token|secret)\s*(?:is|=|:)\s*[A-Za-z0-9._\-]{8,}`), // "api key is ..."
	}
	// What follows "my password is", "the pin is", "passcode:" and the like.
	passwordRE = regexp.MustCompile(`(?i)\b((?:pass(?:word|code|phrase)|pin(?: code| number)?|wi-?fi (?:password|key))\s*(?:is|=|:|was)\s*)("[^"]+"|'[^']+'|\S+)`)
	// A long mixed run of letters and digits that reads like a key.
	opaqueRE = regexp.MustCompile(`\b[A-Za-z0-9_\-]{24,}\b`)
)

// Redact returns s with sensitive values replaced by placeholders, and the
// kinds of what it replaced.
func (r *Redactor) Redact(s string) (string, []Kind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var kinds []Kind
	replace := func(re *regexp.Regexp, k Kind, ok func(string) bool) {
		var b strings.Builder
		last := 0
		for _, loc := range re.FindAllStringIndex(s, -1) {
			m := s[loc[0]:loc[1]]
			if ok != nil && !ok(m) || (k == Card || k == Phone) && ibanHead.MatchString(s[:loc[0]]) {
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
	replace(emailRE, Email, nil)
	s = passwordRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := passwordRE.FindStringSubmatch(m)
		if strings.HasPrefix(sub[2], "[") { // already a placeholder
			return m
		}
		kinds = append(kinds, Secret)
		return sub[1] + r.placeholder(Secret, strings.Trim(sub[2], `"'`))
	})
	for _, re := range tokenREs {
		replace(re, Secret, nil)
	}
	replace(ibanRE, IBAN, validIBAN)
	replace(opaqueRE, Secret, opaque)
	replace(cardRE, Card, luhn)
	replace(phoneRE, Phone, phoneLike)
	return s, kinds
}

// digits returns the digits of s.
func digits(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// luhn checks a card number's check digit.
func luhn(s string) bool {
	d := digits(s)
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

// validIBAN checks an IBAN's mod-97 checksum.
func validIBAN(s string) bool {
	s = strings.ToUpper(strings.ReplaceAll(s, " ", ""))
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	rearranged := s[4:] + s[:4]
	var num strings.Builder
	for _, r := range rearranged {
		switch {
		case r >= '0' && r <= '9':
			num.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			fmt.Fprintf(&num, "%d", r-'A'+10)
		default:
			return false
		}
	}
	n, ok := new(big.Int).SetString(num.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// phoneLike keeps phone candidates that are not quantities said in a
// sentence: 7 to 15 digits, not a time, not a decimal, not a date.
func phoneLike(s string) bool {
	d := digits(s)
	if len(d) < 7 || len(d) > 15 || isoDate.MatchString(s) {
		return false
	}
	if strings.Count(s, ".") > 0 && !strings.Contains(s, " ") && strings.Count(s, ".") < 2 {
		return false // 1234.5678: a decimal
	}
	return true
}

// opaque reports a run that mixes letters and digits like a generated key.
func opaque(s string) bool {
	var letters, nums, upper int
	for _, r := range s {
		switch {
		case unicode.IsDigit(r):
			nums++
		case unicode.IsLetter(r):
			letters++
			if unicode.IsUpper(r) {
				upper++
			}
		}
	}
	return nums >= 4 && letters >= 4 && (upper > 0 || nums >= 8)
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}
