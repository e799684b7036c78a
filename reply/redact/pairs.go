package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Credentials written as key-value pairs: what a tool's result holds when
// an MCP server, a router or Home Assistant answers in JSON or in a
// config's lines. The password patterns read sentences ("the password is
// …"); these read keys:
//
//	{"ssid": "Garden", "wifi_password": "sunflower-42", "pin": 4821}
//	{"result": "{\"apiKey\": \"k9w2-mz7q\"}"}    a JSON string inside JSON
//	{'passphrase': 'sunflower-42'}                a Python dict printed
//	WIFI_PASSWORD=sunflower-42, access_token: k9w2-mz7q
//
// A credential can also be named by a member's value, in the object that
// holds it as "value" or "val" (a settings list, a form's fields, a
// password manager's item):
//
//	[{"name": "ssid", "value": "Garden"}, {"name": "Wi-Fi password", "value": "sunflower-42"}]
//	{"type": "password", "value": "sunflower-42"}
//
// A "value" is a credential's when a "name", "key", "field" or "label"
// member of its object, before or after it, is a string that a key of the
// same words would be: "password", "API Key", "Front door code",
// "tokens", and an HTTP client's headers ("x-api-key", "Authorization",
// whose bare value on a header's line is hidden with its scheme:
// "Authorization: Basic dXNlcjpwYXNz", or when it is shaped like a token,
// but not a word of prose: "Authorization: pending", nor in JSON:
// "Authorization": "pending"). A "type" is a
// schema's word, and most say nothing secret
// ("light", "text", "pass"): it names a credential only as a key in the
// singular would, not by "pass" alone, or says the value is concealed
// (1Password's "CONCEALED", AWS's "SecureString"). A "content" is not a
// field's value but a document's or a message's body, whose secrets the
// sentence patterns find: a "type" of "token" in a lexer's output does
// not hide it.
//
// A key is a credential by its words, split at _, -, . and camelCase: its
// last word names one ("password", "passphrase", "secret", "token", "psk",
// "pin"), or its last two do ("api key", "wifi key", "pin code"). Words
// that only describe one ("password_hint", "token_type", "pin_state") do
// not. A key takes a string or a number, or a list of them. Under a key
// in the plural ("passwords", "api_keys", "tokens") a number, or a
// string that is one, is a count or an id and stays ("tokens": 42,
// "max_tokens": "512"), but for codes, whose numbers are the codes
// ("door_codes": [2580]). Under a key that names a token or tokens, a
// value in angle or square brackets is a tokenizer's special token, not
// a credential, and stays ("eos_token": "</s>", "sep_token": "[SEP]").
// Docker's config.json keeps a registry's user and password as "auth",
// base64 of "user:pass": under a key whose last word is "auth" a value
// goes only when it is that ("auth": "oauth" stays). A bare key (a config's, an environment's, a URL query's) must be of
// two words or more, as a single word is read by the sentence patterns;
// in the plural it takes values separated by commas (API_KEYS=k9w2,r4t8).
//
// A session's id signs in as a password does, but "session" names other
// things too: under a key or a label that names a session ("session_id",
// "sessionKey", "sid", "connect.sid", "PHPSESSID") a value goes only when
// it is shaped like a token ("session": "evening" stays). A bare "sid" or
// "PHPSESSID" is a key, but a bare "session" is prose's. A Cookie or
// Set-Cookie header, on its line, under its key or named by a label (a
// HAR file's headers), hides the values of its cookies that look like
// secrets (secretCookie) and keeps the plain settings, the names and a
// Set-Cookie's attributes:
//
//	Cookie: sessionid=[SECRET_1]; csrftoken=[SECRET_2]; theme=dark
//	Set-Cookie: session=[SECRET_3]; Path=/; HttpOnly

// credentialWords are the last words of a key that name a credential.
// An HTTP header's name is a key too: "Authorization" holds a scheme and
// its credentials.
var credentialWords = map[string]bool{
	"password": true, "passwd": true, "passphrase": true, "passcode": true, "passkey": true, "pass": true,
	"secret": true, "token": true, "psk": true, "pin": true, "pincode": true, "apikey": true, "authorization": true,
}

// credentialSuffixes end a key written as one word that names a
// credential: "wifipassword", "clientsecret", "authtoken".
var credentialSuffixes = []string{"password", "passwd", "passphrase", "passcode", "secret", "token", "apikey"}

// keyKinds are the words that make a credential of a key's last word
// "key", "code" or "number": "api_key", "door_code", "pin_number".
var keyKinds = map[string]map[string]bool{
	"key": {"api": true, "wifi": true, "wlan": true, "wpa": true, "private": true, "secret": true, "access": true,
		"auth": true, "encryption": true, "client": true, "signing": true, "recovery": true, "subscription": true},
	"code": {"pin": true, "pass": true, "access": true, "door": true, "alarm": true, "gate": true, "lock": true,
		"security": true, "unlock": true, "entry": true, "recovery": true, "backup": true, "authorization": true,
		"auth": true},
	"number": {"pin": true},
}

// numericCredentials are the last words of a key in the plural whose
// numbers are credentials, not counts.
var numericCredentials = map[string]bool{"codes": true, "pincodes": true, "passcodes": true, "numbers": true}

