package reply

import (
	"context"
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/intent"
	"github.com/harkbox/hark/locale/intent/intenttest"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
)

// TestTypedLanguageOfHouseholdSentences: typed text is answered in its
// language; measured on Home Assistant's labelled sentences
// (HARK_HA_TESTS), whose language is known, against the word detector
// alone.
func TestTypedLanguageOfHouseholdSentences(t *testing.T) {
	dir := intenttest.Dir()
	if dir == "" {
		t.Skip("no labelled sentences: set " + intenttest.Env)
	}
	for _, l := range locale.All {
		house, cases, err := intenttest.Load(dir, string(l))
		if err != nil {
			t.Fatal(err)
		}
		reg := command.NewRegistry(command.Options{Lists: fixedLists(house.Lists())})
		if err := reg.Register(builtin.All(builtin.Deps{Mixer: noMixer{}})...); err != nil {
			t.Fatal(err)
		}
		e := &Engine{o: Options{Commands: reg}}
		wrong, wrongBefore := 0, 0
		for _, c := range cases {
			if got, _ := e.language(t.Context(), Query{Text: c.Sentence}); got != l {
				wrong++
			}
			if got, ok := locale.Detect(c.Sentence); !ok || got != l {
				if l != locale.English || ok { // English is the fallback
					wrongBefore++
				}
			}
		}
		t.Logf("%s: %d of %d typed sentences read as another language (%d by the word detector alone)", l, wrong, len(cases), wrongBefore)
		if wrong > len(cases)*4/100 {
			t.Errorf("%s: %d of %d in another language, want at most 4 %%", l, wrong, len(cases))
		}
	}
}

// fixedLists is a house's lists, as the house's Lister gives them.
type fixedLists map[string]*intent.List

func (f fixedLists) Lists(context.Context) (map[string]*intent.List, error) { return f, nil }
