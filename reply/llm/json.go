package llm

import (
	"encoding/json"
	"fmt"
	"strings"
)

// DecodeJSON reads the first JSON object in a model's answer into v: small
// models wrap JSON in code fences or add a sentence around it even when
// asked for JSON.
func DecodeJSON(content string, v any) error {
	s := strings.TrimSpace(content)
	obj, start := FirstObject(s)
	switch {
	case start < 0:
		return fmt.Errorf("llm: no JSON object in %q", clip(s))
	case obj == "":
		return fmt.Errorf("llm: truncated JSON %q", clip(s[start:]))
	}
	if err := json.Unmarshal([]byte(obj), v); err != nil {
		return fmt.Errorf("llm: malformed JSON %q: %w", clip(obj), err)
	}
	return nil
}

// FirstObject returns the first balanced {...} in s, minding strings, and
// the index where it starts: start is -1 when s has no '{', and obj is
// empty when the object never closes.
func FirstObject(s string) (obj string, start int) {
	start = strings.IndexByte(s, '{')
	if start < 0 {
		return "", -1
	}
	depth, inStr, esc := 0, false, false
	for i := start; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth == 0 {
				return s[start : i+1], start
			}
		}
	}
	return "", start
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// Schema is a JSON schema for Request.Format.
func Schema(s string) json.RawMessage { return json.RawMessage(s) }
