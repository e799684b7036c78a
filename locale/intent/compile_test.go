package intent

import (
	"fmt"
	"strings"
	"testing"
)

// manyNaming is a language whose sentences, each in a block of its own,
// name one rule and, through it, a long list; in one intent, or each in
// an intent of its own.
func manyNaming(sentences int, apart bool) Source {
	var colours []SourceValue
	for i := range 300 {
		colours = append(colours, SourceValue{In: fmt.Sprintf("colour%d", i)})
	}
	intents := map[string]SourceIntent{}
	for i := range sentences {
		name := "Paint"
		if apart {
			name = fmt.Sprintf("Paint%d", i)
		}
		in := intents[name]
		in.Data = append(in.Data, SourceData{Sentences: []string{fmt.Sprintf("<paint> wall%d", i)}})
		intents[name] = in
	}
	return Source{
		Language:  "en",
		SkipWords: []string{"please"},
		Rules:     map[string]string{"paint": "(paint|colour) [it] {colour}"},
		Lists:     map[string]SourceList{"colour": {Values: colours}},
		Intents:   intents,
	}
}

// TestCompileReadsARuleOnce: the sentences that name a rule do not each
// read it (and the list it names) again, in one intent or in many: one
// more sentence costs what its own words cost, not what the list's 300
// values do.
func TestCompileReadsARuleOnce(t *testing.T) {
	allocs := func(src Source) float64 {
		return testing.AllocsPerRun(3, func() {
			if _, err := Compile(src); err != nil {
				t.Fatal(err)
			}
		})
	}
	for _, apart := range []bool{false, true} {
		one, many := allocs(manyNaming(1, apart)), allocs(manyNaming(51, apart))
		if each := (many - one) / 50; each > 100 {
			t.Errorf("intents apart %v: each sentence more allocates %.0f times (%.0f for 1 sentence, %.0f for 51), as if it read the list again", apart, each, one, many)
		}
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

// TestNeedsShared: while compiling, the clauses of a text already read,
// and of a sequence of one part, are not made again.
func TestNeedsShared(t *testing.T) {
	l := &Language{needMemo: map[needKey][]need{}}
	b := &block{}
	for _, tmpl := range []string{"turn on the light", "(turn on the light)", "[please] turn on"} {
		n, err := parseTemplate(tmpl)
		if err != nil {
			t.Fatal(err)
		}
		n = prepared(n)
		first, err := l.needs(b, n, 0)
		if err != nil {
			t.Fatal(err)
		}
		var again []need
		if allocs := testing.AllocsPerRun(5, func() { again, _ = l.needs(b, n, 0) }); allocs > 2 {
			t.Errorf("%q: reading the clauses again allocates %v times", tmpl, allocs)
		}
		if fmt.Sprint(again) != fmt.Sprint(first) {
			t.Errorf("%q: clauses %v, then %v", tmpl, first, again)
		}
	}
}

// TestParseAllocatesLittlePerWord: a template's plain words cost one
// allocation each, their text; its nodes come in blocks.
func TestParseAllocatesLittlePerWord(t *testing.T) {
	const tmpl = "please turn on the big kitchen light number9 now"
	a := &nodes{}
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := parse(tmpl, false, a); err != nil {
			t.Fatal(err)
		}
	})
	if words := len(strings.Fields(tmpl)); allocs > float64(words+8) {
		t.Errorf("parsing %d words allocates %v times", words, allocs)
	}
	// Escapes and white space other than spaces read as before.
	for in, want := range map[string]string{
		"Turn\tON  the\\ light\t": `["turn " "on " "the light"]`,
		"a\\(b\\) c":              `["a(b) " "c"]`,
		"\\ x":                    `[" x"]`,
		"x \\y":                   `["x " "y"]`,
		"(a\tb|c\\|d) e":          `[(["a " "b"]|["c|d"]) " e"]`,
		"l'Écran  \n allumé":      `["l'écran " "allumé"]`,
		"a\\":                     `["a\"]`,
	} {
		n, err := parse(in, false, a)
		if err != nil {
			t.Fatal(err)
		}
		if got := show(n); got != want {
			t.Errorf("%q parsed as %s, want %s", in, got, want)
		}
	}
}