// maxKey bounds a key's length.
const maxKey = 64

// valueMembers are the members that hold the value a sibling names.
var valueMembers = []string{"value", "val"}

// labelMembers are the members whose value names the credential in their
// object's "value" as a key would; a "type" names it more narrowly
// (member.names).
var labelMembers = []string{"name", "key", "field", "label"}

// concealedTypes are the types that say their value is hidden, whatever
// it is (lower case).
var concealedTypes = map[string]bool{"concealed": true, "securestring": true}

// maxObject bounds how far from a "value" member the other members of its
// object are looked for, each way, and maxDepth how deep into the objects
// and lists between them: a named value's object is small and flat, and
// the bounds keep the cost of nested objects of values near that of one.
const (
	maxObject = 512
	maxDepth  = 3
)

// pairs replaces the values of credentials written as key-value pairs in
// s with placeholders, adding their kinds to kinds. It reads the whole
// text, not a sentence, as a value may hold what ends one. With nothing
// replaced it returns s itself.
func (r *Redactor) pairs(s string, kinds []Kind) (string, []Kind) {
	var b strings.Builder
	var found []secret
	last := 0
	colon, equals := -1, -1 // the next of each at or after i; len(s) for none
	for i := 0; i < len(s); {
		// Two byte searches are much faster than one for either byte,
		// and prose has few of both.
		if colon < i {
			colon = indexFrom(s, i, ':')
		}
		if equals < i {
			equals = indexFrom(s, i, '=')
		}
		sep := min(colon, equals)
		if sep == len(s) {
			break
		}
		i = sep + 1
		found = pairAt(s, sep, found[:0])
		for _, v := range found {
			if b.Len() == 0 {
				b.Grow(len(s))
			}
			b.WriteString(s[last:v.start])
			b.WriteString(r.placeholder(Secret, v.value))
			kinds = append(kinds, Secret)
			last, i = v.end, v.end
		}
	}
	if b.Len() == 0 {
		return s, kinds
	}
	b.WriteString(s[last:])
	return b.String(), kinds
}

// A secret is a value to hide: where it starts and ends in s, and the
// value as it was before JSON escaped it.
type secret struct {
	start, end int
	value      string
}

// pairAt reads the pair whose separator (":" or "=") is s[sep]: when its
// key names a credential, or a list of them, it adds the values to hide
// to found, in order, and returns it.
func pairAt(s string, sep int, found []secret) []secret {
	j := sep
	for j > 0 && isSpace(s[j-1]) {
		j--
	}
	// The key: quoted ("password", \"password\", 'password') or bare.
	quote, level := byte(0), 0
	keyEnd := j
	if j > 0 && (s[j-1] == '"' || s[j-1] == '\'') {
		quote = s[j-1]
		n := backslashesBefore(s, j-1)
		var ok bool
		if level, ok = escapeLevel(n); !ok || quote == '\'' && n > 0 || s[sep] != ':' {
			return found
		}
		keyEnd = j - 1 - n
	}
	keyStart := keyEnd
	for keyStart > 0 && keyEnd-keyStart <= maxKey && isKeyNameByte(s[keyStart-1]) {
		keyStart--
	}
	if keyStart == keyEnd || keyEnd-keyStart > maxKey {
		return found
	}
	if quote != 0 {
		open := keyStart - 1
		if open < 0 || s[open] != quote || backslashesBefore(s, open) != 1<<level-1 {
			return found
		}
	} else if keyStart > 0 && s[keyStart-1] == ']' && placeholderBefore(s, keyStart) > 0 {
		// Glued to a value redacted already ("code [SECRET_1]api_key="):
		// before, the key ran on into that value, and its words were
		// others. Read now, it would make a second Redact differ.
		return found
	} else if backslashesBefore(s, keyStart) > 0 && strings.IndexByte("nrt", s[keyStart]) >= 0 {
		keyStart++ // a line's start inside a JSON string: \nWIFI_PASSWORD=
		if keyStart == keyEnd {
			return found
		}
	}
	key := s[keyStart:keyEnd]
	// A "value" or "val" is named by its siblings: they are read last,
	// when it holds something to hide.
	byName := quote != 0 && isOneOf(key, valueMembers)
	plural, header := false, false // the key names credentials; an Authorization header
	var spare spared
	if !byName {
		var room [8]string
		words := keyWords(key, room[:0])
		header = len(words) > 0 && words[len(words)-1] == "authorization"
		cookies := cookieHeader(words) && s[sep] == ':'
		switch {
		case quote == 0 && len(words) < 2 && !header && !cookies && !bareSession(words):
			return found
		case credential(words):
		case credentials(words):
			plural, spare.counts = true, countable(words)
		case cookies:
			spare.cookies = true
		default:
			if spare.shape = valueShape(words); spare.shape == nil {
				return found
			}
		}
		spare.specials = namesTokens(words)
	}
	at := keyStart - 1 - (1<<level - 1) // the key's quote, or its escape
	p := sep + 1
	p += spaceRun(s, p)
	if quote != 0 && p < len(s) && s[p] == '[' && placeholderAt(s, p) == 0 {
		n := len(found)
		if found = listAt(s, p, level, spare, found); len(found) > n && byName {
			named, spare := namedBySibling(s, at, level)
			if !named {
				return found[:n]
			}
			return spare.without(found, n)
		}
		return found
	}
	if quote == 0 && plural {
		return itemsAt(s, p, spare, found)
	}
	if quote == 0 && spare.cookies {
		return cookiesAt(s, p, len(s), found)
	}
	start, end, value := valueAt(s, p, quote, level)
	if start < 0 || spare.is(value) || quote != 0 && header && plainWord(value) {
		return found // a plain word under an Authorization header, as on its line
	}
	if quote == 0 && header {
		end = credentialsAfterScheme(s, start, end)
		value = s[start:end]
		if !headerCredentials(value) {
			return found
		}
	}
	if byName {
		var named bool
		if named, spare = namedBySibling(s, at, level); !named || spare.is(value) {
			return found
		}
	}
	if spare.cookies {
		if s[start-1] != '"' && s[start-1] != '\'' {
			return found // a number or a word: no cookies
		}
		return cookiesAt(s, start, end, found)
	}
	return append(found, secret{start, end, value})
}

