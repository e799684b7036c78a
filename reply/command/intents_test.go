package command

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/intent"
)

// TestFreeTextNotReadIsNoMatch: a match whose wildcard took words its
// command cannot read ("set" as the number of "X to Y") is no match to
// Understand, as it is none to Intents; the words it can read are
// understood, and a slot it cannot resolve that is no free text is still
// unresolved.
func TestFreeTextNotReadIsNoMatch(t *testing.T) {
	units := []string{"miles", "kilometres"}
	r := NewRegistry(Options{})
	c := &Command{Name: "convert_measurement", Description: "a converter of miles and kilometres",
		Parameters: []Parameter{{Name: "value", Type: "float", Required: true},
			{Name: "from_unit", Type: "string", Required: true}, {Name: "to_unit", Type: "string", Required: true}},
		Intents: []string{"convert_measurement"},
		FromIntent: func(_ context.Context, m Match) (Claim, error) {
			v, err := strconv.ParseFloat(m.String("value"), 64)
			if err != nil {
				return Claim{}, Unresolved("value", "not a number")
			}
			for _, s := range []string{"from_unit", "to_unit"} {
				if !slices.Contains(units, m.String(s)) {
					return Claim{}, Unresolved(s, "not a unit")
				}
			}
			return Claim{Arguments: map[string]any{"value": v, "from_unit": m.String("from_unit"), "to_unit": m.String("to_unit")}}, nil
		},
		Run: func(context.Context, Call) (Response, error) { return Response{Kind: Success}, nil }}
	if err := r.Register(c); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		said   string
		ok     bool
		reason Reason
		intent string // Understood.Intent, and the one intent Intents gives; "" for none
	}{
		{"convert 5 miles to kilometres", true, "", "convert_measurement"},
		{"what is 5 miles in kilometres", true, "", "convert_measurement"},
		{"set the floor lamp to 50%", false, NoMatch, ""},
		{"set the thermostat in the living room to 20 degrees", false, NoMatch, ""},
		{"convert 5 parsecs to kilometres", false, NoMatch, ""},
	} {
		u := r.Understand(t.Context(), locale.English, tt.said)
		if u.OK != tt.ok || u.Reason != tt.reason || u.Intent != tt.intent {
			t.Errorf("%q: understood OK %v, %q %q (%s), want OK %v, %q %q", tt.said, u.OK, u.Intent, u.Reason, u.Detail, tt.ok, tt.intent, tt.reason)
		}
		var want []string
		if tt.intent != "" {
			want = []string{tt.intent}
		}
		if got := r.Intents(t.Context(), locale.English, tt.said); !slices.Equal(got, want) {
			t.Errorf("%q: intents %q, want %q", tt.said, got, want)
		}
	}
}

type zoneHouse struct{}

func (zoneHouse) Lists(context.Context) (map[string]*intent.List, error) {
	return map[string]*intent.List{
		"name": intent.NewList([]intent.Value{{Text: "Office", Out: "Office", Context: map[string]any{"domain": "zone"}},
			{Text: "Lamp", Out: "Lamp", Context: map[string]any{"domain": "light"}}}),
		"area": intent.NewList([]intent.Value{{Text: "Kitchen", Out: "Kitchen"}}),
	}, nil
}

// A place said as free text ("who is [in] [the] {zone}") tells the
// house's questions only when the house has a zone, room or floor of that
// name: "who is the president of France" is no question of the house.
func TestIntentsTakeOnlyTheHousesPlaces(t *testing.T) {
	for _, c := range []struct {
		lists Lister
		lang  locale.Lang
		say   string
		want  bool // HassGetState among the intents
	}{
		{zoneHouse{}, locale.English, "who is in the office", true},
		{zoneHouse{}, locale.English, "who is in the kitchen", true},
		{zoneHouse{}, locale.German, "wer ist in der Küche", false},
		{zoneHouse{}, locale.English, "who is the president of France", false},
		{zoneHouse{}, locale.English, "who is in the lamp", false},
		{zoneHouse{}, locale.German, "wer ist der Präsident von Frankreich", false},
		{nil, locale.English, "who is in the office", false},
	} {
		r := NewRegistry(Options{Lists: c.lists})
		if got := slices.Contains(r.Intents(t.Context(), c.lang, c.say), "HassGetState"); got != c.want {
			t.Errorf("%s %q (lists %v): HassGetState %v, want %v", c.lang, c.say, c.lists != nil, got, c.want)
		}
	}
}
