package redact

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The regular expressions the scanners replaced: the reference they are
// checked against.
var (
	emailRE    = regexp.MustCompile(`(?i)\b[a-z0-9._%+\-]+@[a-z0-9.\-]+\.[a-z]{2,}\b`)
	phoneRE    = regexp.MustCompile(`(?:\+\d{1,3}[\s.\-]?)?(?:\(\d{1,5}\)[\s.\-]?)?\d{2,8}(?:[\s.\-]\d{2,8}){1,4}\b|\+\d{7,15}\b`)
	cardRE     = regexp.MustCompile(`\b\d(?:[ \-]?\d){12,18}\b`)
	ibanRE     = regexp.MustCompile(`(?i)\b[a-z]{2}\d{2}(?:[ ]?[a-z0-9]){11,30}\b`)
	tokenRE    = regexp.MustCompile("(?:" + strings.Join(tokenPatterns, ")|(?:") + ")")
	opaqueRE   = regexp.MustCompile(`\b[A-Za-z0-9_\-]{24,}\b`)
	passwordRE = regexp.MustCompile(passwordPattern)
	codeRE     = regexp.MustCompile(`(?i)\b((?:code|combination|combo|cvv2?|cvc|security code|pin)\s*(?:is|=|:|was|'s|number is)?\s*)((?:\d[\d\s\-]{1,14}\d|\d{3,8}|(?:(?:zero|oh|one|two|three|four|five|six|seven|eight|nine)[\s\-]*){3,12}))`)
)

// findAll is regexp's FindAllStringIndex(s, -1) for a finder.
func findAll(s string, at finder) [][]int {
	var locs [][]int
	for i := 0; i < len(s); {
		end, next := at(s, i)
		if end < 0 {
			i = next
			continue
		}
		locs = append(locs, []int{i, end})
		i = end
	}
	return locs
}

// findPasswords is regexp's FindAllStringSubmatchIndex(s, -1) for
// nextPassword.
func findPasswords(s string) [][]int {
	var locs [][]int
	for i := 0; ; {
		loc := nextPassword(s, i)
		if loc == nil {
			return locs
		}
		locs = append(locs, loc)
		i = loc[1]
	}
}

// findCodes is regexp's FindAllStringSubmatchIndex(s, -1) for nextCode.
func findCodes(s string) [][]int {
	var locs [][]int
	for i := 0; ; {
		start, value, end := nextCode(s, i)
		if start < 0 {
			return locs
		}
		locs = append(locs, []int{start, end, start, value, value, end})
		i = end
	}
}

// scanners pairs each scanner with its regexp.
var scanners = []struct {
	name string
	re   *regexp.Regexp
	find func(string) [][]int
}{
	{"email", emailRE, func(s string) [][]int { return findAll(s, emailAt) }},
	{"phone", phoneRE, func(s string) [][]int { return findAll(s, phoneAt) }},
	{"card", cardRE, func(s string) [][]int { return findAll(s, cardAt) }},
	{"iban", ibanRE, func(s string) [][]int { return findAll(s, ibanAt) }},
	{"code", codeRE, findCodes},
	{"password", passwordRE, findPasswords},
	{"token", tokenRE, func(s string) [][]int { return findAll(s, tokenAt) }},
	{"opaque", opaqueRE, func(s string) [][]int { return findAll(s, opaqueAt) }},
}

// sameAsRegexp checks that a scanner finds what its regexp finds in s.
func sameAsRegexp(t *testing.T, name string, re *regexp.Regexp, find func(string) [][]int, s string) {
	t.Helper()
	var want [][]int
	if name == "code" || name == "password" {
		want = re.FindAllStringSubmatchIndex(s, -1)
	} else {
		want = re.FindAllStringIndex(s, -1)
	}
	if got := find(s); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("%s in %q: got %v, want %v (the regexp's)", name, s, got, want)
	}
}

