package home_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/home/hatest"
)

// TestStateSaidInTheLanguage: how a device is, asked offline of the box
// in the household's kitchen or asked by the model through home_state, is
// said in the language spoken, its state word translated and, in Spanish
// and French, agreeing with the device ("Lumière du salon est éteinte",
// "Persiana está abierta"), not Home Assistant's own word ("off").
func TestStateSaidInTheLanguage(t *testing.T) {
	for _, tt := range []struct {
		lang    locale.Lang
		asked   string // offline, through the templates; "" when not asked so
		want    string
		entity  string // as the model names it to home_state
		wantRaw string // home_state's answer
	}{
		{locale.English, "is the kitchen light on", "No, Kitchen light is off.", "kitchen light", "Kitchen light is off."},
		{locale.English, "what is the state of the kitchen speaker", "Kitchen speaker is playing.", "kitchen speaker", "Kitchen speaker is playing."},
		{locale.German, "ist die kitchen light an", "Nein, Kitchen light ist aus.", "kitchen light", "Kitchen light ist aus."},
		{locale.Spanish, "cuál es el estado de kitchen light", "Kitchen light está apagado.", "kitchen light", "Kitchen light está apagado."},
		{locale.Spanish, "", "", "kitchen speaker", "Kitchen speaker está reproduciendo."},
		// no article before an English name: the state word said agrees
		{locale.Spanish, "está encendida kitchen light", "No, Kitchen light está apagada.", "kitchen light", "Kitchen light está apagada."},
		{locale.Spanish, "está encendido kitchen light", "No, Kitchen light está apagado.", "kitchen light", "Kitchen light está apagado."},
		{locale.French, "kitchen light est allumée", "Non, Kitchen light est éteinte.", "kitchen light", "Kitchen light est éteinte."},
		{locale.French, "est-ce que la lumière du salon est allumée", "Non, Lumière du salon est éteinte.", "lumière du salon", "Lumière du salon est éteinte."},
		{locale.French, "", "", "kitchen speaker", "Kitchen speaker est en lecture."},
	} {
		reg := hatest.Household(t)
		ctx := locale.WithLanguage(t.Context(), string(tt.lang))
		if tt.asked != "" {
			u := reg.Understand(t.Context(), tt.lang, tt.asked)
			if !u.OK {
				t.Errorf("%s %q: not understood (%s %s: %s)", tt.lang, tt.asked, u.Intent, u.Reason, u.Detail)
			} else if resp := reg.RunRoute(ctx, u.Route, tt.asked); resp.Spoken != tt.want {
				t.Errorf("%s %q offline: said %q, want %q", tt.lang, tt.asked, resp.Spoken, tt.want)
			}
		}
		resp := reg.Call(ctx, "home_state", map[string]any{"entity": tt.entity}, tt.asked)
		if resp.Kind != command.Success || resp.Spoken != tt.wantRaw {
			t.Errorf("%s home_state %q: said %q (%v), want %q", tt.lang, tt.entity, resp.Spoken, resp.Kind, tt.wantRaw)
		}
	}
}

// TestStateAgreesWithTheDevice: home_state's answer in Spanish and French
// agrees with the device's gender, from the article said before its name
// or from the name, and says an unavailable device so.
func TestStateAgreesWithTheDevice(t *testing.T) {
	ha := hatest.New(t, []hatest.Floor{{ID: "baja", Name: "Planta baja"}},
		[]hatest.Area{{ID: "salon", Name: "Salón", Floor: "baja"}}, nil,
		[]hatest.Entity{
			entity("cover.persiana", "Persiana", "open", "salon", "device_class", "blind"),
			entity("light.lampara", "Lámpara de pie", "unavailable", "salon"),
			entity("light.plafonnier", "Plafonnier", "off", "salon"),
			entity("light.lampe", "Lampe", "on", "salon"),
			entity("climate.nest", "Nest", "off", "salon"),
		})
	reg := speakerIn(t, ha, "")
	for _, tt := range []struct {
		lang               locale.Lang
		said, entity, want string
	}{
		{locale.Spanish, "está abierta la persiana", "persiana", "Persiana está abierta."},
		{locale.Spanish, "cómo está la lámpara de pie", "lámpara de pie", "Lámpara de pie no está disponible."},
		{locale.Spanish, "está encendida la nest", "nest", "Nest está apagada."},
		{locale.Spanish, "está encendido el nest", "nest", "Nest está apagado."},
		{locale.French, "le plafonnier est allumé", "plafonnier", "Plafonnier est éteint."},
		{locale.French, "la lampe est allumée", "lampe", "Lampe est allumée."},
		{locale.German, "ist die Lampe an", "lampe", "Lampe ist an."},
	} {
		ctx := locale.WithLanguage(t.Context(), string(tt.lang))
		resp := reg.Call(ctx, "home_state", map[string]any{"entity": tt.entity}, tt.said)
		if resp.Kind != command.Success || resp.Spoken != tt.want {
			t.Errorf("%s %q: said %q (%v), want %q", tt.lang, tt.said, resp.Spoken, resp.Kind, tt.want)
		}
	}
}

