// Package redact replaces personal data and secrets with typed placeholders
// at the model boundary: what goes to a model or a log. E-mail addresses,
// phone numbers, payment card numbers (Luhn checked), IBANs (checksum
// checked), API keys and tokens, what follows "my password is", "the
// locker code is", "PIN", "CVV" and the like (in German, Spanish and
// French too: "das WLAN-Passwort ist", "el código de la puerta es", "le
// mot de passe du wifi est"), recovery and backup codes,
// and the values of credentials in a tool's JSON or config
// ("wifi_password": "…", escaped JSON inside JSON too, API_KEY=…),
// cookies' values and session ids, and the passwords of addresses
// ("http://admin:…@host:11434", any scheme). The
// placeholders keep the sentence readable, so the model still gives a
// sensible answer: "my email is [EMAIL_1]". The Redactor remembers what
// each placeholder stands for, so local tools get the real values back
// (Restore).
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

// Speakable is s as the box says it aloud: the placeholders of revealed
// values give their values back, and every other placeholder, this
// Redactor's or not, is said as hidden ("a secret" in the reply's
// language) rather than read out as brackets and an underscore.
func (r *Redactor) Speakable(s, hidden string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return placeholderRE.ReplaceAllStringFunc(s, func(p string) string {
		if v, ok := r.values[p]; ok && r.revealable[p] {
			return v
		}
		return hidden
	})
}

// tokenPatterns are the tokens with a known shape. Each starts at a word
// boundary.
var tokenPatterns = []string{
	`\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{16,}\b`,                                  // OpenAI-style keys
	`\bgh[pousr]_[A-Za-z0-9]{30,}\b`,                                        // GitHub tokens
	`\bxox[abprs]-[A-Za-z0-9\-]{10,}\b`,                                     // Slack tokens
	`\bAKIA[0-9A-Z]{16}\b`,                                                  // AWS access keys
	`\bAIza[0-9A-Za-z_\-]{35}\b`,                                            // Google API keys
	`\beyJ[A-Za-z0-9_\-]+\.eyJ[A-Za-z0-9_\-]+\.[A-Za-z0-9_\-]+\b`,           // JWTs
	`(?i)\bbearer\s+[A-Za-z0-9._\-]{16,}`,                                   // bearer tokens
	`(?i)\b(?:api[_ ]?key|token|secret)\s*(?:is|=|:)\s*[A-Za-z0-9._\-]{8,}`, // "api key is ..."
}

// anchoredTokens compiles tokenAnchored.
func anchoredTokens() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(tokenPatterns))
	for i, p := range tokenPatterns {
		out[i] = anchored(p)
	}
	return out
}

// anchored compiles a pattern that starts with a word boundary anchored,
// without it: it is tried only where its caller found a boundary.
func anchored(pattern string) *regexp.Regexp {
	flags, rest, _ := strings.Cut(pattern, `\b`)
	return regexp.MustCompile(`^` + flags + rest)
}

// passwordPattern reads what follows "my password is", "the pin is",
// "passcode:" and the like; quoted, also with its quotes escaped inside a
// JSON string.
const passwordPattern = `(?i)\b((?:pass(?:word|code|phrase)|pin(?: code| number)?|wi-?fi (?:password|key))\s*(?:(?:is|was)\b|=|:)\s*)(\\{1,7}"[^"\\]+\\{1,7}"|"[^"]+"|'[^']+'|[^\s"',\]\})]*[^\s"',\]\}).!?;:])`

