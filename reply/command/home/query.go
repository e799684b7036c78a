package home

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// Query is home_query: questions about the house matched offline (how a
// device is, whether any or all are so, which, how many; a thermostat's
// temperature; the weather of a weather entity), answered from the states
// Home Assistant reports. The model does not see it; it has home_state.
func Query(c *Client) *command.Command {
	return &command.Command{
		Name:        "home_query",
		Description: "Answers about the house's devices, matched offline.",
		Hidden:      true,
		Alias:       "home_state",
		Secrets:     secrets,
		Parameters: []command.Parameter{
			{Name: "intent", Type: "string", Required: true},
			{Name: "entity_id", Type: "array", Required: true},
			{Name: "state", Type: "string"},
			{Name: "ask", Type: "string"},
			{Name: "absent", Type: "dict", Description: "the device named and the place said it is not in"},
			{Name: "unread", Type: "string", Description: "why the house could not be read when this was asked"},
		},
		Intents: []string{"HassGetState", "HassClimateGetTemperature", "HassGetWeather"},
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			if m.Intent == "HassGetWeather" && !m.Has("name") {
				return command.Claim{}, command.ErrNotMine // the forecast, not a weather entity
			}
			h, err := c.House(ctx)
			if err != nil && len(h.Entities) == 0 {
				// Home Assistant not set up, refusing or out of reach: the
				// question is the house's, and the answer is why it cannot
				// be read, as home_control says it.
				if err := named(m, true); err != nil {
					return command.Claim{}, err
				}
				return command.Claim{Arguments: map[string]any{"intent": m.Intent, "entity_id": []any{}, "unread": err.Error()}}, nil
			}
			able := func(e Entity) bool { return true }
			switch m.Intent {
			case "HassClimateGetTemperature":
				able = func(e Entity) bool { return e.Domain() == "climate" }
			case "HassGetWeather":
				able = func(e Entity) bool { return e.Domain() == "weather" }
			}
			if st := m.Slots["state"]; st.Wildcard && !isPlace(h, st.Value) {
				// "are all <anything>": a place is a zone Home Assistant knows
				return command.Claim{}, command.Unresolved("state", fmt.Sprintf("no zone called %q", st.Text))
			}
			ts, err := targets(h, m, able, true)
			var nt *notThere
			if errors.As(err, &nt) { // said, not answered
				return command.Claim{Arguments: map[string]any{"intent": m.Intent, "entity_id": []any{}, "absent": nt.args()}, Absent: true}, nil
			}
			if err != nil {
				return command.Claim{}, err
			}
			s := scopeOf(m)
			// Unnamed, the thermostats are each read out (a few of them);
			// a weather entity is one to choose.
			if m.Intent != "HassGetState" && s.name == "" && s.area == "" && len(ts) > 1 &&
				(m.Intent != "HassClimateGetTemperature" || len(ts) > 4) {
				return command.Claim{}, command.Unresolved("name", "several to choose from")
			}
			args := map[string]any{"intent": m.Intent, "entity_id": toAny(ids(ts))}
			if st := m.String("state"); st != "" {
				args["state"] = st
			}
			if m.Response != "" {
				args["ask"] = m.Response
			}
			return command.Claim{Arguments: args, Unplaced: unplaced(m)}, nil
		},
		Run: func(ctx context.Context, call command.Call) (command.Response, error) {
			l := locale.Speaking(ctx)
			if spoken, ok := absentSaid(l, call.Args); ok {
				return command.Response{Kind: command.Failure, Spoken: spoken, Data: map[string]any{"absent": call.Args["absent"]}}, nil
			}
			c.Forget() // a question wants the state now
			h, err := c.House(ctx)
			if err != nil && len(h.Entities) == 0 {
				return command.Response{Kind: command.Failure, Spoken: spokenError(l, err), Data: map[string]any{"error": err.Error()}}, nil
			}
			if call.Args.Has("unread") {
				// The house could not be read when this was asked and can
				// now: the question is matched again only when asked again.
				return command.Response{Kind: command.Failure, Spoken: l.T("Could you say that again another way?"), Data: map[string]any{"error": call.Args.String("unread")}}, nil
			}
			var es []Entity
			for _, id := range strs(call.Args["entity_id"]) {
				if i := slices.IndexFunc(h.Entities, func(e Entity) bool { return e.ID == id }); i >= 0 {
					es = append(es, h.Entities[i])
				}
			}
			if len(es) == 0 {
				return command.Response{Kind: command.Failure, Spoken: l.T("That device is gone from Home Assistant.")}, nil
			}
			data := map[string]any{"states": statesData(es)}
			return command.Said(answer(l, call.Utterance, call.Args.String("intent"), call.Args.String("ask"), call.Args.String("state"), es), data), nil
		},
	}
}