// pieces are what generated inputs are made of: the characters the
// patterns turn on, the two non-ASCII letters that fold to ASCII ones, a
// placeholder, other runes and broken UTF-8, and pieces of values.
var pieces = []string{
	"0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "12", "345", "4111", "0151", "2026",
	"a", "b", "e", "k", "s", "z", "A", "K", "S", "GB", "DE", "com", "org", "code", "pin", "cvv",
	"security code", "combination", "four", "two", " is ", "'s", ": ", "=", "CODE", "Combo", "cvv2", "PIN", "ſecurity code",
	"oh", "nine", "six", "ſeven", "zero", "number is", "was", "WAS",
	" ", " ", " ", "  ", "\t", "\n", "\r", "\f", "-", "--", ".", "..", "(", ")", "+", "@", "_", "%", ",", ":", "[", "]",
	"sk-", "pk-", "rk-", "ghp_", "ghs_", "xoxb-", "xoxp-", "AKIA", "AIza", "eyJ", "Bearer ", "api_key", "TOKEN", "ſecret", "abcdefghij", "ABCDEFGHIJ0123456789", "-_-",
	"ſ", "K", "é", "ü", "\xff", "\xc5", "\xe2\x84", "[PHONE_1]",
	"password", "Pass", "passcode", "wifi ", "Wi-Fi ", "pin code", "key", "was", "\"", "'", "\\", "\\\"", "}", "!", ";",
}

// generated returns a random input of up to n pieces.
func generated(rng *rand.Rand, n int) string {
	var b strings.Builder
	for range rng.IntN(n) + 1 {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

// valueShaped returns a random string shaped like the values: digit
// groups with separators, a country code, letters and an "@".
func valueShaped(rng *rand.Rand) string {
	var b strings.Builder
	for range rng.IntN(8) + 1 {
		switch rng.IntN(6) {
		case 0:
			b.WriteString(strconv.Itoa(rng.IntN(100000000) + 10000000)[:rng.IntN(8)+1])
		case 1:
			b.WriteString([]string{" ", "-", ".", "(", ")", "+", "@", "_", "\t"}[rng.IntN(9)])
		case 2:
			b.WriteString([]string{"GB82", "DE89", "WEST", "bob", "ex.co", "uk", "ſ", "K", "x", "@b.", "a@", ".io", "c_d"}[rng.IntN(13)])
		default:
			b.WriteString(strings.Repeat(strconv.Itoa(rng.IntN(10)), rng.IntN(5)+1))
		}
	}
	return b.String()
}

// TestScannersMatchRegexps runs every scanner and its regexp over the
// household text, the tests' sentences, the fuzz corpus and many
// generated inputs.
func TestScannersMatchRegexps(t *testing.T) {
	inputs := strings.SplitAfter(household(4000), ".")
	inputs = append(inputs, household(4000),
		"my email is bob.smith+news@example.co.uk, remember it", "call me on +49 30 1234567 please",
		"my number is (555) 123-4567", "card 4111-1111-1111-1111 expires soon", "the IBAN is DE89 3704 0044 0532 0130 00",
		"+12345 67", "+4930123456 12", "a@b@c.com", "x@y.coſm", "ſecurity code is 1234", "GB82 WEſT 1234 5698 7654 32")
	inputs = append(inputs, corpus(t)...)
	rng := rand.New(rand.NewPCG(26, 1))
	for range 5000 {
		inputs = append(inputs, generated(rng, 30), valueShaped(rng))
	}
	for _, s := range inputs {
		for _, sc := range scanners {
			sameAsRegexp(t, sc.name, sc.re, sc.find, s)
		}
	}
}

// corpus is the string inputs of the fuzz corpora under testdata.
func corpus(t *testing.T) []string {
	files, err := filepath.Glob("testdata/fuzz/*/*")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			if q, ok := strings.CutPrefix(line, "string("); ok {
				if s, err := strconv.Unquote(strings.TrimSuffix(q, ")")); err == nil {
					out = append(out, s)
				}
			}
		}
	}
	return out
}

// fuzzScanner checks one scanner against its regexp on fuzzed inputs.
func fuzzScanner(f *testing.F, name string) {
	i := slices.IndexFunc(scanners, func(sc struct {
		name string
		re   *regexp.Regexp
		find func(string) [][]int
	}) bool {
		return sc.name == name
	})
	sc := scanners[i]
	for _, s := range []string{household(300), "+49 (30) 123-4567 a@b.co GB82WEST12345698765432 4111 1111 1111 1111 pin 1234"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sameAsRegexp(t, sc.name, sc.re, sc.find, s)
	})
}

func FuzzEmailScanner(f *testing.F)    { fuzzScanner(f, "email") }
func FuzzPhoneScanner(f *testing.F)    { fuzzScanner(f, "phone") }
func FuzzCardScanner(f *testing.F)     { fuzzScanner(f, "card") }
func FuzzIBANScanner(f *testing.F)     { fuzzScanner(f, "iban") }
func FuzzCodeScanner(f *testing.F)     { fuzzScanner(f, "code") }
func FuzzPasswordScanner(f *testing.F) { fuzzScanner(f, "password") }
func FuzzTokenScanner(f *testing.F)    { fuzzScanner(f, "token") }
func FuzzOpaqueScanner(f *testing.F)   { fuzzScanner(f, "opaque") }