var (
	// E-mail addresses, phone numbers, card numbers, IBANs and codes
	// ("my locker code is 7351") are found by the scanners of scan.go.
	// tokenAnchored are tokenPatterns anchored, without their first \b
	// (tokenAt checks it): each is tried only where it can start.
	tokenAnchored = anchoredTokens()
	// passwordAnchored is passwordPattern anchored, tried where a password
	// can start (nextPassword).
	passwordAnchored = anchored(passwordPattern)
	// notSecretWords follow "password is" in talk about a password, not
	// in one: "the password is wrong", "my pin is a secret".
	notSecretWords = map[string]bool{"a": true, "an": true, "the": true, "my": true, "your": true, "this": true, "that": true,
		"what": true, "wrong": true, "right": true, "correct": true, "incorrect": true, "secret": true, "hidden": true,
		"set": true, "changed": true, "not": true, "too": true, "same": true, "different": true, "expired": true, "on": true, "in": true}
	// notSecretCodes are codes that are not secrets.
	notSecretCodes = map[string]bool{"zip": true, "postal": true, "post": true, "postcode": true, "area": true, "country": true,
		"dress": true, "source": true, "error": true, "status": true, "colour": true, "color": true, "promo": true,
		"discount": true, "coupon": true, "product": true, "tracking": true, "airport": true, "bar": true, "qr": true}
)

// Redact returns s with sensitive values replaced by placeholders, and the
// kinds of what it replaced. Redacting its result again changes nothing.
//
// Its cost is linear in the length of s, and small for prose: s is cut
// into sentences, and a sentence is searched only for what it could hold
// (no digits, no phone number; no "@", no address).
func (r *Redactor) Redact(s string) (string, []Kind) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var kinds []Kind
	s, kinds = r.pairs(s, kinds) // across sentences: a value may hold a full stop
	var b strings.Builder
	b.Grow(len(s))
	shorter := false // a sentence's placeholders made it shorter
	for len(s) > 0 {
		n := sentence(s)
		f := look(s[:n])
		if f&hasRecovery != 0 {
			if m := recoveryEnd(s, n); m > n { // a list of codes on the lines after its heading
				n, f = m, look(s[:m])
			}
		}
		var out string
		out, kinds = r.sentence(s[:n], f, kinds)
		shorter = shorter || len(out) < n
		b.WriteString(out)
		s = s[n:]
	}
	out := b.String()
	if !shorter || !mentionsValue(out) {
		return out, kinds
	}
	// Placeholders shorter than what they hide may bring a named value's
	// sibling within the reach of pairs (maxObject): read them again, so
	// that the value is hidden now and a second Redact changes nothing.
	return r.pairs(out, kinds)
}

// mentionsValue reports whether s holds "val" in any case: the start of
// every member whose value a sibling names (valueMembers).
func mentionsValue(s string) bool {
	for i := strings.IndexAny(s, "vV"); i >= 0 && i+3 <= len(s); {
		if equalFoldASCII(s[i:i+3], "val") {
			return true
		}
		j := strings.IndexAny(s[i+1:], "vV")
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}

// sentence is the length of the first sentence of s: up to a line's end,
// or a full stop, exclamation or question mark after a letter and before
// a space. A value never holds one.
func sentence(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			return i + 1
		case '.', '!', '?':
			if i > 0 && isLetter(s[i-1]) && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == '\n') {
				return i + 1
			}
		}
	}
	return len(s)
}

// sentence redacts one sentence, which has f (look), adding the kinds of
// what it replaced to kinds. One value's placeholder can bring the next
// into view (digits glued to an address, an IBAN-shaped run across a
// phone number): it redacts to a fixed point.
func (r *Redactor) sentence(s string, f features, kinds []Kind) (string, []Kind) {
	for range 8 {
		if f == 0 {
			break
		}
		var out string
		out, kinds = r.pass(s, f, kinds)
		if out == s {
			break
		}
		s = out
		f = look(s)
	}
	return s, kinds
}

// features are what a sentence could hold a value by.
type features uint16

const (
	hasIBAN     features = 1 << iota // two letters and two digits
	hasPhone                         // seven digits or more, in groups
	hasCard                          // thirteen or more
	hasAt                            // e-mail
	hasPassword                      // "password", "pin", "wifi", "Kennwort", "contraseña" said
	hasCode                          // "code", "combination", "cvv", "código" said
	hasToken                         // "key", "token", "secret", "bearer" said
	hasLongRun                       // a key or token: 16 letters and digits in a row
	hasRecovery                      // "recovery", "backup" said
)

