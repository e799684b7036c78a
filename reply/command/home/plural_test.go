package home_test

import (
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
