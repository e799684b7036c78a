package intent

import (
	"fmt"
	"testing"
)

// manyNaming is a language whose sentences, each in a block of its own,
// name one rule and, through it, a long list.
func manyNaming(sentences int) Source {
	var colours []SourceValue
	for i := range 300 {
		colours = append(colours, SourceValue{In: fmt.Sprintf("colour%d", i)})
	}
	var data []SourceData
	for i := range sentences {
		data = append(data, SourceData{Sentences: []string{fmt.Sprintf("<paint> wall%d", i)}})
	}
	return Source{
		Language:  "en",
		SkipWords: []string{"please"},
		Rules:     map[string]string{"paint": "(paint|colour) [it] {colour}"},
		Lists:     map[string]SourceList{"colour": {Values: colours}},
		Intents:   map[string]SourceIntent{"Paint": {Data: data}},
	}
}

// TestCompileReadsARuleOnce: the sentences that name a rule do not each
// read it (and the list it names) again: one more sentence costs what its
// own words cost, not what the list's 300 values do.
func TestCompileReadsARuleOnce(t *testing.T) {
	allocs := func(src Source) float64 {
		return testing.AllocsPerRun(3, func() {
			if _, err := Compile(src); err != nil {
				t.Fatal(err)
			}
		})
	}
	one, many := allocs(manyNaming(1)), allocs(manyNaming(51))
	if each := (many - one) / 50; each > 100 {
		t.Errorf("each sentence more allocates %.0f times (%.0f for 1 sentence, %.0f for 51), as if it read the list again", each, one, many)
	}
}

// TestRulesReadInTheirBlock: a rule of the language that names another
// is read anew in a block with a rule of that name of its own.
func TestRulesReadInTheirBlock(t *testing.T) {
	src := Source{
		Language: "en",
		Rules:    map[string]string{"open": "<word> sesame", "word": "open"},
		Intents: map[string]SourceIntent{
			"A": {Data: []SourceData{{Sentences: []string{"<open>"}}}},
			"B": {Data: []SourceData{{Sentences: []string{"<open>"}, Rules: map[string]string{"word": "close"}}}},
		},
	}
	l, err := Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	for said, want := range map[string]string{"open sesame": "A", "close sesame": "B"} {
		if r, _, ok := l.Recognize(said, Options{}); !ok || r.Intent != want {
			t.Errorf("%q gave %q (%v), want %s", said, r.Intent, ok, want)
		}
	}
}
