package intent_test

import (
	"fmt"
	"sort"
	"testing"

	"github.com/harkbox/hark/locale/intent"
	"github.com/harkbox/hark/locale/intent/intenttest"
)

// check applies Home Assistant's own test of a labelled sentence to a
// match: the intent, every slot wanted with its value, no slot more, and
// the context when the test names one.
func check(r intent.Result, c intenttest.Case) error {
	if r.Intent != c.Intent {
		return fmt.Errorf("intent %s, want %s", r.Intent, c.Intent)
	}
	for name, s := range r.Slots {
		want, ok := c.Slots[name]
		if !ok {
			return fmt.Errorf("slot %s=%v not wanted", name, s.Value)
		}
		if !intenttest.Same(s.Value, want) {
			return fmt.Errorf("slot %s=%v, want %v", name, s.Value, want)
		}
	}
	for name := range c.Slots {
		if !r.Has(name) {
			return fmt.Errorf("slot %s missing", name)
		}
	}
	return nil
}

// TestLabelledSentences matches Home Assistant's labelled test sentences
// (HARK_HA_TESTS=.../intents/tests) as its own test harness does and
// reports the share matched per language; it fails when a language falls
// under 97 %.
func TestLabelledSentences(t *testing.T) {
	dir := intenttest.Dir()
	if dir == "" {
		t.Skip("no labelled sentences: set " + intenttest.Env + " to the tests folder of Home Assistant's intents repository")
	}
	for _, lang := range []string{"en", "de", "fr", "es"} {
		l, err := intent.Load(lang)
		if err != nil {
			t.Fatal(err)
		}
		house, cases, err := intenttest.Load(dir, lang)
		if err != nil {
			t.Fatal(err)
		}
		lists := house.Lists()
		var ok, held, heldOK int
		fails := map[string]int{}
		for _, c := range cases {
			ctx := map[string]any{}
			for k, v := range c.Context {
				ctx[k] = v
			}
			r, _, matched := l.Recognize(c.Sentence, intent.Options{Lists: lists, Context: ctx})
			var err error
			if !matched {
				err = fmt.Errorf("no match")
			} else {
				err = check(r, c)
			}
			if c.HeldOut {
				held++
			}
			if err == nil {
				ok++
				if c.HeldOut {
					heldOK++
				}
				continue
			}
			fails[c.File]++
			if !c.HeldOut && testing.Verbose() {
				t.Logf("%s %s %q: %v (template %q)", lang, c.File, c.Sentence, err, r.Template)
			}
		}
		var worst []string
		for f, n := range fails {
			worst = append(worst, fmt.Sprintf("%s:%d", f, n))
		}
		sort.Strings(worst)
		t.Logf("%s: %d of %d labelled sentences matched as labelled (%.1f %%); held-out half %d of %d (%.1f %%); failures by file %v",
			lang, ok, len(cases), 100*float64(ok)/float64(len(cases)), heldOK, held, 100*float64(heldOK)/float64(held), worst)
		if float64(ok) < 0.97*float64(len(cases)) {
			t.Errorf("%s: %d of %d matched, want 97 %%", lang, ok, len(cases))
		}
	}
}