// authSchemes are the schemes an Authorization header's credentials
// follow (lower case).
var authSchemes = map[string]bool{"basic": true, "bearer": true, "digest": true, "token": true, "apikey": true,
	"oauth": true, "negotiate": true, "ntlm": true, "hoba": true, "mutual": true, "vapid": true}

// credentialsAfterScheme is the end of an Authorization header's bare
// value s[start:end]: when it is a scheme ("Basic"), the end of the
// credentials that follow it after a space, hidden with it.
func credentialsAfterScheme(s string, start, end int) int {
	if !authSchemes[strings.ToLower(s[start:end])] || end+1 >= len(s) || s[end] != ' ' || bareEnd(s, end+1) {
		return end
	}
	return bareWord(s, end+1, end+1)
}

// headerCredentials reports whether the bare value of an Authorization
// header, with its scheme's credentials (credentialsAfterScheme), holds
// credentials: a scheme and what follows it, or a value shaped like a
// token. The header's name in prose is followed by a plain word
// ("Authorization: pending", "Authorization: Basic auth is on"), and a
// scheme said alone holds nothing.
func headerCredentials(v string) bool {
	if scheme, creds, ok := strings.Cut(v, " "); ok && authSchemes[strings.ToLower(scheme)] {
		return !plainWord(creds)
	}
	return tokenShaped(v)
}

// maxPlainWord bounds the length of a plain word: a longer run of
// letters is no word of prose.
const maxPlainWord = 24

// plainWord reports a word of prose: letters only, in lower case, or in
// capitals, or with a capital first ("pending", "NONE", "Required").
func plainWord(v string) bool {
	if v == "" || len(v) > maxPlainWord {
		return false
	}
	upper, lower := false, false
	for i := 0; i < len(v); i++ {
		if !isLetter(v[i]) {
			return false
		}
		if i > 0 {
			upper, lower = upper || isUpper(v[i]), lower || isLower(v[i])
		}
	}
	return !(upper && lower)
}

// minToken bounds a token's length from below.
const minToken = 6

// tokenShaped reports a value written as a generated token is: in
// letters, digits and "-_.~+/=%", with a letter and a digit in it
// ("abc123", a hex digest, a UUID), or a lower-case letter followed by a
// capital (base64: "dXNlcjpwYXNz"), or a long run of digits. A word of
// prose, a hyphenated one ("pre-approved"), a count or a date is not.
func tokenShaped(v string) bool {
	if len(v) < minToken {
		return false
	}
	letters, digits, camel := 0, 0, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case isDigit(c):
			digits++
		case isLetter(c):
			letters++
			camel = camel || isUpper(c) && i > 0 && isLower(v[i-1])
		case strings.IndexByte("-_.~+/=%", c) < 0:
			return false
		}
	}
	return letters > 0 && digits > 0 || camel || digits >= 16
}

// itemsAt adds to found the values, separated by commas, at s[p] of a
// bare key in the plural (API_KEYS=k9w2,r4t8), but for those its name
// spares. It reads no further than a value it cannot take.
func itemsAt(s string, p int, spare spared, found []secret) []secret {
	for {
		start, end, value := valueAt(s, p, 0, 0)
		if start < 0 {
			return found
		}
		if !spare.is(value) {
			found = append(found, secret{start, end, value})
		}
		if end+1 >= len(s) || s[end] != ',' || bareEnd(s, end+1) {
			return found
		}
		p = end + 1
	}
}

// A name that names credentials can spare some of the values under it,
// which are not credentials by their shape: numbers under a name in the
// plural that counts ("tokens": 42, "max_tokens": 512), a tokenizer's
// special tokens under a token's name ("eos_token": "</s>"), and under a
// name that holds a credential only now and then ("session": "evening"),
// the values not of a credential's shape. A cookie header's name spares
// its cookies' names and attributes (cookiesAt).
type spared struct {
	counts   bool              // numbers are counts or ids
	specials bool              // special tokens are a vocabulary's
	shape    func(string) bool // nil, or the shape of the values to hide
	cookies  bool              // the value is a Cookie or Set-Cookie header's
}

