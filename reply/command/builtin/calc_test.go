package builtin

import (
	"testing"

	"github.com/harkbox/hark/locale"
)

// TestTwoOperationsInARow: a sum of three numbers is worked out offline,
// left to right but for a product or quotient after a sum, which goes
// first as in school; the step before the last is said, so what was
// worked out can be checked.
func TestTwoOperationsInARow(t *testing.T) {
	f := newFixture(t)
	answersOffline(t, f, []spokenCase{
		{locale.English, "what's 7 plus 8 minus 3", "15 minus 3 is 12."},
		{locale.English, "10 minus 2 minus 3", "8 minus 3 is 5."},
		{locale.English, "what is 2 plus 3 times 4", "2 plus 12 is 14."},
		{locale.English, "what is 2 times 3 plus 4", "6 plus 4 is 10."},
		{locale.English, "what is 12 divided by 3 times 2", "4 times 2 is 8."},
		{locale.English, "what is 5 plus 1 divided by 0", "You can't divide by zero."},
		{locale.English, "what is one and a half times 2", "1.5 times 2 is 3."}, // "and" is a plus, but not here
		{locale.German, "was ist 7 plus 8 minus 3", "15 minus 3 ist 12."},
		{locale.Spanish, "cuánto es 7 más 8 menos 3", "15 menos 3 son 12."},
		{locale.French, "combien font 7 plus 8 moins 3", "15 moins 3 égale 12."},
	})
	// A power or a percentage in a row is the model's.
	for _, say := range []string{"what is 2 to the power of 3 plus 1", "what is 10 percent of 50 plus 3"} {
		if u := f.reg.Understand(t.Context(), locale.English, say); u.OK {
			t.Errorf("%q: understood offline as %s %v", say, u.Route.Command.Name, u.Route.Claim.Arguments)
		}
	}
}
