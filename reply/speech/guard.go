package speech

import (
	"regexp"
	"strings"
)

var (
	protocolLeadRE = regexp.MustCompile(`(?i)^\s*(tool_calls?|function_calls?|"?tool_calls?"?)\s*[:=\[]`)
	dumpRE         = regexp.MustCompile(`(?i)("openapi"\s*:|"swagger"\s*:|"paths"\s*:\s*\{|"\$schema"|HTTP/1\.[01] \d{3}|content-type:\s*application/|"latitude"\s*:\s*-?\d.*"longitude"\s*:)`)
)

// Malformed reports an answer that must never be spoken: truncated or raw
// JSON, a literal tool_calls: answer, or an API or data dump. The caller
// says a short apology instead.
func Malformed(answer string) bool {
	s := strings.TrimSpace(answer)
	if s == "" {
		return false
	}
	if protocolLeadRE.MatchString(s) || dumpRE.MatchString(s) {
		return true
	}
	if jsonStartRE.MatchString(s) {
		// Structured data is not speech: whole, truncated, or cut where
		// an inner array ends ({"reply": ["It is sunny", "and warm"]).
		return true
	}
	return looksLikeData(s)
}

// jsonStartRE matches the start of a JSON object or array, not a bracketed
// word such as "[laughs]".
var jsonStartRE = regexp.MustCompile(`^(\{\s*("|\}|$)|\[\s*(\{|\[|"|-?\d|\]|$))`)

// looksLikeData reports text dense with JSON punctuation: quoted keys,
// braces and brackets.
func looksLikeData(s string) bool {
	if len(s) < 40 {
		return false
	}
	punct := 0
	for _, r := range s {
		switch r {
		case '{', '}', '[', ']', '"', ':':
			punct++
		}
	}
	return punct*100/len(s) >= 15 && strings.Count(s, `":`) >= 2
}

// Suspicious reports the start of an answer that may turn out to be
// malformed, so the caller holds it back until the answer is complete
// instead of speaking it as it streams.
func Suspicious(start string) bool {
	s := strings.TrimSpace(start)
	if s == "" {
		return false
	}
	return jsonStartRE.MatchString(s) || s == "{" || s == "[" || s[0] == '<' || protocolLeadRE.MatchString(s) ||
		strings.HasPrefix(strings.ToLower(s), "tool") || strings.HasPrefix(strings.ToLower(s), "function")
}