// isPlace reports whether a place said is one a person can be in: a zone
// of Home Assistant's, or where someone is now (a person's state is the
// name of the zone they are in).
func isPlace(h House, place any) bool {
	p, _ := place.(string)
	p = strings.TrimSpace(p)
	return p != "" && slices.ContainsFunc(h.Entities, func(e Entity) bool {
		switch e.Domain() {
		case "zone":
			return strings.EqualFold(e.Name(), p)
		case "person":
			return strings.EqualFold(e.State, p)
		}
		return false
	})
}

func statesData(es []Entity) []map[string]any {
	var out []map[string]any
	for _, e := range es {
		out = append(out, map[string]any{"entity_id": e.ID, "name": e.Name(), "state": e.State, "attributes": e.Attributes})
	}
	return out
}

// isSaid says how an entity is, in a sentence of its own: "Kitchen light
// is off.", "Lámpara de pie no está disponible.", agreeing with the
// entity as the user spoke of it in said.
func isSaid(lang locale.Lang, said string, e Entity) string {
	switch {
	case e.State == "unavailable":
		return lang.Agreeing(lang.FormOf(said, e.Name())).T("%s is unavailable.", e.Name())
	case e.Domain() == "weather":
		return weatherSaid(lang, e)
	case e.Domain() == "climate" && e.State != "off":
		return climateSaid(lang, said, e)
	}
	return lang.T("%s is %s.", e.Name(), stateSaid(lang, said, e))
}

// climateSaid says a thermostat that is not off: its mode, the
// temperature it is set to and what it is doing right now (its
// hvac_action), those of them it reports.
func climateSaid(lang locale.Lang, said string, e Entity) string {
	mode := stateSaid(lang, said, e)
	target, set := e.Attributes["temperature"]
	set = set && target != nil
	doing, busy := hvacActionSaid(lang, e.Attributes["hvac_action"])
	switch {
	case set && busy:
		return lang.T("%s is %s at %v degrees and %s.", e.Name(), mode, target, doing)
	case set:
		return lang.T("%s is %s at %v degrees.", e.Name(), mode, target)
	case busy:
		return lang.T("%s is %s and %s.", e.Name(), mode, doing)
	}
	return lang.T("%s is %s.", e.Name(), mode)
}

// hvacActionSaid is what a thermostat reports doing right now, Home
// Assistant's hvac_action, as said after its name and mode ("... and is
// heating right now"); false for none, or one Hark has no words for.
func hvacActionSaid(l locale.Lang, action any) (string, bool) {
	s, _ := action.(string)
	key, ok := map[string]string{
		"heating":    locale.Key("is heating right now"),
		"cooling":    locale.Key("is cooling right now"),
		"idle":       locale.Key("is idle right now"),
		"drying":     locale.Key("is drying the air right now"),
		"fan":        locale.Key("is only running its fan right now"),
		"preheating": locale.Key("is preheating right now"),
		"defrosting": locale.Key("is defrosting right now"),
		"off":        locale.Key("is not running right now"),
	}[s]
	if !ok {
		return "", false
	}
	return l.T(key), true
}