// TestWeatherConditionSaidInTheLanguage: a weather entity asked about by
// name, offline, says its condition in words of the language spoken
// ("partly cloudy", "teils bewölkt"), not Home Assistant's key
// ("partlycloudy"), and so does home_state, the model's question; a
// condition Hark has no words for is said as words.
func TestWeatherConditionSaidInTheLanguage(t *testing.T) {
	conditions := []struct {
		state          string
		en, de, es, fr string
	}{
		{"sunny", "sunny", "sonnig", "soleado", "ensoleillé"},
		{"clear-night", "clear", "klarer Himmel", "despejado", "ciel dégagé"},
		{"partlycloudy", "partly cloudy", "teils bewölkt", "parcialmente nublado", "partiellement nuageux"},
		{"cloudy", "cloudy", "bewölkt", "nublado", "nuageux"},
		{"fog", "foggy", "Nebel", "niebla", "brouillard"},
		{"rainy", "rainy", "Regen", "lluvia", "pluie"},
		{"pouring", "pouring rain", "Starkregen", "lluvia torrencial", "pluie battante"},
		{"lightning", "thunderstorms", "Gewitter", "tormentas", "orages"},
		{"lightning-rainy", "thunderstorms with rain", "Gewitter mit Regen", "tormentas con lluvia", "orages et pluie"},
		{"snowy", "snowy", "Schnee", "nieve", "neige"},
		{"snowy-rainy", "sleet", "Schneeregen", "aguanieve", "neige fondue"},
		{"hail", "hail", "Hagel", "granizo", "grêle"},
		{"windy", "windy", "windig", "viento", "vent"},
		{"windy-variant", "windy and cloudy", "windig und bewölkt", "viento y nubes", "vent et nuages"},
		{"exceptional", "exceptional weather", "außergewöhnliches Wetter", "tiempo excepcional", "temps exceptionnel"},
		{"volcanic-ash", "volcanic ash", "volcanic ash", "volcanic ash", "volcanic ash"},
	}
	for _, tt := range []struct {
		lang   locale.Lang
		asked  string
		answer string // with the condition's words for %s
		word   func(i int) string
	}{
		{locale.English, "what is the weather in Lakeside", "Lakeside: %s, 18 degrees.", func(i int) string { return conditions[i].en }},
		{locale.German, "wie ist das Wetter in Lakeside", "Lakeside: %s, 18 Grad.", func(i int) string { return conditions[i].de }},
		{locale.Spanish, "qué tiempo hace en Lakeside", "Lakeside: %s, 18 grados.", func(i int) string { return conditions[i].es }},
		{locale.French, "quel temps fait-il à Lakeside", "Lakeside : %s, 18 degrés.", func(i int) string { return conditions[i].fr }},
	} {
		ha := hatest.New(t, []hatest.Floor{{ID: "ground", Name: "Ground floor"}},
			[]hatest.Area{{ID: "kitchen", Name: "Kitchen", Floor: "ground"}}, nil,
			[]hatest.Entity{
				entity("light.kitchen", "Kitchen light", "off", "kitchen"),
				entity("weather.lakeside", "Lakeside", "sunny", "", "temperature", 18),
			})
		reg := speakerIn(t, ha, "Kitchen")
		ctx := locale.WithLanguage(t.Context(), string(tt.lang))
		for i, c := range conditions {
			ha.Lock()
			ha.Entities[1].State = c.state
			ha.Unlock()
			u := reg.Understand(t.Context(), tt.lang, tt.asked)
			if !u.OK {
				t.Errorf("%s %q: not understood (%s %s: %s)", tt.lang, tt.asked, u.Intent, u.Reason, u.Detail)
				break
			}
			want := fmt.Sprintf(tt.answer, tt.word(i))
			if resp := reg.RunRoute(ctx, u.Route, tt.asked); resp.Spoken != want {
				t.Errorf("%s %q when %s: said %q, want %q", tt.lang, tt.asked, c.state, resp.Spoken, want)
			}
			// The model asking home_state about it hears the same words.
			if resp := reg.Call(ctx, "home_state", map[string]any{"entity": "lakeside"}, tt.asked); resp.Spoken != want {
				t.Errorf("%s home_state when %s: said %q, want %q", tt.lang, c.state, resp.Spoken, want)
			}
		}
	}
}

