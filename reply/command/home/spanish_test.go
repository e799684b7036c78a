package home_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/home/hatest"
)

// salon is a flat named in Spanish: a floor lamp, a ceiling light, a
// blind and a fan in the "Salón", a lamp in the "Cocina".
func salon(t *testing.T) *hatest.HA {
	return hatest.New(t, []hatest.Floor{{ID: "baja", Name: "Planta baja"}},
		[]hatest.Area{{ID: "salon", Name: "Salón", Floor: "baja"}, {ID: "cocina", Name: "Cocina", Floor: "baja"}},
		nil,
		[]hatest.Entity{
			entity("light.salon_pie", "Lámpara de pie", "off", "salon"),
			entity("light.salon_techo", "Luz del techo", "off", "salon"),
			entity("cover.salon_persiana", "Persiana", "closed", "salon", "device_class", "blind"),
			entity("fan.salon", "Ventilador", "off", "salon"),
			entity("light.cocina_lampara", "Lámpara", "off", "cocina"),
		})
}

// TestSpanishPluralCommands: a household speaks to the box together, or
// formally, in the plural ("enciendan la luz", "apagad las luces"), which
// Home Assistant's Spanish templates leave out: the plural forms of the
// common verbs do what the singular ones do. The singular still works.
func TestSpanishPluralCommands(t *testing.T) {
	for _, tt := range []struct {
		said  string
		calls string
	}{
		{"enciende la luz de la cocina", "light.turn_on light.cocina_lampara {}"},
		{"enciendan la luz de la cocina", "light.turn_on light.cocina_lampara {}"},
		{"encended la luz de la cocina", "light.turn_on light.cocina_lampara {}"},
		{"prendan la luz de la cocina", "light.turn_on light.cocina_lampara {}"},
		{"apaguen las luces del salón", "light.turn_off light.salon_pie,light.salon_techo {}"},
		{"apagad las luces del salón", "light.turn_off light.salon_pie,light.salon_techo {}"},
		{"apaguen la lámpara de pie", "light.turn_off light.salon_pie {}"},
		{"enciendan el ventilador", "fan.turn_on fan.salon {}"},
		{"abran la persiana", "cover.open_cover cover.salon_persiana {}"},
		{"abrid la persiana", "cover.open_cover cover.salon_persiana {}"},
		{"suban la persiana", "cover.open_cover cover.salon_persiana {}"},
		{"cierren la persiana", "cover.close_cover cover.salon_persiana {}"},
		{"cerrad la persiana", "cover.close_cover cover.salon_persiana {}"},
		{"bajen la persiana", "cover.close_cover cover.salon_persiana {}"},
		{"pongan la lámpara de pie al 50%", `light.turn_on light.salon_pie {"brightness_pct":50}`},
		{"poned la lámpara de pie al 50%", `light.turn_on light.salon_pie {"brightness_pct":50}`},
		{"suban la lámpara de pie al 80%", `light.turn_on light.salon_pie {"brightness_pct":80}`},
		{"bajen la lámpara de pie al 20%", `light.turn_on light.salon_pie {"brightness_pct":20}`},
	} {
		ha := salon(t)
		reg := speakerIn(t, ha, "")
		u := reg.Understand(t.Context(), locale.Spanish, tt.said)
		if !u.OK {
			t.Errorf("%q: not carried out (%s %s: %s)", tt.said, u.Intent, u.Reason, u.Detail)
			continue
		}
		resp := reg.RunRoute(locale.WithLanguage(t.Context(), "es"), u.Route, tt.said)
		if got := strings.Join(ha.CallsMade(), "|"); resp.Kind != command.Success || got != tt.calls {
			t.Errorf("%q: said %q, calls %q, want %q", tt.said, resp.Spoken, got, tt.calls)
		}
	}
}

// TestStateAskedBeforeTheName: a Spanish question may say the state
// before the device ("está encendida kitchen light", "está abierta la
// persiana") or the device first ("kitchen light está encendida"), as
// well as the order Home Assistant's templates have ("está la persiana
// abierta"); the device's name is the house's, English or Spanish.
func TestStateAskedBeforeTheName(t *testing.T) {
	for _, tt := range []struct {
		said, entity, state string
	}{
		{"está encendida kitchen light", "light.kitchen", "on"},
		{"está encendido kitchen light", "light.kitchen", "on"},
		{"está apagada la kitchen light", "light.kitchen", "off"},
		{"está kitchen light encendida", "light.kitchen", "on"},
		{"kitchen light está encendida", "light.kitchen", "on"},
		{"la kitchen light está apagada", "light.kitchen", "off"},
		{"dime si está encendida kitchen light", "light.kitchen", "on"},
	} {
		reg := hatest.Household(t)
		u := reg.Understand(t.Context(), locale.Spanish, tt.said)
		a := u.Route.Claim.Arguments
		if !u.OK || fmt.Sprint(a["entity_id"]) != "["+tt.entity+"]" || a["state"] != tt.state {
			t.Errorf("%q: OK %v, %s %s (%s) %v; want %s asked %s", tt.said, u.OK, u.Intent, u.Reason, u.Detail, a, tt.entity, tt.state)
		}
	}
	for _, tt := range []struct {
		said, entity, state string
	}{
		{"está encendida la lámpara de pie", "light.salon_pie", "on"},
		{"está la lámpara de pie encendida", "light.salon_pie", "on"},
		{"la lámpara de pie está encendida", "light.salon_pie", "on"},
		{"está abierta la persiana", "cover.salon_persiana", "open"},
		{"está la persiana abierta", "cover.salon_persiana", "open"},
		{"la persiana está cerrada", "cover.salon_persiana", "closed"},
	} {
		reg := speakerIn(t, salon(t), "")
		u := reg.Understand(t.Context(), locale.Spanish, tt.said)
		a := u.Route.Claim.Arguments
		if !u.OK || fmt.Sprint(a["entity_id"]) != "["+tt.entity+"]" || a["state"] != tt.state {
			t.Errorf("%q: OK %v, %s %s (%s) %v; want %s asked %s", tt.said, u.OK, u.Intent, u.Reason, u.Detail, a, tt.entity, tt.state)
		}
	}
}
