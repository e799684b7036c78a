package home_test

import (
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command/home/hatest"
)

// A request that acts on the house's devices by place and names no
// device, room or floor is not whole as it stands: the user may name one after a pause, and the
// microphone stopping on "turn on all the lights" would light the
// bedrooms when "… on the ground floor" was coming.
func TestWholeRequestsNameTheirPlace(t *testing.T) {
	reg := hatest.Household(t) // the box in the kitchen
	cases := []struct {
		text, lang string
		want       bool
	}{
		// A device, a room or a floor named: whole.
		{"Turn on the living room lamp.", "en", true},
		{"turn off the kitchen light", "en", true},
		{"Turn on all the lights on the ground floor.", "en", true},
		{"turn off the lights in the bedroom", "en", true},
		{"Allume la lumière du salon.", "fr", true},
		// None named: the speaker's room, or the whole house, unless a
		// place follows.
		{"Turn on all the lights", "en", false},
		{"turn off the lights", "en", false},
		{"Allume la lumière", "fr", false},
		{"what is the temperature", "en", false},
		{"are any lights on", "en", false},
		// A control word stays whole on its own, whatever it acts on; and
		// what acts on what is playing, or on a list, has no place to name.
		{"pause", "en", true},
		{"next", "en", true},
		{"skip this song", "en", true},
		{"add milk to my shopping list", "en", true},
		// The offline core's own commands are not the house's.
		{"Set a timer for five minutes.", "en", true},
		{"What time is it?", "en", true},
	}
	for _, tc := range cases {
		if got := reg.Complete(t.Context(), tc.text, tc.lang); got != tc.want {
			u := reg.Understand(t.Context(), locale.Lang(tc.lang), tc.text)
			t.Errorf("Complete(%q, %q) = %v, want %v (understood %v as %s: %s %s)", tc.text, tc.lang, got, tc.want, u.OK, u.Intent, u.Reason, u.Detail)
		}
	}
}
