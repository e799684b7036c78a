package intent

import "testing"

// TestMoreRulesWiden: a source's more rules add alternatives to the rules
// of the source it is merged into, so every template saying the rule
// hears them, and what the rule said still matches; a more rule with no
// rule of its name is the rule.
func TestMoreRulesWiden(t *testing.T) {
	base := Source{
		Language: "es",
		Rules:    map[string]string{"enciende": "(enciende|prende)", "luz": "[la] luz"},
		Intents: map[string]SourceIntent{"TurnOn": {Data: []SourceData{
			{Sentences: []string{"<enciende> <luz>"}},
			{Sentences: []string{"<apaga> <luz>"}},
		}}},
	}
	base.Merge(Source{MoreRules: map[string]string{"enciende": "(enciendan|encended)", "apaga": "apaguen"}})
	l, err := Compile(base)
	if err != nil {
		t.Fatal(err)
	}
	for said, want := range map[string]bool{
		"enciende la luz": true, "prende la luz": true, "enciendan la luz": true, "encended luz": true,
		"apaguen la luz": true, "enciendo la luz": false,
	} {
		if _, _, ok := l.Recognize(said, Options{}); ok != want {
			t.Errorf("%q matched %v, want %v", said, ok, want)
		}
	}
}