// TestHVACModeSaidInTheLanguage: a thermostat's state is its HVAC mode,
// said as a mode in the language spoken: Home Assistant's "dry" is the
// mode that dries the air, not the word a moisture sensor says ("seco").
func TestHVACModeSaidInTheLanguage(t *testing.T) {
	modes := []struct {
		state          string
		en, de, es, fr string
	}{
		{"off", "off", "aus", "apagado", "éteint"},
		{"heat", "in heating mode", "im Heizmodus", "en modo calefacción", "en mode chauffage"},
		{"cool", "in cooling mode", "im Kühlmodus", "en modo refrigeración", "en mode climatisation"},
		{"heat_cool", "in heating and cooling mode", "im Heiz- und Kühlmodus", "en modo calefacción y refrigeración", "en mode chauffage et climatisation"},
		{"auto", "in automatic mode", "im Automatikmodus", "en modo automático", "en mode automatique"},
		{"dry", "in dehumidifying mode", "im Entfeuchtungsmodus", "en modo deshumidificar", "en mode déshumidification"},
		{"fan_only", "in fan only mode", "im Nur-Lüfter-Modus", "en modo solo ventilador", "en mode ventilation seule"},
	}
	for _, tt := range []struct {
		lang   locale.Lang
		asked  string
		answer string
		word   func(i int) string
	}{
		{locale.English, "what is the state of the kitchen thermostat", "Kitchen thermostat is %s.", func(i int) string { return modes[i].en }},
		{locale.German, "wie ist der Zustand von kitchen thermostat", "Kitchen thermostat ist %s.", func(i int) string { return modes[i].de }},
		{locale.Spanish, "cuál es el estado de kitchen thermostat", "Kitchen thermostat está %s.", func(i int) string { return modes[i].es }},
		{locale.French, "quel est l'état de kitchen thermostat", "Kitchen thermostat est %s.", func(i int) string { return modes[i].fr }},
	} {
		ctx := locale.WithLanguage(t.Context(), string(tt.lang))
		for j, m := range modes {
			ha := hatest.Small(t) // home_state reads the house it has read
			i := slices.IndexFunc(ha.Entities, func(e hatest.Entity) bool { return e.ID == "climate.kitchen" })
			ha.Entities[i].State = m.state
			reg := speakerIn(t, ha, "Kitchen")
			want := fmt.Sprintf(tt.answer, tt.word(j))
			u := reg.Understand(t.Context(), tt.lang, tt.asked)
			if !u.OK {
				t.Errorf("%s %q: not understood (%s %s: %s)", tt.lang, tt.asked, u.Intent, u.Reason, u.Detail)
			} else if resp := reg.RunRoute(ctx, u.Route, tt.asked); resp.Spoken != want {
				t.Errorf("%s %q when %s: said %q, want %q", tt.lang, tt.asked, m.state, resp.Spoken, want)
			}
			resp := reg.Call(ctx, "home_state", map[string]any{"entity": "kitchen thermostat"}, tt.asked)
			if resp.Kind != command.Success || resp.Spoken != want {
				t.Errorf("%s home_state when %s: said %q (%v), want %q", tt.lang, m.state, resp.Spoken, resp.Kind, want)
			}
		}
	}
}

