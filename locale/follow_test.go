package locale

import (
	"slices"
	"testing"
)

// Every offline language says the words of a short "and …" follow-up:
// its "and", a place's prepositions, the operations said before a number,
// each named as the calculator names it.
func TestFollowUpWordsInEveryLanguage(t *testing.T) {
	ops := []string{"add", "subtract", "multiply", "divide"}
	for _, l := range All {
		f := l.FollowUp()
		if len(f.And) == 0 || len(f.Place) == 0 {
			t.Errorf("%s: no \"and\" or place words: %+v", l, f)
		}
		var named []string
		for _, op := range f.Operations {
			if !slices.Contains(ops, op.Operation) {
				t.Errorf("%s: %q is the operation %q, not one of %v", l, op.Said, op.Operation, ops)
			}
			named = append(named, op.Operation)
		}
		for _, op := range ops {
			if !slices.Contains(named, op) {
				t.Errorf("%s: no words for %q", l, op)
			}
		}
	}
	if got := German.FollowUp().And; !slices.Contains(got, "und") {
		t.Errorf("German and: %v", got)
	}
}