// is reports whether value is one that s spares. A special token is
// judged as it reads once JSON's escapes are undone: a value in single
// quotes is not unescaped (valueAt), but inside a JSON string its
// brackets may be ("\u003c/s\u003e").
func (s spared) is(value string) bool {
	return s.counts && isNumber(value) || s.specials && specialToken(unescape(value, 4)) ||
		s.shape != nil && !s.shape(unescape(value, 4))
}

// without is found without the values s spares from found[n] on.
func (s spared) without(found []secret, n int) []secret {
	kept := found[:n]
	for _, v := range found[n:] {
		if !s.is(v.value) {
			kept = append(kept, v)
		}
	}
	return kept
}

// namesTokens reports whether a key of these words, which names a
// credential or a list of them, names a token or tokens: "eos_token",
// "access_token", "authToken", "additional_special_tokens".
func namesTokens(words []string) bool {
	words = withoutVariants(words)
	w := words[len(words)-1]
	return strings.HasSuffix(w, "token") || strings.HasSuffix(w, "tokens")
}

// maxSpecial bounds a special token's length.
const maxSpecial = 64

// specialToken reports a value shaped like a tokenizer's special token: a
// word in angle brackets ("<s>", "</s>", "<|im_end|>", "<｜end▁of▁sentence｜>")
// or in square ones ("[SEP]"), short, with no space, quote, backslash or
// bracket inside. A generated token is written in letters, digits and
// "-_.~+/=" (base64, hex, a JWT's parts), never in brackets: a value of
// that shape under a token's name is a vocabulary's entry, not a secret.
// The sentences' patterns may hide a run of digits or an address inside
// its brackets ("[[CARD_1]]"): a placeholder inside keeps the shape, so
// a second Redact spares it too.
func specialToken(v string) bool {
	if len(v) < 3 || len(v) > maxSpecial || !(v[0] == '<' && v[len(v)-1] == '>' || v[0] == '[' && v[len(v)-1] == ']') {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if n := placeholderAt(v[:len(v)-1], i); n > 0 {
			i += n - 1 // what the sentences' patterns hid inside
			continue
		}
		if c := v[i]; isSpace(c) || strings.IndexByte("<>[]\"'", c) >= 0 {
			return false
		}
	}
	return true
}

