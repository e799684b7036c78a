package intent

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// edges is a small language exercising each part of the syntax the way
// Home Assistant's data uses it.
var edges = Source{
	Language:  "en",
	SkipWords: []string{"please", "can you"},
	Rules: map[string]string{
		"the":        "(the|my)",
		"name":       "[<the>] {name}",
		"area":       "[<the>] {area}",
		"light":      "(light|lights|lamp)",
		"brightness": "{brightness}[([ ]%)| percent]",
		"dur":        "({minutes} minute[s])|({seconds} second[s])",
	},
	Lists: map[string]SourceList{
		"brightness":  {Range: &SourceRange{Type: "percentage", From: 0, To: 100}},
		"minutes":     {Range: &SourceRange{From: 1, To: 100}},
		"seconds":     {Range: &SourceRange{From: 1, To: 100}},
		"temperature": {Range: &SourceRange{From: 0, To: 40, Fractions: "halves"}},
		"tenths":      {Range: &SourceRange{From: 1, To: 10, Multiplier: ptr(10)}},
		"color":       {Values: []SourceValue{{In: "red", Out: "red"}, {In: "(blue|azure)", Out: "blue"}, {In: "grey", Out: nil}}},
		"item":        {Wildcard: true},
		"state":       {Values: []SourceValue{{In: "on", Out: "on"}, {In: "(closed|shut)", Out: "closed"}}},
	},
	Intents: map[string]SourceIntent{
		"TurnOn": {Data: []SourceData{
			{Sentences: []string{"turn on <name>", "<name> on"}},
			{Sentences: []string{"turn on [all] [the] <light> in <area>", "turn on [the] <area> <light>"}, Slots: map[string]any{"domain": "light"}},
			{Sentences: []string{"turn on [the] <light> [in here]"}, Slots: map[string]any{"domain": "light"},
				RequiresContext: map[string]any{"area": map[string]any{"slot": true}}},
			{Sentences: []string{"open <name>"}, RequiresContext: map[string]any{"domain": []any{"cover", "valve"}}, Response: "opened"},
		}},
		"TurnOff": {Data: []SourceData{
			{Sentences: []string{"turn off <name>"}, ExcludesContext: map[string]any{"domain": "lock"}},
		}},
		"LightSet": {Data: []SourceData{
			{Sentences: []string{"set <name> [brightness] to <brightness>"}, RequiresContext: map[string]any{"domain": "light"}},
			{Sentences: []string{"(make|set) <name> {color}"}, RequiresContext: map[string]any{"domain": "light"}},
		}},
		"SetTemperature": {Data: []SourceData{{Sentences: []string{"set [the] temperature to {temperature} [degrees]"}}}},
		"Scale":          {Data: []SourceData{{Sentences: []string{"scale {tenths}"}}}},
		"StartTimer": {Data: []SourceData{
			{Sentences: []string{"set a timer for <dur>", "<dur> timer"}},
			{Sentences: []string{"timer (named|called) {item:name} for <dur>"}},
		}},
		"AddItem": {Data: []SourceData{{Sentences: []string{"add {item} to [my] list", "add {item}"}}}},
		"GetState": {Data: []SourceData{
			{Sentences: []string{"is <name> {state}", "is (<name>;{state})"}},
		}},
		"Status": {Data: []SourceData{
			{Sentences: []string{"[timer] status"}, RequiredKeywords: []string{"timer", "timers"}},
		}},
		"Wifi": {Data: []SourceData{{Sentences: []string{"wi fi on"}}}},
	},
}

func ptr(f float64) *float64 { return &f }