// weatherSaid is a weather entity's condition in words, with its
// temperature when it has one.
func weatherSaid(l locale.Lang, w Entity) string {
	if t, ok := w.Attributes["temperature"]; ok {
		return l.T("%s: %s, %v degrees.", w.Name(), conditionSaid(l, w.State), t)
	}
	return l.T("%s: %s.", w.Name(), conditionSaid(l, w.State))
}

// stateSaid is an entity's state as said: translated when it is one of
// Home Assistant's own state words, agreeing with the entity as the user
// spoke of it in said (its article) or else with its name, with its unit.
func stateSaid(lang locale.Lang, said string, e Entity) string {
	l := lang.Agreeing(lang.FormOf(said, e.Name()))
	s := e.State
	switch e.Domain() {
	case "binary_sensor":
		s = binaryState(e)
	case "climate":
		if m, ok := hvacModeSaid(l, s); ok {
			return m
		}
	}
	switch s {
	case "on":
		s = l.T("on")
	case "off":
		s = l.T("off")
	case "open":
		s = l.T("open")
	case "closed":
		s = l.T("closed")
	case "locked":
		s = l.T("locked")
	case "unlocked":
		s = l.T("unlocked")
	case "home":
		s = l.T("home")
	case "not_home":
		s = l.T("away")
	case "playing":
		s = l.T("playing")
	case "paused":
		s = l.T("paused")
	case "idle":
		s = l.T("idle")
	case "unavailable":
		s = l.T("unavailable")
	case "connected":
		s = l.T("connected")
	case "disconnected":
		s = l.T("disconnected")
	case "detected":
		s = l.T("detected")
	case "not detected":
		s = l.T("not detected")
	case "wet":
		s = l.T("wet")
	case "dry":
		s = l.T("dry")
	}
	if u, ok := e.Attributes["unit_of_measurement"].(string); ok && u != "" {
		s += " " + u
	}
	return s
}

// answer says what a question about the house asks: the response key
// the template named tells how (one, one_yesno, any, all, which,
// how_many, where).
func answer(l locale.Lang, said, intentName, ask, state string, es []Entity) string {
	switch intentName {
	case "HassClimateGetTemperature":
		var said []string
		for _, e := range es {
			if t, ok := e.Attributes["current_temperature"]; ok {
				said = append(said, l.T("%s is at %v degrees.", e.Name(), t))
			} else {
				said = append(said, l.T("%s doesn't say its temperature.", e.Name()))
			}
		}
		return strings.Join(said, " ")
	case "HassGetWeather":
		return weatherSaid(l, es[0])
	}
	var match, other []Entity
	for _, e := range es {
		if state == "" || strings.EqualFold(e.State, state) {
			match = append(match, e)
		} else {
			other = append(other, e)
		}
	}
	names := func(es []Entity) string {
		var n []string
		for _, e := range es {
			n = append(n, e.Name())
		}
		slices.Sort(n)
		if len(n) > 4 {
			return l.T("%s and %d more", strings.Join(n[:3], ", "), len(n)-3)
		}
		return l.And(n)
	}
	switch askKind(ask) {
	case "one_yesno":
		if len(other) == 0 {
			return l.T("Yes.")
		}
		return l.T("No, %s is %s.", other[0].Name(), stateSaid(l, said, other[0]))
	case "any":
		if len(match) == 0 {
			return l.T("No.")
		}
		return l.T("Yes: %s.", names(match))
	case "all":
		if len(other) == 0 {
			return l.T("Yes.")
		}
		return l.T("No, %s is %s.", other[0].Name(), stateSaid(l, said, other[0]))
	case "which":
		if len(match) == 0 {
			return l.T("None.")
		}
		return capital(names(match)) + "."
	case "how_many":
		return l.T("%d.", len(match))
	case "where":
		return isSaid(l, said, es[0])
	}
	if len(es) == 1 {
		return isSaid(l, said, es[0])
	}
	var parts []string
	for _, e := range es[:min(4, len(es))] {
		parts = append(parts, fmt.Sprintf("%s %s", e.Name(), stateSaid(l, said, e)))
	}
	return capital(l.And(parts)) + "."
}