// keywords start the phrasings the password, code and token patterns
// read (lower case).
var keywords = []struct {
	word string
	f    features
}{
	{"pass", hasPassword}, {"pin", hasPassword | hasCode}, {"wifi", hasPassword}, {"wi-fi", hasPassword},
	{"code", hasCode}, {"combination", hasCode}, {"combo", hasCode}, {"cvv", hasCode}, {"cvc", hasCode},
	{"key", hasToken}, {"token", hasToken}, {"secret", hasToken}, {"bearer", hasToken},
	{"recovery", hasRecovery}, {"backup", hasRecovery},
	// German, Spanish and French names (named.go): "Kennwort",
	// "contraseña", "clave", "WLAN-Schlüssel", "Geheimzahl"; "código"
	// by its end, "combinación", "combinaison" and "Kombination".
	{"kennwort", hasPassword}, {"contrase", hasPassword}, {"clave", hasPassword}, {"wlan", hasPassword},
	{"geheimzahl", hasCode}, {"digo", hasCode}, {"combina", hasCode}, {"kombination", hasCode},
}

// keywordsBy are the keywords by their first letter, in either case.
var keywordsBy = func() (by [256][]int) {
	for i, k := range keywords {
		by[k.word[0]] = append(by[k.word[0]], i)
		by[k.word[0]&^0x20] = append(by[k.word[0]&^0x20], i)
	}
	return by
}()

// keywordPairs has, for a keyword's first letter in either case, a bit
// for each second letter (0 for a): a letter pair that starts no keyword
// is passed over with one look-up.
var keywordPairs = func() (pairs [256]uint32) {
	for _, k := range keywords {
		bit := uint32(1) << (k.word[1] - 'a')
		pairs[k.word[0]] |= bit
		pairs[k.word[0]&^0x20] |= bit
	}
	return pairs
}()

// look says what s could hold, cheaply; placeholders already handed out
// hold nothing more.
func look(s string) features {
	var f features
	run := 0     // letters, digits, _ and - in a row
	digits := 0  // digits in a row, spaces, dashes, dots and brackets between
	letters := 0 // letters in a row, for an IBAN's country
	lower, ascii := false, true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case isLetter(c):
			lower = lower || c <= 'Z'
			digits = 0
			letters++
			run++
			// A next byte that is not a letter shifts by 26 or more:
			// past every bit.
			if i+1 < len(s) && keywordPairs[c]>>((s[i+1]|0x20)-'a')&1 != 0 {
				f |= keywordAt(s, i)
			}
		case c == ' ':
			letters, run = 0, 0
		case isDigit(c):
			if digits++; digits >= 13 {
				f |= hasCard | hasPhone
			} else if digits >= 7 {
				f |= hasPhone
			}
			if letters >= 2 && i+1 < len(s) && isDigit(s[i+1]) {
				f |= hasIBAN // two letters, then two digits
			}
			letters = 0
			run++
		case c == '-':
			letters = 0
			run++
		case c == '.' || c == '(' || c == ')' || c == '+':
			letters, run = 0, 0
		case c == '@':
			f |= hasAt
			digits, letters, run = 0, 0, 0
		case c == '[' && placeholderAt(s, i) > 0:
			i += placeholderAt(s, i) - 1
			run, digits, letters = 0, 0, 0
		default:
			ascii = ascii && c < 0x80
			digits, letters = 0, 0
			if c == '_' {
				run++
			} else {
				run = 0
			}
		}
		if run >= 16 {
			f |= hasLongRun
		}
	}
	if !ascii && lower && foldsToASCII(s) {
		f |= foldedKeywords(s, lower)
	}
	return f
}

// foldsToASCII reports whether s holds one of the two runes that
// Unicode lower-casing turns into an ASCII letter: the Kelvin sign (k)
// and the dotted capital I (i). Without one, and without an ASCII
// capital to lower, foldedKeywords finds no keyword that the ASCII scan
// of look has not found.
func foldsToASCII(s string) bool {
	return strings.Contains(s, "\u212a") || strings.Contains(s, "\u0130")
}