// isNumber reports a number as JSON or a config writes it: 42, -1.5,
// 1e6.
func isNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() bool {
		n := digitRun(s, i, len(s))
		i += n
		return n > 0
	}
	if !digits() {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		if i++; i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

// valueAt reads the value at s[p] of a credential's key, quoted (quote)
// at level or bare (0): a string at the key's level of escaping, or a
// number after a quoted key, or a bare word after a bare key. It is
// where the value starts and ends and the value as it was before JSON
// escaped it; -1s for none, or one redacted already.
func valueAt(s string, p int, quote byte, level int) (start, end int, value string) {
	n := 0
	for p+n < len(s) && s[p+n] == '\\' {
		n++
	}
	if p+n < len(s) && (s[p+n] == '"' || s[p+n] == '\'' && n == 0) {
		l, ok := escapeLevel(n)
		if !ok || quote != 0 && l != level {
			return -1, -1, ""
		}
		start = p + n + 1
		end = closingQuote(s, start, s[p+n], n)
		value = s[start:end]
		if s[p+n] == '"' {
			value = unescape(value, l+1)
		}
	} else if quote != 0 {
		start, end = p, p
		if end < len(s) && s[end] == '-' {
			end++
		}
		if end == len(s) || !isDigit(s[end]) {
			return -1, -1, "" // null, true, an object, an array
		}
		for end < len(s) && (isDigit(s[end]) || strings.IndexByte(".eE+-", s[end]) >= 0) {
			end++
		}
		if end < len(s) && !bareEnd(s, end) {
			end = bareWord(s, start, end) // 0x1F, 4821abc: a word, hidden whole
		}
		value = s[start:end]
	} else {
		if p < len(s) && s[p] == '[' {
			return -1, -1, "" // a placeholder, or a list
		}
		// A word that talks about the value ("not set") is short: it is
		// looked for first, so no long run is read twice.
		start, end = p, p
		for end < len(s) && end-start < 16 && !bareEnd(s, end) {
			end++
		}
		whole := end == len(s) || bareEnd(s, end)
		if whole && notSecretWords[strings.ToLower(strings.TrimRight(s[start:end], ".!?:"))] {
			return -1, -1, ""
		}
		end = bareWord(s, start, end)
		value = s[start:end]
	}
	if value == "" || placeholderAt(s, start) == end-start {
		return -1, -1, "" // nothing, or redacted already
	}
	return start, end, value
}

// bareWord is the end of the unquoted word that starts at s[start] and
// runs on at s[from]: the first byte that ends a value, less the marks
// that end a sentence.
func bareWord(s string, start, from int) int {
	end := from
	for end < len(s) && !bareEnd(s, end) {
		end++
	}
	return start + len(strings.TrimRight(s[start:end], ".!?:"))
}

// listAt adds to found the strings and numbers of the list that opens at
// s[p], at the level of escaping of its key. The values its key's name
// spares, and true, false and null are passed over; the list is read no
// further than an object or a list in it.
func listAt(s string, p, level int, spare spared, found []secret) []secret {
	n := 1<<level - 1
	for i := p + 1; i < len(s); {
		k := 0 // backslashes: a quote's escape, or an escaped space
		for i+k < len(s) && s[i+k] == '\\' {
			k++
		}
		if i+k == len(s) {
			break
		}
		switch c := s[i+k]; {
		case c == '"' && k == n || c == '\'' && k == 0 && n == 0:
			start := i + k + 1
			end := closingQuote(s, start, c, n)
			if end == len(s) || s[end] == '\n' {
				return found // left open
			}
			value := s[start:end]
			if c == '"' {
				value = unescape(value, level+1)
			}
			if value != "" && placeholderAt(s, start) != end-start && !spare.is(value) {
				found = append(found, secret{start, end, value})
			}
			i = end + n + 1
		case k > 0:
			if strings.IndexByte("nrt", c) < 0 {
				return found
			}
			i += k + 1 // \n between the items of escaped JSON
		case isSpace(c) || c == ',':
			i++
		case c == '[' && placeholderAt(s, i) > 0:
			i += placeholderAt(s, i)
		case c == '-' || isDigit(c) || isLetter(c):
			start := i
			for i < len(s) && (c == '-' || isDigit(c) || isLetter(c) || c == '.' || c == '+') {
				if i++; i < len(s) {
					c = s[i]
				}
			}
			v := s[start:i]
			if d := strings.TrimPrefix(v, "-"); d != "" && isDigit(d[0]) && !spare.is(v) {
				found = append(found, secret{start, i, v}) // a number (4821, -1), or a word (0x1F)
			}
		default:
			return found // the list's end, or an object or a list in it
		}
	}
	return found
}

// indexFrom is the index of the first c in s at or after i, or len(s).
func indexFrom(s string, i int, c byte) int {
	if k := strings.IndexByte(s[i:], c); k >= 0 {
		return i + k
	}
	return len(s)
}

// namedBySibling reports whether the object that holds the "value"
// member whose key starts at s[at] (its quote, or the backslashes that
// escape it), at that level of escaping, has a member that names a
// credential by its value: a "name", "key", "field" or "label", or a
// "type", or in an auth's block a label that names its secret there
// ("value", inAuthBlock); and which values that name spares ("tokens": a
// count).
func namedBySibling(s string, at, level int) (named bool, spare spared) {
	n := 1<<level - 1
	open := objectStart(s, at, n)
	if open < 0 {
		return false, spared{}
	}
	// Its members at depth 0, in order: a string followed by ":" is a
	// key; what comes next is that key's value.
	hi := min(len(s), at+maxObject)
	depth, m := 0, notNaming // m: the member whose value comes next
	for i := open + 1; i < hi; i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			if c == '\'' && n > 0 || !isQuoteAt(s, i, n) {
				return false, spared{} // not this level's: outside the object's text
			}
			end := closingQuote(s[:hi], i+1, c, n)
			if end == hi || s[end] == '\n' {
				return false, spared{} // left open
			}
			if depth == 0 {
				after := end + n + 1
				if p := after + spaceRun(s, after); p < len(s) && s[p] == ':' {
					m = naming(s[i+1 : end])
				} else {
					if m != notNaming && label(s[i+1:end]) {
						if named, spare := m.names(s[i+1 : end]); named {
							return true, spare
						}
						if m == labelMember && isOneOf(s[i+1:end], blockLabels) && inAuthBlock(s, open, n) {
							return true, spared{}
						}
					}
					m = notNaming
				}
			}
			i = end + n
		case c == '[' && placeholderAt(s, i) > 0:
			i += placeholderAt(s, i) - 1 // a value redacted already
			m = notNaming
		case c == '{' || c == '[':
			if depth++; depth > maxDepth {
				return false, spared{}
			}
			m = notNaming
		case c == '}' || c == ']':
			if depth == 0 {
				return false, spared{}
			}
			depth--
		case depth == 0 && !isSpace(c) && c != ':' && c != ',' && c != '\\':
			m = notNaming // a number, true, false or null
		}
	}
	return false, spared{}
}

// A member names its object's "value" by its own value as a label
// ("name", "label"...) or as a type, or not at all.
type member uint8

const (
	notNaming member = iota
	labelMember
	typeMember
)

// naming is what the member of this key names its object's "value" by.
func naming(key string) member {
	switch {
	case isOneOf(key, labelMembers):
		return labelMember
	case foldEqual(key, "type"):
		return typeMember
	}
	return notNaming
}

// names reports whether a member's value (a label) names a credential,
// or a list of them, as this member names one, and which values that
// name spares.
func (m member) names(label string) (named bool, spare spared) {
	var room [8]string
	words := keyWords(label, room[:0])
	switch {
	case m == typeMember && concealedTypes[strings.ToLower(label)]:
		return true, spared{}
	case m == typeMember:
		named = credential(words) && !(len(words) == 1 && words[0] == "pass")
	case credential(words):
		named = true
	case credentials(words):
		named, spare.counts = true, countable(words)
	case cookieHeader(words):
		named, spare.cookies = true, true
	default:
		spare.shape = valueShape(words)
		named = spare.shape != nil
	}
	if named {
		spare.specials = namesTokens(words)
	}
	return named, spare
}

// label reports a string that can name a credential for people ("Wi-Fi
// password"): short, and no JSON or placeholder in it.
func label(s string) bool {
	return len(s) <= maxKey && !strings.ContainsAny(s, "\"\\[]{}:")
}

