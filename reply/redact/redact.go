// Package redact replaces personal data and secrets with typed placeholders
// at the model boundary: what goes to a model or a log. E-mail addresses,
// phone numbers, payment card numbers (Luhn checked), IBANs (checksum
// checked), API keys and tokens, and what follows "my password is", "the
// locker code is", "PIN", "CVV" and the like. The placeholders keep the
// sentence readable, so the model still gives a sensible answer: "my email
// is [EMAIL_1]". The Redactor remembers what each placeholder stands for,
// so local tools get the real values back (Restore).
package redact

import (
	"fmt"
	"maps"
	"math/big"
	"regexp"
	"slices"
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
	mu         sync.Mutex
	seen       map[string]string // value → placeholder
	values     map[string]string // placeholder → value
	revealable map[string]bool   // placeholders that may be said aloud
	count      map[Kind]int
}

// New returns an empty Redactor.
func New() *Redactor {
	r := &Redactor{}
	r.Reset()
	return r
}

// Reset forgets the placeholders handed out, as a conversation ends.
func (r *Redactor) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen, r.values, r.revealable = map[string]string{}, map[string]string{}, map[string]bool{}
	r.count = map[Kind]int{}
}

func (r *Redactor) placeholder(k Kind, value string) string {
	if p, ok := r.seen[value]; ok {
		return p
	}
	r.count[k]++
	p := fmt.Sprintf("[%s_%d]", k, r.count[k])
	r.seen[value] = p
	r.values[p] = value
	return p
}

var placeholderRE = regexp.MustCompile(`\[(?:EMAIL|PHONE|CARD|IBAN|SECRET)_\d+\]`)

// Restore puts back the values of the placeholders this Redactor handed
// out: what a local tool receives instead of what the model wrote.
func (r *Redactor) Restore(s string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return placeholderRE.ReplaceAllStringFunc(s, func(p string) string {
		if v, ok := r.values[p]; ok {
			return v
		}
		return p
	})
}

// RestoreArgs is Restore for every string of a tool call's arguments.
func (r *Redactor) RestoreArgs(args map[string]any) map[string]any {
	if len(args) == 0 {
		return args
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		if s, ok := v.(string); ok {
			v = r.Restore(s)
		}
		out[k] = v
	}
	return out
}

// Placeholders are the placeholders of this Redactor in the string
// arguments of a tool call, each once, in order.
func (r *Redactor) Placeholders(args map[string]any) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, k := range slices.Sorted(maps.Keys(args)) {
		s, ok := args[k].(string)
		if !ok {
			continue
		}
		for _, p := range placeholderRE.FindAllString(s, -1) {
			if _, ours := r.values[p]; ours && !slices.Contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// Reveal lets the placeholders of the values in s (redacted by this
// Redactor) be said aloud by Speakable: a secret the user explicitly asked
// for.
func (r *Redactor) Reveal(values ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range values {
		if p, ok := r.seen[v]; ok {
			r.revealable[p] = true
		}
	}
}

// Speakable puts back the values of revealed placeholders only, for what
// the box says aloud; other placeholders are said as "a secret" rather
// than read out as brackets.
func (r *Redactor) Speakable(s string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return placeholderRE.ReplaceAllStringFunc(s, func(p string) string {
		if v, ok := r.values[p]; ok && r.revealable[p] {
			return v
		}
		return p
	})
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
	passwordRE = regexp.MustCompile(`(?i)\b((?:pass(?:word|code|phrase)|pin(?: code| number)?|wi-?fi (?:password|key))\s*(?:is|=|:|was)\s*)("[^"]+"|'[^']+'|[^\s"',\]\})]*[^\s"',\]\}).!?;:])`)
	// Codes of any kind: "my locker code is 7351", "the alarm code's 4 4 1 9",
	// "gate combination: 12-34-56", "CVV 123", "the code is four two one".
	codeRE = regexp.MustCompile(`(?i)\b((?:(\w+)\s+)?(?:code|combination|combo|cvv2?|cvc|security code|pin)\s*(?:is|=|:|was|'s|number is)?\s*)((?:\d[\d\s\-]{1,14}\d|\d{3,8}|(?:(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)[\s\-]*){3,12}))`)
	// notSecretWords follow "password is" in talk about a password, not
	// in one: "the password is wrong", "my pin is a secret".
	notSecretWords = map[string]bool{"a": true, "an": true, "the": true, "my": true, "your": true, "this": true, "that": true,
		"what": true, "wrong": true, "right": true, "correct": true, "incorrect": true, "secret": true, "hidden": true,
		"set": true, "changed": true, "not": true, "too": true, "same": true, "different": true, "expired": true, "on": true, "in": true}
	// notSecretCodes are codes that are not secrets.
	notSecretCodes = map[string]bool{"zip": true, "postal": true, "post": true, "postcode": true, "area": true, "country": true,
		"dress": true, "source": true, "error": true, "status": true, "colour": true, "color": true, "promo": true,
		"discount": true, "coupon": true, "product": true, "tracking": true, "airport": true, "bar": true, "qr": true}
	// A long mixed run of letters and digits that reads like a key.
	opaqueRE = regexp.MustCompile(`\b[A-Za-z0-9_\-]{24,}\b`)
)

// Redact returns s with sensitive values replaced by placeholders, and the
// kinds of what it replaced. Redacting its result again changes nothing.
func (r *Redactor) Redact(s string) (string, []Kind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var kinds []Kind
	// One value's placeholder can bring the next into view (digits glued
	// to an address, an IBAN-shaped run across a phone number): redact to
	// a fixed point.
	for range 8 {
		out, k := r.pass(s)
		kinds = append(kinds, k...)
		if out == s {
			break
		}
		s = out
	}
	return s, kinds
}

// pass is one round of Redact.
func (r *Redactor) pass(s string) (string, []Kind) {
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
		if strings.HasPrefix(sub[2], "[") || notSecretWords[strings.ToLower(sub[2])] { // a placeholder, or talk about it
			return m
		}
		kinds = append(kinds, Secret)
		return sub[1] + r.placeholder(Secret, strings.Trim(sub[2], `"'`))
	})
	s = codeRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := codeRE.FindStringSubmatch(m)
		if notSecretCodes[strings.ToLower(sub[2])] {
			return m
		}
		value := strings.TrimSpace(sub[3])
		kinds = append(kinds, Secret)
		return sub[1] + r.placeholder(Secret, value) + m[len(sub[1])+len(sub[3]):]
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