// keywordAt is what the keyword starting at s[i] (an ASCII letter) says
// s could hold, in any case.
func keywordAt(s string, i int) features {
	var f features
	for _, k := range keywordsBy[s[i]] {
		if w := keywords[k].word; len(s)-i >= len(w) && equalFoldASCII(s[i:i+len(w)], w) {
			f |= keywords[k].f
		}
	}
	return f
}

// equalFoldASCII reports whether s is word (lower case) but for the case of
// its ASCII letters.
func equalFoldASCII(s, word string) bool {
	for j := range len(word) {
		if c := s[j]; c != word[j] && !(isLetter(c) && c|0x20 == word[j]) {
			return false
		}
	}
	return true
}

// foldedKeywords finds the keywords in a sentence that is not all ASCII
// as Unicode lower-casing does (the Kelvin sign is a k), when s has an
// ASCII capital (lower), outside the placeholders.
func foldedKeywords(s string, lower bool) features {
	b := []byte(s)
	for i := 0; i < len(b); i++ {
		if n := placeholderAt(s, i); n > 0 {
			copy(b[i:i+n], strings.Repeat(" ", n))
			i += n - 1
		}
	}
	l := string(b)
	if lower {
		l = strings.ToLower(l)
	}
	var f features
	for _, k := range keywords {
		if strings.Contains(l, k.word) {
			f |= k.f
		}
	}
	return f
}

// placeholderNames are the kinds a placeholder names.
var placeholderNames = []string{"EMAIL", "PHONE", "CARD", "IBAN", "SECRET"}

// placeholderAt is the length of the placeholder ("[PHONE_1]") at s[i] if
// it ends within 16 bytes, else 0.
func placeholderAt(s string, i int) int {
	w := s[i:min(len(s), i+16)]
	if len(w) == 0 || w[0] != '[' {
		return 0
	}
	for _, name := range placeholderNames {
		j := 2 + len(name)
		if len(w) < j || w[1:j-1] != name || w[j-1] != '_' {
			continue
		}
		n := digitRun(w, j, len(w))
		if n > 0 && j+n < len(w) && w[j+n] == ']' {
			return j + n + 1
		}
	}
	return 0
}

// pass is one round of Redact over a sentence that has f, adding the
// kinds of what it replaced to kinds.
func (r *Redactor) pass(s string, f features, kinds []Kind) (string, []Kind) {
	replace := func(at finder, k Kind, ok func(string) bool) {
		var out string
		out, kinds = r.replace(s, at, k, ok, kinds)
		s = out
	}
	if f&hasRecovery != 0 {
		s, kinds = r.recovery(s, kinds)
	}
	if f&hasAt != 0 {
		s, kinds = r.addresses(s, kinds) // before e-mail: "pw@host.lan" of an address is none
		replace(emailAt, Email, nil)
	}
	if f&hasPassword != 0 {
		s, kinds = r.passwords(s, kinds)
	}
	if f&hasCode != 0 {
		s, kinds = r.codes(s, kinds)
	}
	if f&(hasPassword|hasCode) != 0 {
		s, kinds = r.named(s, kinds)
	}
	if f&(hasToken|hasLongRun) != 0 {
		replace(tokenAt, Secret, nil)
	}
	if f&hasIBAN != 0 {
		replace(ibanAt, IBAN, validIBAN)
	}
	if f&hasLongRun != 0 {
		replace(opaqueAt, Secret, opaque)
	}
	if f&hasCard != 0 {
		replace(cardAt, Card, luhn)
	}
	if f&hasPhone != 0 {
		replace(phoneAt, Phone, phoneLike)
	}
	return s, kinds
}

