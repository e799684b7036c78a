package intent

import (
	"slices"
	"strings"
	"testing"
)

// skippedByWords are the sentences whose intents say a skip word, read
// the way the keyword router reads an intent's words: through Words.
func skippedByWords(l *Language, skipWords []string) []int32 {
	skips := map[string]bool{}
	for _, w := range skipWords {
		for _, f := range strings.Fields(normText(w)) {
			skips[f] = true
		}
	}
	says := map[string]bool{}
	for _, ci := range l.intents {
		core, extra := l.Words(ci.name)
		if slices.ContainsFunc(append(core, extra...), func(w string) bool { return skips[w] }) {
			says[ci.name] = true
		}
	}
	var out []int32
	for i, s := range l.all {
		if says[s.blk.intent] {
			out = append(out, int32(i))
		}
	}
	return out
}

// TestSkippedAsWordsSay: the sentences tried again with their skip words
// are those of the intents whose words, as Words reads them, hold a skip
// word, in every language and for words written in pieces.
func TestSkippedAsWordsSay(t *testing.T) {
	pieces := Source{
		Language:  "en",
		SkipWords: []string{"please", "can you", "i'd like"},
		Rules:     map[string]string{"plea": "(plea|plee)", "ask": "do please now"},
		Lists: map[string]SourceList{
			"polite": {Values: []SourceValue{{In: "pl(ease|ain)"}}},
		},
		Intents: map[string]SourceIntent{
			"Joined":   {Data: []SourceData{{Sentences: []string{"<plea>(se|sed) stop"}}}},
			"Listed":   {Data: []SourceData{{Sentences: []string{"{polite} go"}}}},
			"Quoted":   {Data: []SourceData{{Sentences: []string{"'i'[d] like' tea"}}}},
			"Inner":    {Data: []SourceData{{Sentences: []string{"so ca[n] you (sing|dance)"}}}},
			"Apart":    {Data: []SourceData{{Sentences: []string{"plea se ca n"}}}},
			"Hyphened": {Data: []SourceData{{Sentences: []string{"pl-ease"}}}},
			"Asked":    {Data: []SourceData{{Sentences: []string{"<ask> sing"}}}},
			"Asked2":   {Data: []SourceData{{Sentences: []string{"<ask> dance"}}}},
		},
	}
	sources := []Source{pieces}
	for _, lang := range []string{"en", "de", "es", "fr"} {
		src, err := Embedded(lang)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, src)
	}
	for _, src := range sources {
		l, err := Compile(src)
		if err != nil {
			t.Fatal(err)
		}
		want := skippedByWords(l, src.SkipWords)
		if len(want) == 0 || len(want) == len(l.all) {
			t.Errorf("%s: %d of %d sentences say a skip word, a poor check", src.Language, len(want), len(l.all))
		}
		if !slices.Equal(l.skipped, want) {
			t.Errorf("%s: skipped %d sentences, Words say %d", src.Language, len(l.skipped), len(want))
		}
	}
}

// TestCompileLeavesWords: Compile reads no intent's words; the keyword
// router reads them when it needs them.
func TestCompileLeavesWords(t *testing.T) {
	src, err := Embedded("en")
	if err != nil {
		t.Fatal(err)
	}
	l, err := Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	l.words.Range(func(k, _ any) bool {
		t.Errorf("Compile read the words of %v", k)
		return false
	})
	if core, _ := l.Words("HassTurnOn"); !slices.Contains(core, "turn") {
		t.Errorf("HassTurnOn's words are %v, want turn among them", core)
	}
}
