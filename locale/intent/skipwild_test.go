package intent

import "testing"

// TestWildcardTakesNoSkipWord: what was said is tried again with its skip
// words for the templates that say one themselves ("make a note", after
// "thanks a lot" made "a" a skip word's); free text taken on that second
// try never starts or ends with a skip word, which the first try had
// dropped.
func TestWildcardTakesNoSkipWord(t *testing.T) {
	l, err := Compile(Source{
		Language:  "en",
		SkipWords: []string{"please", "thanks a lot"},
		Intents: map[string]SourceIntent{
			"Remember": {Data: []SourceData{{Sentences: []string{"(remember|make a note) that {fact}"}}}},
			"Thank":    {Data: []SourceData{{Sentences: []string{"thanks a lot"}}}},
		},
		Lists: map[string]SourceList{"fact": {Wildcard: true}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for said, want := range map[string]string{
		"remember that password please":                 "password",
		"please remember that the car is outside":       "the car is outside",
		"make a note that the milk is off thanks a lot": "the milk is off",
	} {
		for _, r := range l.RecognizeAll(said, Options{}) {
			if r.Intent != "Remember" {
				continue
			}
			if got := r.String("fact"); got != want {
				t.Errorf("%q: a match takes the fact %q; want only %q", said, got, want)
			}
		}
	}
	if r, _, ok := l.Recognize("thanks a lot", Options{}); !ok || r.Intent != "Thank" {
		t.Errorf("thanks a lot: %+v, %v; want Thank, as said", r, ok)
	}
}