func edgeLanguage(t testing.TB) *Language {
	l, err := Compile(edges)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

var house = Options{Lists: map[string]*List{
	"name": NewList([]Value{
		{Text: "Bedroom Lamp", Context: map[string]any{"domain": "light"}},
		{Text: "Garage Door", Context: map[string]any{"domain": "cover"}},
		{Text: "Front Door", Context: map[string]any{"domain": "lock"}},
		{Text: "Kettle", Context: map[string]any{"domain": "switch"}},
		{Text: "[the] Kitchen (Light|Lamp)", Out: "Kitchen Light", Context: map[string]any{"domain": "light"}},
	}),
	"area": NewList([]Value{{Text: "Kitchen"}, {Text: "Living Room"}}),
}}

// slots writes a match's slots sorted: "domain=light name=Bedroom Lamp".
func slots(r Result) string {
	var out []string
	for k, s := range r.Slots {
		out = append(out, fmt.Sprintf("%s=%v", k, s.Value))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}

func TestRecognizeSyntax(t *testing.T) {
	l := edgeLanguage(t)
	for _, tt := range []struct {
		said, intent, slots string
		ctx                 map[string]any
	}{
		{"turn on the bedroom lamp", "TurnOn", "name=Bedroom Lamp", nil},
		{"Turn on Bedroom Lamp!", "TurnOn", "name=Bedroom Lamp", nil},
		{"please, turn on my bedroom lamp", "TurnOn", "name=Bedroom Lamp", nil}, // skip word
		{"can you turn on the bedroom lamp please", "TurnOn", "name=Bedroom Lamp", nil},
		{"bedroom lamp on", "TurnOn", "name=Bedroom Lamp", nil},
		{"turn on the kitchen lamp", "TurnOn", "name=Kitchen Light", nil},                         // a name written as a template
		{"turn on the lights in the living room", "TurnOn", "area=Living Room domain=light", nil}, // fixed slot
		{"turn on the living room lights", "TurnOn", "area=Living Room domain=light", nil},
		{"turn on the lights", "TurnOn", "area=Kitchen domain=light", map[string]any{"area": "Kitchen"}}, // context copied to a slot
		{"turn on the lights in here", "TurnOn", "area=Kitchen domain=light", map[string]any{"area": map[string]any{"value": "Kitchen", "text": "kitchen"}}},
		{"open the garage door", "TurnOn", "name=Garage Door", nil}, // required context from the value: a list of domains
		{"turn off the kettle", "TurnOff", "name=Kettle", nil},
		{"set the bedroom lamp to 50%", "LightSet", "brightness=50 name=Bedroom Lamp", nil},
		{"set the bedroom lamp brightness to 50 %", "LightSet", "brightness=50 name=Bedroom Lamp", nil},
		{"set bedroom lamp to 50 percent", "LightSet", "brightness=50 name=Bedroom Lamp", nil},
		{"set bedroom lamp to fifty percent", "LightSet", "brightness=50 name=Bedroom Lamp", nil}, // a number in words
		{"make the bedroom lamp azure", "LightSet", "color=blue name=Bedroom Lamp", nil},          // a template value with its out
		{"make the bedroom lamp grey", "LightSet", "color=grey name=Bedroom Lamp", nil},           // out is what was said
		{"set the temperature to 21.5 degrees", "SetTemperature", "temperature=21.5", nil},        // halves
		{"set the temperature to 21,5", "SetTemperature", "temperature=21.5", nil},
		{"scale 3", "Scale", "tenths=30", nil}, // multiplier
		{"set a timer for 5 minutes", "StartTimer", "minutes=5", nil},
		{"set a timer for twenty five minutes", "StartTimer", "minutes=25", nil},
		{"5 minute timer", "StartTimer", "minutes=5", nil},
		{"90 seconds timer", "StartTimer", "seconds=90", nil},
		{"timer named pizza oven for 10 minutes", "StartTimer", "minutes=10 name=pizza oven", nil}, // wildcard in the middle
		{"add Oat Milk to my list", "AddItem", "item=Oat Milk", nil},                               // wildcard keeps its case
		{"add eggs and bacon", "AddItem", "item=eggs and bacon", nil},                              // wildcard at the end
		{"is the garage door shut", "GetState", "name=Garage Door state=closed", nil},
		{"is closed the garage door", "GetState", "name=Garage Door state=closed", nil}, // permutation
		{"timer status", "Status", "", nil},
		{"wi-fi on", "Wifi", "", nil}, // a hyphen said for a space
	} {
		o := house
		o.Context = tt.ctx
		r, amb, ok := l.Recognize(tt.said, o)
		if !ok {
			t.Errorf("%q: no match, want %s %s", tt.said, tt.intent, tt.slots)
			continue
		}
		if r.Intent != tt.intent || slots(r) != tt.slots || amb {
			t.Errorf("%q: %s %s (ambiguous %v, template %q), want %s %s", tt.said, r.Intent, slots(r), amb, r.Template, tt.intent, tt.slots)
		}
	}
}

// Nothing matches unless every word is accounted for, the context allows
// it and every value is in its list or range.
func TestRecognizeRefuses(t *testing.T) {
	l := edgeLanguage(t)
	for _, tt := range []struct {
		said string
		ctx  map[string]any
	}{
		{"turn on the bedroom lamp and the kettle", nil}, // more than the template says
		{"turn on the bedroom lamps", nil},               // "lamps" is not the name
		{"turn on the attic lamp", nil},                  // no such name
		{"turn on the lights", nil},                      // no area given
		{"open the kettle", nil},                         // a switch is not a cover
		{"turn off the front door", nil},                 // locks excluded
		{"set the kettle to 50%", nil},                   // brightness is for lights
		{"set bedroom lamp to 150%", nil},                // out of range
		{"set the temperature to 21.3", nil},             // not a half
		{"set a timer for 0 minutes", nil},
		{"status", nil}, // the required keyword missing
		{"add", nil},    // a wildcard takes at least a word
		{"", nil},
		{"please", nil},
		{"wifi on", nil},
	} {
		o := house
		o.Context = tt.ctx
		if r, _, ok := l.Recognize(tt.said, o); ok {
			t.Errorf("%q matched %s %s (template %q), want no match", tt.said, r.Intent, slots(r), r.Template)
		}
	}
}

// The best of several matches fills {name} from the list rather than a
// wildcard, and the same quality from two intents is reported ambiguous.
func TestRecognizeBest(t *testing.T) {
	src := Source{Language: "en", Lists: map[string]SourceList{"any": {Wildcard: true}},
		Intents: map[string]SourceIntent{
			"Named": {Data: []SourceData{{Sentences: []string{"play {name}"}}}},
			"Free":  {Data: []SourceData{{Sentences: []string{"play {any:name}"}}}},
			"A":     {Data: []SourceData{{Sentences: []string{"ping"}}}},
			"B":     {Data: []SourceData{{Sentences: []string{"ping"}}}},
		}}
	l, err := Compile(src)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Lists: map[string]*List{"name": NewList([]Value{{Text: "Radio"}})}}
	if r, amb, _ := l.Recognize("play radio", o); r.Intent != "Named" || amb {
		t.Errorf("play radio: %s ambiguous %v, want Named from the list", r.Intent, amb)
	}
	if r, _, _ := l.Recognize("play jazz", o); r.Intent != "Free" || !r.Slots["name"].Wildcard {
		t.Errorf("play jazz: %s %v, want Free by its wildcard", r.Intent, r.Slots)
	}
	if _, amb, ok := l.Recognize("ping", o); !ok || !amb {
		t.Errorf("ping matched %v, ambiguous %v; want both", ok, amb)
	}
}

func TestCompileErrors(t *testing.T) {
	for name, src := range map[string]Source{
		"unknown rule":      {Intents: map[string]SourceIntent{"X": {Data: []SourceData{{Sentences: []string{"<nope>"}}}}}},
		"unknown list":      {Intents: map[string]SourceIntent{"X": {Data: []SourceData{{Sentences: []string{"{nope}"}}}}}},
		"rule loop":         {Rules: map[string]string{"a": "<b>", "b": "<a>"}, Intents: map[string]SourceIntent{"X": {Data: []SourceData{{Sentences: []string{"<a>"}}}}}},
		"bad template":      {Intents: map[string]SourceIntent{"X": {Data: []SourceData{{Sentences: []string{"(a"}}}}}},
		"bad range":         {Lists: map[string]SourceList{"r": {Range: &SourceRange{From: 5, To: 1}}}},
		"ignore whitespace": {IgnoreWhitespace: true},
	} {
		if _, err := Compile(src); err == nil {
			t.Errorf("%s: compiled, want an error", name)
		}
	}
}