// hvacModeSaid is a thermostat's HVAC mode, its state, as said after
// "is": "in dehumidifying mode" for Home Assistant's "dry", not a moisture
// sensor's "dry". Off is said as any device's off; it reports false for a
// state that is no mode but off.
func hvacModeSaid(l locale.Agreeing, mode string) (string, bool) {
	key, ok := map[string]string{
		"heat":      locale.Key("in heating mode"),
		"cool":      locale.Key("in cooling mode"),
		"heat_cool": locale.Key("in heating and cooling mode"),
		"auto":      locale.Key("in automatic mode"),
		"dry":       locale.Key("in dehumidifying mode"),
		"fan_only":  locale.Key("in fan only mode"),
	}[mode]
	if !ok {
		return "", false
	}
	return l.T(key), true
}

// conditionSaid is a weather entity's condition, Home Assistant's key
// ("partlycloudy", "clear-night"), in words of the language; a condition
// without words of its own is its key as words ("volcanic ash").
func conditionSaid(l locale.Lang, condition string) string {
	key, ok := map[string]string{
		"sunny":           locale.Key("sunny"),
		"clear-night":     locale.Key("clear"),
		"partlycloudy":    locale.Key("partly cloudy"),
		"cloudy":          locale.Key("cloudy"),
		"fog":             locale.Key("foggy"),
		"rainy":           locale.Key("rainy"),
		"pouring":         locale.Key("pouring rain"),
		"lightning":       locale.Key("thunderstorms"),
		"lightning-rainy": locale.Key("thunderstorms with rain"),
		"snowy":           locale.Key("snowy"),
		"snowy-rainy":     locale.Key("sleet"),
		"hail":            locale.Key("hail"),
		"windy":           locale.Key("windy"),
		"windy-variant":   locale.Key("windy and cloudy"),
		"exceptional":     locale.Key("exceptional weather"),
	}[condition]
	if !ok {
		return strings.Join(strings.FieldsFunc(condition, func(r rune) bool { return r == '-' || r == '_' || r == ' ' }), " ")
	}
	return l.T(key)
}

// binaryState is what a binary sensor's on or off means for its device
// class, as Home Assistant shows it: a door on is open, a phone's
// connectivity off is disconnected.
func binaryState(e Entity) string {
	class, _ := e.Attributes["device_class"].(string)
	var on, off string
	switch class {
	case "door", "garage_door", "opening", "window":
		on, off = "open", "closed"
	case "lock":
		on, off = "unlocked", "locked"
	case "connectivity":
		on, off = "connected", "disconnected"
	case "motion", "occupancy", "presence", "moving", "sound", "vibration":
		on, off = "detected", "not detected"
	case "moisture":
		on, off = "wet", "dry"
	default:
		return e.State
	}
	switch e.State {
	case "on":
		return on
	case "off":
		return off
	}
	return e.State
}

// askKind is the kind of answer a template's response key asks for, as
// English names it: the languages name their keys in their own words
// (German "irgendeins"), French has variants ("any_doors").
func askKind(key string) string {
	if k, ok := map[string]string{
		"einzeln": "one", "einzeln_janein": "one_yesno", "irgendeins": "any", "alle": "all",
		"welches": "which", "wer": "which", "wie_viele": "how_many", "wo": "where",
	}[key]; ok {
		return k
	}
	for _, k := range []string{"one_yesno", "any", "all", "which", "how_many", "where"} {
		if key == k || strings.HasPrefix(key, k+"_") {
			return k
		}
	}
	return key
}

func capital(s string) string {
	if s == "" {
		return s
	}
	r := []rune(s)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}
