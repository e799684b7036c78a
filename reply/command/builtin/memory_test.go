package builtin

import "testing"

// search_memory and forget find a fact by other forms of its words, as
// the answer with the model down does: the fact holding every word asked
// about is the answer, not the newer one sharing a word of it.
func TestMemoryFindsOtherFormsOfTheWords(t *testing.T) {
	f := newFixture(t)
	for _, fact := range []string{"remember that my car is parked on level 3", "remember that my car keys are in the kitchen drawer"} {
		f.say(t, fact)
	}
	for _, c := range []struct{ ask, want string }{
		{"what do you remember about parking my car", "You told me: your car is parked on level 3."},
		{"forget that I'm parking my car on level 3", "OK, I've forgotten that."},
		{"what do you remember about parking my car", "You told me: your car keys are in the kitchen drawer."},
	} {
		if said, _ := f.say(t, c.ask); said != c.want {
			t.Errorf("%q: said %q, want %q", c.ask, said, c.want)
		}
	}
}