// lookReference is look as it was (lookBefore), but for one change: a
// keyword inside a placeholder ("[SECRET_1]") no longer counts, as no
// pattern can match there.
func lookReference(s string) features {
	const keywordBits = hasPassword | hasCode | hasToken | hasRecovery
	blanked := []byte(s)
	for i := 0; i < len(s); i++ {
		if s[i] != '[' {
			continue
		}
		if loc := placeholderRE.FindStringIndex(s[i:min(len(s), i+16)]); loc != nil && loc[0] == 0 {
			copy(blanked[i:], strings.Repeat(" ", loc[1]))
			i += loc[1] - 1
		}
	}
	return lookBefore(s)&^keywordBits | lookBefore(string(blanked))&keywordBits
}

// sameLook checks look against lookReference on s and its cases.
func sameLook(t *testing.T, s string) {
	t.Helper()
	for _, in := range []string{s, strings.ToUpper(s), strings.ToLower(s)} {
		if got, want := look(in), lookReference(in); got != want {
			t.Errorf("look(%q) = %09b, want %09b", in, got, want)
		}
	}
}

var keywordPieces = []string{"pass", "PIN", "wifi", "Wi-Fi", "wi\rfi", "code", "Combination", "combo", "cvv", "CVC",
	"key", "toKen", "token", "SECRET", "bearer", "[SECRET_1]", "[SECRET_1234567]", "[SECRET_12345678]", "[EMAIL_", "[IBAN_0]x",
	"pİn", "Kelvin", "se[CARD_2]cret", "recovery", "BACKUP", "bac\u212aup",
	"Kennwort", "contraseña", "CLAVE", "código", "Combinación", "kombination", "WLAN", "Geheimzahl"}

func TestLookMatchesReference(t *testing.T) {
	inputs := append(strings.SplitAfter(household(3000), "."), keywordPieces...)
	rng := rand.New(rand.NewPCG(26, 2))
	all := append(slices.Clone(pieces), keywordPieces...)
	for range 5000 {
		var b strings.Builder
		for range rng.IntN(20) + 1 {
			b.WriteString(all[rng.IntN(len(all))])
		}
		inputs = append(inputs, b.String(), valueShaped(rng))
	}
	for _, s := range inputs {
		sameLook(t, s)
	}
}

func FuzzLook(f *testing.F) {
	f.Add(household(300))
	f.Add("the [SECRET_1] wi-fi toKen pİn")
	f.Fuzz(sameLook)
}

// sameIBANCheck checks validIBAN against its slow path, which is the
// checksum as it was, on s.
func sameIBANCheck(t *testing.T, s string) {
	t.Helper()
	if got, want := validIBAN(s), validIBANFolded(s); got != want {
		t.Errorf("validIBAN(%q) = %v, want %v", s, got, want)
	}
}

func TestValidIBANMatchesBigNumbers(t *testing.T) {
	valid := []string{"DE89370400440532013000", "GB82 WEST 1234 5698 7654 32", "gb82west12345698765432", "GB82WEſT12345698765432"}
	rng := rand.New(rand.NewPCG(26, 3))
	alphabet := []string{"0", "1", "5", "9", "A", "z", "W", " ", "-", "ſ", "K", "ı", "\t"}
	inputs := slices.Clone(valid)
	for range 5000 {
		b := []byte(valid[rng.IntN(len(valid))])
		for range rng.IntN(3) {
			b[rng.IntN(len(b))] = alphabet[rng.IntN(len(alphabet))][0]
		}
		s := string(b)
		if rng.IntN(4) == 0 {
			i := rng.IntN(len(s))
			s = s[:i] + alphabet[rng.IntN(len(alphabet))] + s[i:]
		}
		inputs = append(inputs, s, s[:rng.IntN(len(s))])
	}
	for _, s := range inputs {
		sameIBANCheck(t, s)
	}
	for _, s := range valid {
		if !validIBAN(s) {
			t.Errorf("validIBAN(%q) = false, want true", s)
		}
	}
}

func FuzzValidIBAN(f *testing.F) {
	f.Add("GB82 WEST 1234 5698 7654 32")
	f.Fuzz(sameIBANCheck)
}