// passwords puts placeholders for what follows "my password is" and the
// like in s, and adds their kinds to kinds.
func (r *Redactor) passwords(s string, kinds []Kind) (string, []Kind) {
	var b strings.Builder
	last := 0
	for i := 0; ; {
		loc := nextPassword(s, i)
		if loc == nil {
			break
		}
		i = loc[1]
		// The quotes, escaped or not, stay around the placeholder: a
		// note inside a JSON string stays JSON.
		quoted := s[loc[4]:loc[5]]
		body := strings.TrimRight(quoted, `\"'`)
		value := strings.TrimLeft(body, `\"'`)
		if strings.HasPrefix(value, "[") || notSecretWords[strings.ToLower(value)] || pastTalk(lastField(s[loc[2]:loc[3]]), quoted) { // a placeholder, or talk about it
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		start := loc[4] + len(body) - len(value) // after the opening quotes
		b.WriteString(s[last:start])
		b.WriteString(r.placeholder(Secret, value))
		kinds = append(kinds, Secret)
		last = start + len(value)
	}
	if b.Len() == 0 {
		return s, kinds
	}
	b.WriteString(s[last:])
	return b.String(), kinds
}

// lastField is the last word of s, lower case: the verb of a password
// pattern's "password was ".
func lastField(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(f[len(f)-1])
}

// nextPassword finds the first password at or after s[from] as regexp's
// FindAllStringSubmatchIndex finds passwordPattern's: its submatches'
// indices, or nil. The pattern is tried, anchored, only where a word
// starts with "p" or "w" (in either case; no other rune folds to them).
func nextPassword(s string, from int) []int {
	for i := from; i < len(s); i++ {
		if c := s[i] | 0x20; c != 'p' && c != 'w' || !boundary(s, i) {
			continue
		}
		if loc := passwordAnchored.FindStringSubmatchIndex(s[i:]); loc != nil {
			for k := range loc {
				if loc[k] >= 0 {
					loc[k] += i
				}
			}
			return loc
		}
	}
	return nil
}

// replace puts placeholders of kind k for the matches in s that ok
// accepts (nil: all), and adds their kinds to kinds. With nothing
// replaced it returns s itself. Matches are found as regexp's FindAll
// finds them: each search starts where the last match ended, whether or
// not it was replaced.
func (r *Redactor) replace(s string, at finder, k Kind, ok func(string) bool, kinds []Kind) (string, []Kind) {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); {
		end, next := at(s, i)
		if end < 0 {
			i = next
			continue
		}
		start := i
		i = end
		if k == IBAN {
			// The pattern runs on into the words after an IBAN ("... 32
			// by Friday"): the IBAN is the longest start that checks.
			end = start + ibanPrefix(s[start:end])
			if end == start {
				continue
			}
		}
		if k == Email {
			if start += escapeTail(s, start); s[start] == '@' {
				continue // only the escape before the "@"
			}
		}
		m := s[start:end]
		if ok != nil && !ok(m) || (k == Card || k == Phone) && afterIBANHead(s, start) {
			continue
		}
		if k == Phone && start > 0 && isWordByte(s[start-1]) {
			continue // digits glued to a word are part of it
		}
		if b.Len() == 0 {
			b.Grow(len(s))
		}
		b.WriteString(s[last:start])
		b.WriteString(r.placeholder(k, m))
		kinds = append(kinds, k)
		last = end
	}
	if b.Len() == 0 {
		return s, kinds
	}
	b.WriteString(s[last:])
	return b.String(), kinds
}

// codes replaces the values of the codes in s that are secrets.
func (r *Redactor) codes(s string, kinds []Kind) (string, []Kind) {
	var b strings.Builder
	last := 0
	for i := 0; ; {
		start, value, end := nextCode(s, i)
		if start < 0 {
			break
		}
		i = end
		if notSecretCodes[strings.ToLower(wordBefore(s, start))] {
			continue
		}
		trimmed := strings.TrimRight(s[value:end], " \t\n-")
		b.WriteString(s[last:value])
		b.WriteString(r.placeholder(Secret, strings.TrimSpace(trimmed)))
		kinds = append(kinds, Secret)
		last = value + len(trimmed)
	}
	if b.Len() == 0 {
		return s, kinds
	}
	b.WriteString(s[last:])
	return b.String(), kinds
}

