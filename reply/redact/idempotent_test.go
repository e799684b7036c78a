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

// A cookie's value that a phone number's placeholder starts, the number
// run on past the value's end, was hidden by the first Redact: the second
// leaves it.
func TestRedactIsIdempotentOverAPlaceholderInACookie(t *testing.T) {
	r := New()
	once, _ := r.Redact("Cookie:0=00 00000!000000")
	if twice, k := r.Redact(once); once != twice {
		t.Errorf("redacting twice changed %q to %q %v", once, twice, k)
	}
}