// TestStateIsReadNow: home_state reads the device as it is now, like the
// question asked offline: a light switched on at the wall a moment after
// it was asked about is on when asked again, not off from the state list
// read the first time; and with Home Assistant gone it says so, not that
// the device is gone.
func TestStateIsReadNow(t *testing.T) {
	ha := hatest.Small(t)
	reg := speakerIn(t, ha, "")
	ask := func() command.Response {
		return reg.Call(t.Context(), "home_state", map[string]any{"entity": "kitchen light"}, "is the kitchen light on")
	}
	if resp := ask(); resp.Spoken != "Kitchen light is off." {
		t.Fatalf("first: said %q (%v)", resp.Spoken, resp.Kind)
	}
	ha.Lock()
	ha.Entities[0].State = "on" // switched at the wall: no call through Hark
	ha.Unlock()
	if resp := ask(); resp.Spoken != "Kitchen light is on." {
		t.Errorf("after the light was switched on: said %q (%v), want it on", resp.Spoken, resp.Kind)
	}
	ha.Lock()
	ha.Token = "revoked"
	ha.Unlock()
	if resp := ask(); resp.Kind != command.Failure || strings.Contains(resp.Spoken, "gone") {
		t.Errorf("Home Assistant refusing: said %q (%v), want a failure that does not say the device is gone", resp.Spoken, resp.Kind)
	}
}

// TestHVACActionSaid: a thermostat that reports what it is doing right
// now (Home Assistant's hvac_action: heating, cooling, idle) says so after
// its mode and the temperature it is set to, in the language spoken,
// asked offline and through home_state alike; one that reports neither
// says its mode alone.
func TestHVACActionSaid(t *testing.T) {
	for _, tt := range []struct {
		lang   locale.Lang
		asked  string
		attrs  map[string]any
		answer string
	}{
		{locale.English, "what is the state of the kitchen thermostat", map[string]any{"temperature": 20, "hvac_action": "heating"},
			"Kitchen thermostat is in heating mode at 20 degrees and is heating right now."},
		{locale.English, "what is the state of the kitchen thermostat", map[string]any{"hvac_action": "idle"},
			"Kitchen thermostat is in heating mode and is idle right now."},
		{locale.English, "what is the state of the kitchen thermostat", map[string]any{"temperature": 21.5},
			"Kitchen thermostat is in heating mode at 21.5 degrees."},
		{locale.English, "what is the state of the kitchen thermostat", map[string]any{"hvac_action": "cooling", "temperature": 24},
			"Kitchen thermostat is in heating mode at 24 degrees and is cooling right now."},
		{locale.German, "wie ist der Zustand von kitchen thermostat", map[string]any{"temperature": 20, "hvac_action": "heating"},
			"Kitchen thermostat ist im Heizmodus auf 20 Grad und heizt gerade."},
		{locale.German, "wie ist der Zustand von kitchen thermostat", map[string]any{"hvac_action": "idle"},
			"Kitchen thermostat ist im Heizmodus und tut gerade nichts."},
		{locale.Spanish, "cuál es el estado de kitchen thermostat", map[string]any{"temperature": 20, "hvac_action": "heating"},
			"Kitchen thermostat está en modo calefacción a 20 grados y está calentando ahora mismo."},
		{locale.Spanish, "cuál es el estado de kitchen thermostat", map[string]any{"hvac_action": "cooling"},
			"Kitchen thermostat está en modo calefacción y está enfriando ahora mismo."},
		{locale.French, "quel est l'état de kitchen thermostat", map[string]any{"temperature": 20, "hvac_action": "heating"},
			"Kitchen thermostat est en mode chauffage à 20 degrés et chauffe en ce moment."},
		{locale.French, "quel est l'état de kitchen thermostat", map[string]any{"hvac_action": "idle"},
			"Kitchen thermostat est en mode chauffage et est au repos en ce moment."},
	} {
		ha := hatest.Small(t)
		i := slices.IndexFunc(ha.Entities, func(e hatest.Entity) bool { return e.ID == "climate.kitchen" })
		for k, v := range tt.attrs {
			ha.Entities[i].Attributes[k] = v
		}
		reg := speakerIn(t, ha, "Kitchen")
		ctx := locale.WithLanguage(t.Context(), string(tt.lang))
		u := reg.Understand(t.Context(), tt.lang, tt.asked)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s: %s)", tt.lang, tt.asked, u.Intent, u.Reason, u.Detail)
		} else if resp := reg.RunRoute(ctx, u.Route, tt.asked); resp.Spoken != tt.answer {
			t.Errorf("%s %q with %v: said %q, want %q", tt.lang, tt.asked, tt.attrs, resp.Spoken, tt.answer)
		}
		resp := reg.Call(ctx, "home_state", map[string]any{"entity": "kitchen thermostat"}, tt.asked)
		if resp.Kind != command.Success || resp.Spoken != tt.answer {
			t.Errorf("%s home_state with %v: said %q (%v), want %q", tt.lang, tt.attrs, resp.Spoken, resp.Kind, tt.answer)
		}
	}
}
