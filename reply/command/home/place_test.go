package home_test

import (
	"strings"
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/home/hatest"
)

// termostatos is a flat whose living room's thermostat is called by the
// generic word, "Termostato" or "Thermostat", and whose kitchen's is
// called "Nest".
func termostatos(t *testing.T) *hatest.HA {
	return hatest.New(t, []hatest.Floor{{ID: "baja", Name: "Planta baja"}},
		[]hatest.Area{{ID: "salon", Name: "Salón", Floor: "baja"}, {ID: "cocina", Name: "Cocina", Floor: "baja"},
			{ID: "living_room", Name: "Living Room", Floor: "baja"}, {ID: "kitchen", Name: "Kitchen", Floor: "baja"}},
		nil,
		[]hatest.Entity{
			entity("climate.salon", "Termostato", "heat", "salon", "temperature", 21),
			entity("climate.cocina", "Nest", "heat", "cocina", "temperature", 19),
			entity("climate.living_room", "Thermostat", "heat", "living_room", "temperature", 21),
			entity("climate.kitchen", "Nest Kitchen", "heat", "kitchen", "temperature", 19),
		})
}

// TestAreaSaidBeatsANameElsewhere: "el termostato de la cocina" is the
// kitchen's thermostat, though the one called "Termostato" is in the
// living room: the area said wins over a name that matches elsewhere, as
// the generic word with the area. The name still wins where it is, or
// with no area said.
func TestAreaSaidBeatsANameElsewhere(t *testing.T) {
	for _, tt := range []struct {
		lang  locale.Lang
		said  string
		calls string
	}{
		{locale.Spanish, "pon el termostato de la cocina a 20 grados", `climate.set_temperature climate.cocina {"temperature":20}`},
		{locale.Spanish, "pon el termostato en la cocina a 20 grados", `climate.set_temperature climate.cocina {"temperature":20}`},
		{locale.Spanish, "pon el termostato del salón a 20 grados", `climate.set_temperature climate.salon {"temperature":20}`},
		{locale.English, "set the thermostat in the kitchen to 20 degrees", `climate.set_temperature climate.kitchen {"temperature":20}`},
		{locale.English, "set the kitchen thermostat to 20 degrees", `climate.set_temperature climate.kitchen {"temperature":20}`},
		{locale.English, "set the living room thermostat to 20 degrees", `climate.set_temperature climate.living_room {"temperature":20}`},
		{locale.English, "set the thermostat to 20 degrees", `climate.set_temperature climate.living_room {"temperature":20}`},
	} {
		ha := termostatos(t)
		reg := speakerIn(t, ha, "")
		u := reg.Understand(t.Context(), tt.lang, tt.said)
		if !u.OK {
			t.Errorf("%s %q: not carried out (%s %s: %s)", tt.lang, tt.said, u.Intent, u.Reason, u.Detail)
			continue
		}
		resp := reg.RunRoute(locale.WithLanguage(t.Context(), string(tt.lang)), u.Route, tt.said)
		got := strings.Join(ha.CallsMade(), "|")
		if resp.Kind != command.Success || got != tt.calls {
			t.Errorf("%s %q: said %q, calls %q (%v), want %q", tt.lang, tt.said, resp.Spoken, got, u.Route.Claim.Arguments, tt.calls)
		}
	}
}

// TestCoversOfAnAreaSaidWithEn: "ferme les volets en cuisine" closes the
// kitchen's shutters, as "de la cuisine" and "dans la cuisine" do; a
// cover named with "en" and its area is that one.
func TestCoversOfAnAreaSaidWithEn(t *testing.T) {
	for _, tt := range []struct {
		said, calls string
	}{
		{"ferme les volets en cuisine", "cover.close_cover cover.cuisine_volet,cover.cuisine_store {}"},
		{"ouvre les volets en cuisine", "cover.open_cover cover.cuisine_volet,cover.cuisine_store {}"},
		{"ferme les volets de la cuisine", "cover.close_cover cover.cuisine_volet,cover.cuisine_store {}"},
		{"ferme les volets dans la cuisine", "cover.close_cover cover.cuisine_volet,cover.cuisine_store {}"},
		{"ferme le store en cuisine", "cover.close_cover cover.cuisine_store {}"},
	} {
		ha := hogar(t)
		reg := speakerIn(t, ha, "")
		u := reg.Understand(t.Context(), locale.French, tt.said)
		if !u.OK {
			t.Errorf("%q: not carried out (%s %s: %s)", tt.said, u.Intent, u.Reason, u.Detail)
			continue
		}
		resp := reg.RunRoute(locale.WithLanguage(t.Context(), "fr"), u.Route, tt.said)
		if got := strings.Join(ha.CallsMade(), "|"); resp.Kind != command.Success || got != tt.calls {
			t.Errorf("%q: said %q, calls %q, want %q", tt.said, resp.Spoken, got, tt.calls)
		}
	}
}