// afterIBANHead reports whether s[:i] ends in the start of an IBAN-shaped
// string (two letters and two digits, a space maybe, after a word
// boundary), whose digits are not a card or a phone even when its
// checksum fails. It looks at a few bytes only, so a long text costs no
// more per match.
func afterIBANHead(s string, i int) bool {
	if i > 0 && s[i-1] == ' ' {
		i--
	}
	if i < 4 || !isDigit(s[i-1]) || !isDigit(s[i-2]) || !isLetter(s[i-3]) || !isLetter(s[i-4]) {
		return false
	}
	return i == 4 || !isWordByte(s[i-5])
}

func isDigit(b byte) bool  { return b >= '0' && b <= '9' }
func isLetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }

// wordBefore is the word before s[i], across spaces: "zip" of "zip code".
func wordBefore(s string, i int) string {
	j := i
	for j > 0 && (s[j-1] == ' ' || s[j-1] == '\t') {
		j--
	}
	k := j
	for k > 0 && isWordByte(s[k-1]) {
		k--
	}
	return s[k:j]
}

// countDigits is the number of digits in s.
func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			n++
		}
	}
	return n
}

// luhn checks a card number's check digit.
func luhn(s string) bool {
	if n := countDigits(s); n < 13 || n > 19 {
		return false
	}
	sum, nth := 0, 0 // nth: of the digits, from the right
	for i := len(s) - 1; i >= 0; i-- {
		if !isDigit(s[i]) {
			continue
		}
		n := int(s[i] - '0')
		if nth%2 == 1 {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
		nth++
	}
	return sum%10 == 0
}

// ibanPrefix is the length of the longest start of m, ending at the end
// of one of its groups, that is an IBAN with a valid checksum; 0 for none.
func ibanPrefix(m string) int {
	for end := len(m); end >= 15; {
		if validIBAN(m[:end]) {
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

// validIBAN checks an IBAN's mod-97 checksum.
func validIBAN(s string) bool {
	if valid, judged := validASCIIIBAN(s); judged {
		return valid
	}
	return validIBANFolded(s)
}

// validASCIIIBAN checks the mod-97 checksum of an IBAN written in ASCII,
// a digit at a time. It does not judge text that is not all ASCII
// (Unicode upper-casing turns ſ into an S): validIBANFolded does.
func validASCIIIBAN(s string) (valid, judged bool) {
	if hasNonASCII(s) {
		return false, false
	}
	if n := len(s) - strings.Count(s, " "); n < 15 || n > 34 {
		return false, true
	}
	// The first four characters (country and check digits) go last.
	sum, seen, head := 0, 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			continue
		}
		ok := true
		if seen < 4 {
			seen, head = seen+1, i+1
		} else if sum, ok = ibanDigit(sum, s[i]); !ok {
			return false, true
		}
	}
	for i := range head {
		if s[i] == ' ' {
			continue
		}
		var ok bool
		if sum, ok = ibanDigit(sum, s[i]); !ok {
			return false, true
		}
	}
	return sum == 1, true
}

// ibanDigit adds c to a running mod-97 remainder: a digit as itself, a
// letter as 10 (A) to 35 (Z); false for anything else.
func ibanDigit(sum int, c byte) (int, bool) {
	switch {
	case isDigit(c):
		return (sum*10 + int(c-'0')) % 97, true
	case isLetter(c):
		return (sum*100 + int(c|0x20-'a') + 10) % 97, true
	}
	return sum, false
}

// hasNonASCII reports a byte of s outside ASCII.
func hasNonASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return true
		}
	}
	return false
}

// validIBANFolded checks an IBAN's mod-97 checksum after Unicode
// upper-casing, with big numbers: the slow path for text not all ASCII.
func validIBANFolded(s string) bool {
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
	if n := countDigits(s); n < 7 || n > 15 || isISODate(s) {
		return false
	}
	if strings.Count(s, ".") > 0 && !strings.Contains(s, " ") && strings.Count(s, ".") < 2 {
		return false // 1234.5678: a decimal
	}
	return true
}

// isISODate reports whether s is a date written 2026-11-27.
func isISODate(s string) bool {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for i := range len(s) {
		if i != 4 && i != 7 && !isDigit(s[i]) {
			return false
		}
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
