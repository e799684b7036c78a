package redact

import (
	"strings"
	"testing"
)

// A named value's sibling is looked for within maxObject bytes: when the
// sentences' placeholders, shorter than what they hide, bring the name
// within reach, the value is hidden then, not at the next Redact.
func TestRedactIsIdempotentOverLongObjects(t *testing.T) {
	note := strings.Repeat("mail someone.long.name@example.com ", 20)
	s := `{"name": "password", "note": "` + note + `", "value": "hunter2x"}`
	r := New()
	once, _ := r.Redact(s)
	if twice, _ := r.Redact(once); once != twice {
		t.Errorf("redacting twice changed\n%s\nto\n%s", once, twice)
	}
	if strings.Contains(once, "hunter2x") {
		t.Errorf("the password named within reach once the addresses are hidden stayed: %s", once)
	}
}