// objectStart is the "{" that opens the object of the member whose key
// starts at s[at], skipping the members before it and their strings, at
// the level of escaping where a quote has n backslashes; -1 when the key
// is in no object within maxObject bytes.
func objectStart(s string, at, n int) int {
	if i := opening(s, at, n); i >= 0 && s[i] == '{' {
		return i
	}
	return -1
}

// opening is the "{" or "[" that opens the object or the list that holds
// s[at], skipping the members or the items before it and their strings,
// at the level of escaping where a quote has n backslashes; -1 when
// there is none within maxObject bytes.
func opening(s string, at, n int) int {
	lo := max(0, at-maxObject)
	depth := 0
	for i := at - 1; i >= lo; i-- {
		switch c := s[i]; {
		case c == '"' || c == '\'':
			if c == '\'' && n > 0 || !isQuoteAt(s, i, n) {
				return -1
			}
			// The string this quote closes: the quote before it at
			// this level opens it.
			j := i - n - 1
			for j >= lo && !(s[j] == c && isQuoteAt(s, j, n)) {
				j--
			}
			if j < lo {
				return -1
			}
			i = j - n
		case c == ']' && placeholderBefore(s, i+1) > 0:
			i -= placeholderBefore(s, i+1) - 1 // a value redacted already
		case c == '}' || c == ']':
			if depth++; depth > maxDepth {
				return -1
			}
		case c == '{' || c == '[':
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return -1
}

// Postman's collection keeps a request's auth as a list of named values
// under the auth's type, and names its secret by a word that names no
// credential elsewhere:
//
//	"apikey": [{"key": "value", "value": "…"}, {"key": "key", "value": "X-API-Key"}]
//
// blockLabels are the labels that name the secret of a block keyed by
// one of authBlocks (lower case).
var (
	blockLabels = []string{"value", "token"}
	authBlocks  = []string{"apikey", "bearer", "basic"}
)

// inAuthBlock reports whether the object that opens at s[open], at the
// level of escaping where a quote has n backslashes, is an item of the
// list of an auth's block: the value of an "apikey", "bearer" or "basic"
// key.
func inAuthBlock(s string, open, n int) bool {
	list := opening(s, open, n)
	return list >= 0 && s[list] == '[' && isOneOf(keyBefore(s, list, n), authBlocks)
}

// keyBefore is the quoted key of the member whose value starts at s[i],
// at the level of escaping where a quote has n backslashes; "" for none.
func keyBefore(s string, i, n int) string {
	j := i
	for j > 0 && isSpace(s[j-1]) {
		j--
	}
	if j == 0 || s[j-1] != ':' {
		return ""
	}
	j--
	for j > 0 && isSpace(s[j-1]) {
		j--
	}
	if j == 0 {
		return ""
	}
	q := j - 1 // the key's closing quote
	if c := s[q]; c != '"' && c != '\'' || c == '\'' && n > 0 || !isQuoteAt(s, q, n) {
		return ""
	}
	end := q - n
	start := end
	for start > 0 && end-start <= maxKey && isKeyNameByte(s[start-1]) {
		start--
	}
	if start == end || end-start > maxKey || start-1-n < 0 || s[start-1] != s[q] || !isQuoteAt(s, start-1, n) {
		return ""
	}
	return s[start:end]
}

// placeholderBefore is the length of the placeholder that ends just
// before s[i], or 0.
func placeholderBefore(s string, i int) int {
	for j := i - 1; j >= max(0, i-16); j-- {
		if s[j] == '[' {
			if placeholderAt(s, j) == i-j {
				return i - j
			}
			return 0
		}
	}
	return 0
}

// isOneOf reports whether key is one of words (lower case) but for the
// case of its ASCII letters.
func isOneOf(key string, words []string) bool {
	for _, w := range words {
		if foldEqual(key, w) {
			return true
		}
	}
	return false
}

// foldEqual reports whether s is word (lower case) but for the case of
// its ASCII letters.
func foldEqual(s, word string) bool { return len(s) == len(word) && equalFoldASCII(s, word) }

// keyWords appends the words of a key, lower case, to words and returns
// it: "wifiPassword", "WIFI_PASSWORD" and "wifi-password" are "wifi" and
// "password"; "APIKey" is "api" and "key". A name written for people
// ("Wi-Fi password") has its words cut at spaces and signs too. A key is
// read for each ":" and "=" of a tool's text: with room in words, and a
// key in lower case already, it allocates nothing.
func keyWords(key string, words []string) []string {
	from := 0
	for i := 0; i <= len(key); i++ {
		cut, next := false, i // a word ends before key[i]; the next starts at next
		switch {
		case i == len(key):
			cut = true
		case !isLetter(key[i]) && !isDigit(key[i]):
			cut, next = true, i+1
		case i > 0 && isUpper(key[i]) && (isLower(key[i-1]) || isDigit(key[i-1])):
			cut = true // wifiPassword
		case i > 0 && isUpper(key[i]) && isUpper(key[i-1]) && i+1 < len(key) && isLower(key[i+1]):
			cut = true // APIKey
		}
		if cut {
			if i > from {
				words = append(words, strings.ToLower(key[from:i]))
			}
			from = next
		}
	}
	return words
}

// credential reports whether a key of these words names a credential.
// Its last words that hold a digit name a variant of it, not what it is:
// "wifi_password_5ghz", "token_v2".
func credential(words []string) bool {
	if len(words) == 0 {
		return false
	}
	words = withoutVariants(words)
	w := words[len(words)-1]
	if credentialWords[w] {
		return true
	}
	for _, suffix := range credentialSuffixes {
		if strings.HasSuffix(w, suffix) {
			return true
		}
	}
	return len(words) > 1 && keyKinds[w][words[len(words)-2]]
}

// credentials reports whether a key of these words names a list of
// credentials: its last word is the plural of a credential's ("passwords",
// "api_keys", "authTokens", "door_codes"). "pins" is not: a device's pins
// are numbered, not secret.
func credentials(words []string) bool {
	if len(words) == 0 {
		return false
	}
	words = withoutVariants(words)
	last := len(words) - 1
	w := words[last]
	if len(w) < 2 || w[len(w)-1] != 's' || w == "pins" {
		return false
	}
	words[last] = w[:len(w)-1]
	ok := credential(words)
	words[last] = w
	return ok
}

// valueShape is, for a key of these words that names a credential only
// now and then, the shape of the values it hides; nil for another key.
// A session's name ("session", "session_id", "sessionKey", "sid",
// "connect.sid", "PHPSESSID", "JSESSIONID"; not a network's "ssid")
// hides its id, shaped like a token. An "auth" mostly names a method
// ("auth": "oauth"), but Docker's config.json and a registry's
// "registry_auth" hold a user and a password in base64 under it.
func valueShape(words []string) func(string) bool {
	if len(words) == 0 {
		return nil
	}
	words = withoutVariants(words)
	w := words[len(words)-1]
	switch {
	case w == "auth":
		return userAndPassword
	case w == "session" || w == "sid" || strings.HasSuffix(w, "sessionid") || strings.HasSuffix(w, "sessid"):
		return tokenShaped
	case (w == "id" || w == "key") && len(words) > 1 && words[len(words)-2] == "session":
		return tokenShaped
	}
	return nil
}

// bareSession reports whether a bare key of these words, one, names a
// session's id: "sid=…", "PHPSESSID=…". A bare "session" is prose's
// ("Session: Week12"), as is an "auth".
func bareSession(words []string) bool {
	return len(words) == 1 && words[0] != "session" && words[0] != "auth" && valueShape(words) != nil
}

// userAndPassword reports base64 of a user and a password joined by a
// colon ("dXNlcjpwYXNz" is "user:pass"), as Docker's config.json and
// HTTP's Basic scheme write them: printable text, with a colon after
// the user.
func userAndPassword(v string) bool {
	enc := base64.StdEncoding
	if len(v)%4 != 0 {
		enc = base64.RawStdEncoding
	}
	b, err := enc.DecodeString(v)
	if err != nil || bytes.IndexByte(b, ':') < 1 {
		return false
	}
	for _, c := range b {
		if c < ' ' || c > '~' {
			return false
		}
	}
	return true
}

// cookieHeader reports whether a key of these words is the name of a
// Cookie or a Set-Cookie header.
func cookieHeader(words []string) bool {
	switch len(words) {
	case 1:
		return words[0] == "cookie"
	case 2:
		return words[0] == "set" && words[1] == "cookie"
	}
	return false
}

// cookieAttributes are the attributes of a Set-Cookie header (lower
// case): written as a cookie is ("Path=/"), but not one.
var cookieAttributes = map[string]bool{"path": true, "domain": true, "expires": true, "max-age": true, "samesite": true,
	"secure": true, "httponly": true, "partitioned": true, "priority": true, "version": true, "comment": true}

// cookiesAt adds to found the values of the cookies of a Cookie or
// Set-Cookie header's value at s[p], read no further than s[end]:
// "name=value" pairs separated by semicolons, a value maybe in double
// quotes (escaped or not), which stay. A Set-Cookie's attributes stay,
// and so do the names. It reads no further than a pair it cannot take.
func cookiesAt(s string, p, end int, found []secret) []secret {
	for i := p; i < end; {
		i = blanksEnd(s, i, end)
		name := i
		for i < end && cookieNameByte(s[i]) {
			i++
		}
		if i == name {
			return found
		}
		if i < end && s[i] == '=' {
			cookie := s[name:i]
			i++
			if cookieAttributes[strings.ToLower(cookie)] {
				for i < end && s[i] != ';' && s[i] != '"' && s[i] != '\\' && s[i] != '\n' && s[i] != '\r' {
					i++ // Expires=Wed, 21 Oct 2026 07:28:00 GMT
				}
			} else {
				q := 0 // a quoted value: the backslashes before its quote
				for i+q < end && s[i+q] == '\\' {
					q++
				}
				quoted := i+q < end && s[i+q] == '"'
				start := i
				if quoted {
					start = i + q + 1
				}
				v := start
				for v < end && cookieValueByte(s[v]) {
					v++
				}
				closed := !quoted || v+q < end && s[v+q] == '"' && backslashesBefore(s, v+q) == q
				if !closed {
					return found
				}
				// A value a placeholder starts was hidden already, or a
				// number run on from it was.
				if v > start && placeholderAt(s, start) == 0 && secretCookie(cookie, s[start:v]) {
					found = append(found, secret{start, v, s[start:v]})
				}
				i = v
				if quoted {
					i += q + 1
				}
			}
		}
		if i = blanksEnd(s, i, end); i == end || s[i] != ';' {
			return found
		}
		i++
	}
	return found
}

// sessionNames are what the name of a cookie that signs in says (lower
// case): its value is hidden whatever its shape.
var sessionNames = []string{"sess", "sid", "auth", "token", "csrf", "xsrf", "jwt", "key", "secret", "pass", "login", "remember"}

// longCookie bounds the length of a cookie's value that is a setting.
const longCookie = 16

// secretCookie reports whether the value v of the cookie named name looks
// like a secret: under a name that says session, id, auth, token and the
// like, shaped like a token, or long. A site's settings stay: "lang=en",
// "theme=dark", "count=3".
func secretCookie(name, v string) bool {
	if len(v) >= longCookie || tokenShaped(v) {
		return true
	}
	lower := strings.ToLower(name)
	for _, n := range sessionNames {
		if strings.Contains(lower, n) {
			return true
		}
	}
	return false
}

// blanksEnd is the end of the spaces and tabs at s[i], no further than
// s[end]: a header's value does not run on to the next line.
func blanksEnd(s string, i, end int) int {
	for i < end && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// cookieNameByte reports a byte of a cookie's name: a character other
// than a space, a control or a separator.
func cookieNameByte(c byte) bool {
	return c > ' ' && c < 0x7f && strings.IndexByte(`()<>@,;:\"/[]?={}'`, c) < 0
}

// cookieValueByte reports a byte of a cookie's value: a character other
// than a space, a control, a double quote, a comma, a semicolon or a
// backslash, and a single quote, which would close a shell's string.
func cookieValueByte(c byte) bool {
	return c > ' ' && c < 0x7f && strings.IndexByte(`",;\'`, c) < 0
}

// countable reports whether the numbers under a key of these words,
// which name credentials in the plural, are counts or ids ("tokens": 42,
// MAX_TOKENS=512) rather than credentials ("door_codes": [2580]).
func countable(words []string) bool {
	words = withoutVariants(words)
	return !numericCredentials[words[len(words)-1]]
}

// withoutVariants are words, at least one, without the last ones that
// hold a digit.
func withoutVariants(words []string) []string {
	for len(words) > 1 && countDigits(words[len(words)-1]) > 0 {
		words = words[:len(words)-1]
	}
	return words
}

// escapeLevel is how many times JSON escaped a quote that n backslashes
// precede: 0 for none, 1 for \", 2 for \\\", and so on.
func escapeLevel(n int) (int, bool) {
	for l := 0; l <= 4; l++ {
		if n == 1<<l-1 {
			return l, true
		}
	}
	return 0, false
}

// backslashesBefore is the number of backslashes just before s[i].
func backslashesBefore(s string, i int) int {
	n := 0
	for i-n > 0 && s[i-n-1] == '\\' {
		n++
	}
	return n
}

// closingQuote is where a string value that starts at s[from], opened by
// quote after n backslashes, ends: before the first quote that closes it
// at that level of escaping. A value left open ends with its line. It
// reads no further than that end, so a long line costs each value only
// its own length.
func closingQuote(s string, from int, quote byte, n int) int {
	for i := from; ; {
		k := strings.IndexByte(s[i:], quote)
		if k < 0 {
			k = len(s) - i
		}
		if nl := strings.IndexByte(s[i:i+k], '\n'); nl >= 0 {
			return i + nl
		}
		q := i + k
		if q == len(s) {
			return q
		}
		if isQuoteAt(s, q, n) {
			return q - n
		}
		i = q + 1
	}
}

// isQuoteAt reports whether the quote at s[q] opens or closes a string at
// the level of escaping where a quote has n backslashes. A quote inside
// such a string has more (\" at level 0, \\\" at level 1: 2(n+1) more for
// each backslash of its own).
func isQuoteAt(s string, q, n int) bool {
	b := backslashesBefore(s, q)
	return b >= n && b%(2*(n+1)) == n
}

// unescape undoes JSON's escaping of a string value levels times, as far
// as it can: the value a local tool gets back for its placeholder.
func unescape(v string, levels int) string {
	for range levels {
		if !strings.Contains(v, `\`) {
			return v
		}
		var u string
		if json.Unmarshal([]byte(`"`+v+`"`), &u) != nil {
			return v
		}
		v = u
	}
	return v
}

// bareEnd reports whether s[i] ends an unquoted value: a space, a
// delimiter, a quote, or an escape within a JSON string (\n, \", \u0026).
func bareEnd(s string, i int) bool {
	switch c := s[i]; c {
	case ',', ';', '&', ')', ']', '}', '"', '\'', '<', '>':
		return true
	case '\\':
		return i+1 < len(s) && strings.IndexByte(`"\/bfnrtu`, s[i+1]) >= 0
	default:
		return isSpace(c)
	}
}

// isKeyNameByte is [A-Za-z0-9_.\-].
func isKeyNameByte(c byte) bool { return isWordByte(c) || c == '-' || c == '.' }

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }
func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
