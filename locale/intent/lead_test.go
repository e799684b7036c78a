package intent

import "testing"

// TestLeadWordsOnlyFirst: a lead word ("so", "well") is dropped when said
// before the request, with the skip words around it, and kept anywhere
// else, where it is part of what was said ("the soup is so good").
func TestLeadWordsOnlyFirst(t *testing.T) {
	l, err := Compile(Source{
		Language:  "en",
		SkipWords: []string{"um", "please"},
		LeadWords: []string{"so", "well", "all right"},
		Intents:   map[string]SourceIntent{"x": {Data: []SourceData{{Sentences: []string{"set a timer"}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for said, want := range map[string]string{
		"So, set a timer":              "set a timer ",
		"Well so, set a timer":         "set a timer ",
		"um, well, set a timer please": "set a timer ",
		"All right, set a timer":       "set a timer ",
		"the soup is so good":          "the soup is so good ",
		"set a timer, well done":       "set a timer well done ",
		"so":                           "",
	} {
		if got := l.Normalize(said); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", said, got, want)
		}
	}
}
