package intent

import (
	"strings"
	"testing"
)

// show writes a parsed template back in a canonical form, for tests:
// seq as "a b", alt as (x|y), perm as <perm ...>, lists {l:s}, rules <r>,
// text in quotes.
func show(n *node) string {
	switch n.kind {
	case text:
		return `"` + n.text + `"`
	case list:
		end := ""
		if n.wordEnd {
			end = "."
		}
		return "{" + n.text + ":" + n.slot + "}" + end
	case rule:
		return "<" + n.text + ">"
	}
	var parts []string
	for _, it := range n.items {
		parts = append(parts, show(it))
	}
	switch n.kind {
	case alt:
		return "(" + strings.Join(parts, "|") + ")"
	case perm:
		return "perm(" + strings.Join(parts, ";") + ")"
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func TestParseTemplate(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"turn on the light", `["turn " "on " "the " "light"]`},
		{"Turn  ON", `["turn " "on"]`},
		{"light[s]", `["light" (["s"]|"")]`},
		{"light [s]", `["light " (["s"]|"")]`},
		{"(red|green|blue)", `[(["red"]|["green"]|["blue"])]`},
		{"[the|a] lamp", `[(["the"]|["a"]|"") " lamp"]`},
		{"set {brightness}%", `["set " {brightness:brightness} "%"]`},
		{"play {search_query} on {name}", `["play " {search_query:search_query}. " on " {name:name}]`},
		{"{timer_minutes:minutes} minute[s]", `[{timer_minutes:minutes}. " minute" (["s"]|"")]`},
		{"<turn> on <name>", `[<turn> " on " <name>]`},
		{"(is;on)", `[perm([" " "is" " "];[" " "on" " "])]`},
		{`what\'s \(new\)`, `["what's " "(new)"]`},
		{"[[the] color of] lamp", `[([(["the"]|"") " color " "of"]|"") " lamp"]`},
		{"Licht in der Küche", `["licht " "in " "der " "küche"]`},
	} {
		n, err := parseTemplate(tt.in)
		if err != nil {
			t.Errorf("%q: %v", tt.in, err)
			continue
		}
		if got := show(n); got != tt.want {
			t.Errorf("%q parsed as %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestParseTemplateErrors(t *testing.T) {
	for _, in := range []string{"(a|b", "[a", "a)", "{name", "<rule", "{}", "(a|b;c)", "a]"} {
		if n, err := parseTemplate(in); err == nil {
			t.Errorf("%q parsed as %s, want an error", in, show(n))
		}
	}
}

func TestExpand(t *testing.T) {
	got := strings.Join(Expand("[the] Kitchen (Light|Lamp)[s]"), ",")
	want := "the Kitchen Lights,the Kitchen Light,the Kitchen Lamps,the Kitchen Lamp,Kitchen Lights,Kitchen Light,Kitchen Lamps,Kitchen Lamp"
	if got != want {
		t.Errorf("Expand gave %s, want %s", got, want)
	}
	if got := Expand("Trader Joe[']s"); len(got) != 2 || got[0] != "Trader Joe's" || got[1] != "Trader Joes" {
		t.Errorf("Expand of an apostrophe gave %q", got)
	}
}

// TestNormText: template text is lowercased, composed, its apostrophes
// plain and its spaces single; text that is so already is kept as it is,
// with no copy made.
func TestNormText(t *testing.T) {
	for in, want := range map[string]string{
		"Turn  ON\tthe’s":    "turn on the's",
		"e\u0301cran":        "écran",
		"Écran\n\nallumé":    "écran allumé",
		"turn on the light ": "turn on the light ",
		"écran allumé":       "écran allumé",
		"":                   "",
	} {
		if got := normText(in); got != want {
			t.Errorf("normText(%q) = %q, want %q", in, got, want)
		}
	}
	for _, s := range []string{"turn on the light ", "schalte das licht ein", "écran allumé", "¿qué hora es?"} {
		if n := testing.AllocsPerRun(10, func() { normText(s) }); n != 0 {
			t.Errorf("normText(%q) allocates %v times, want 0", s, n)
		}
	}
}
