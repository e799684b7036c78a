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

// onOffDomains are the domains "turn on" and "turn off" act on.
var onOffDomains = []string{"light", "switch", "fan", "input_boolean", "cover", "valve", "lock", "scene", "script",
	"media_player", "climate", "humidifier", "siren", "automation", "button", "input_button", "water_heater",
	"remote", "vacuum", "lawn_mower", "camera"}

// onOffService is the service that turns an entity on or off, as Home
// Assistant's intents do it: covers and valves open and close, a lock on
// is locked, a button is pressed; "" when it cannot be done.
func onOffService(e Entity, on bool) string {
	d := e.Domain()
	switch {
	case d == "cover" && on:
		return "cover.open_cover"
	case d == "cover":
		return "cover.close_cover"
	case d == "valve" && on:
		return "valve.open_valve"
	case d == "valve":
		return "valve.close_valve"
	case d == "lock" && on:
		return "lock.lock"
	case d == "lock":
		return "lock.unlock"
	case (d == "button" || d == "input_button") && on:
		return d + ".press"
	case (d == "scene" || d == "script") && on:
		return d + ".turn_on"
	case d == "button" || d == "input_button" || d == "scene" || d == "script":
		return ""
	case d == "vacuum" && on:
		return "vacuum.start"
	case d == "vacuum":
		return "vacuum.return_to_base"
	}
	if !slices.Contains(onOffDomains, d) {
		return ""
	}
	if on {
		return d + ".turn_on"
	}
	return d + ".turn_off"
}

// plan turns a match into the service calls that carry it out.
type plan func(h House, m command.Match) ([]serviceCall, error)

var plans = map[string]plan{
	"HassTurnOn":                   onOff(true),
	"HassTurnOff":                  onOff(false),
	"HassLightSet":                 lightSet,
	"HassClimateSetTemperature":    climateSet,
	"HassSetPosition":              setPosition,
	"HassMediaPause":               media("media_player.media_pause", "playing"),
	"HassMediaUnpause":             media("media_player.media_play", "paused"),
	"HassMediaNext":                media("media_player.media_next_track", "playing"),
	"HassMediaPrevious":            media("media_player.media_previous_track", "playing"),
	"HassSetVolume":                setVolume,
	"HassVacuumStart":              vacuum("vacuum.start"),
	"HassVacuumReturnToBase":       vacuum("vacuum.return_to_base"),
	"HassShoppingListAddItem":      shoppingList("shopping_list.add_item"),
	"HassShoppingListCompleteItem": shoppingList("shopping_list.complete_item"),
	"HassListAddItem":              todo("todo.add_item", nil),
	"HassListCompleteItem":         todo("todo.update_item", map[string]any{"status": "completed"}),
}

func onOff(on bool) plan {
	return func(h House, m command.Match) ([]serviceCall, error) {
		s := scopeOf(m)
		if s.name == "" && len(s.domains) == 0 && len(s.classes) == 0 {
			// "turn off the kitchen": everything in a room is too much to
			// guess at; the model may ask.
			return nil, command.Unresolved("domain", "an area without what to switch in it")
		}
		ts, err := targets(h, m, func(e Entity) bool { return onOffService(e, on) != "" }, true)
		if err != nil {
			return nil, err
		}
		return calls(ts, func(e Entity) string { return onOffService(e, on) }, nil), nil
	}
}

func isLight(e Entity) bool { return e.Domain() == "light" }

func lightSet(h House, m command.Match) ([]serviceCall, error) {
	data := map[string]any{}
	switch {
	case m.Has("brightness"):
		v, _ := m.Number("brightness")
		data["brightness_pct"] = v
	case m.Has("color"):
		data["color_name"] = m.String("color")
	case m.Has("temperature"):
		v, _ := m.Number("temperature")
		data["color_temp_kelvin"] = v
	default:
		return nil, command.Unresolved("brightness", "nothing to set")
	}
	ts, err := targets(h, m, isLight, true)
	if err != nil {
		return nil, err
	}
	return calls(ts, func(Entity) string { return "light.turn_on" }, data), nil
}

func climateSet(h House, m command.Match) ([]serviceCall, error) {
	v, ok := m.Number("temperature")
	if !ok {
		return nil, command.Unresolved("temperature", "no temperature")
	}
	ts, err := targets(h, m, func(e Entity) bool { return e.Domain() == "climate" }, true)
	if err != nil {
		return nil, err
	}
	if s := scopeOf(m); s.name == "" && s.area == "" && s.floor == "" && len(ts) > 1 {
		return nil, command.Unresolved("name", "several thermostats")
	}
	return calls(ts, func(Entity) string { return "climate.set_temperature" }, map[string]any{"temperature": v}), nil
}

func setPosition(h House, m command.Match) ([]serviceCall, error) {
	v, ok := m.Number("position")
	if !ok {
		return nil, command.Unresolved("position", "no position")
	}
	ts, err := targets(h, m, func(e Entity) bool { return e.Domain() == "cover" || e.Domain() == "valve" }, true)
	if err != nil {
		return nil, err
	}
	return calls(ts, func(e Entity) string {
		if e.Domain() == "valve" {
			return "valve.set_valve_position"
		}
		return "cover.set_cover_position"
	}, map[string]any{"position": v}), nil
}

// media acts on the media players named, in the area said or the
// speaker's, or else on those in the given state (pause what plays).
func media(service, state string) plan {
	return func(h House, m command.Match) ([]serviceCall, error) {
		isPlayer := func(e Entity) bool { return e.Domain() == "media_player" }
		s := scopeOf(m)
		if s.name == "" && s.area == "" && s.floor == "" {
			isPlayer = func(e Entity) bool { return e.Domain() == "media_player" && e.State == state }
		}
		ts, err := targets(h, m, isPlayer, true)
		if err != nil {
			return nil, err
		}
		return calls(ts, func(Entity) string { return service }, nil), nil
	}
}

func setVolume(h House, m command.Match) ([]serviceCall, error) {
	v, ok := m.Number("volume_level")
	if !ok {
		return nil, command.Unresolved("volume_level", "no volume")
	}
	ts, err := targets(h, m, func(e Entity) bool { return e.Domain() == "media_player" }, true)
	if err != nil {
		return nil, err
	}
	return calls(ts, func(Entity) string { return "media_player.volume_set" }, map[string]any{"volume_level": v / 100}), nil
}

func vacuum(service string) plan {
	return func(h House, m command.Match) ([]serviceCall, error) {
		ts, err := targets(h, m, func(e Entity) bool { return e.Domain() == "vacuum" }, true)
		if err != nil {
			return nil, err
		}
		return calls(ts, func(Entity) string { return service }, nil), nil
	}
}

func shoppingList(service string) plan {
	return func(h House, m command.Match) ([]serviceCall, error) {
		item := strings.TrimSpace(m.String("item"))
		if item == "" {
			return nil, command.Unresolved("item", "no item")
		}
		return []serviceCall{{Service: service, Data: map[string]any{"name": item}}}, nil
	}
}

func todo(service string, extra map[string]any) plan {
	return func(h House, m command.Match) ([]serviceCall, error) {
		item := strings.TrimSpace(m.String("item"))
		if item == "" {
			return nil, command.Unresolved("item", "no item")
		}
		ts, err := targets(h, m, func(e Entity) bool { return e.Domain() == "todo" }, false)
		if err != nil {
			return nil, err
		}
		data := map[string]any{"item": item}
		for k, v := range extra {
			data[k] = v
		}
		return calls(ts, func(Entity) string { return service }, data), nil
	}
}

// Service is home_service: Home Assistant's intents carried out offline
// as the service calls they make. The model does not see it; it has
// home_control.
func Service(c *Client) *command.Command {
	var intents []string
	for name := range plans {
		intents = append(intents, name)
	}
	slices.Sort(intents)
	return &command.Command{
		Name:        "home_service",
		Description: "Home Assistant service calls for what was said, matched offline.",
		Hidden:      true,
		Alias:       "home_control",
		Secrets:     secrets,
		Parameters: []command.Parameter{
			{Name: "intent", Type: "string", Required: true},
			{Name: "calls", Type: "array", Required: true},
			{Name: "confirmed", Type: "string"},
			{Name: "absent", Type: "dict", Description: "the device named and the place said it is not in"},
			{Name: "unread", Type: "string", Description: "why the house could not be read when this was said"},
		},
		Intents: intents,
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			if m.Intent == "HassSetVolume" && m.Slots["area"].FromContext && !m.Has("name") {
				return command.Claim{}, command.ErrNotMine // the speaker's own volume
			}
			h, err := c.House(ctx)
			if err != nil && len(h.Entities) == 0 {
				// Home Assistant not set up, refusing or out of reach: what
				// was asked is the house's, and the answer is why it cannot
				// be done ("add milk to the shopping list").
				if err := named(m, false); err != nil {
					return command.Claim{}, err
				}
				return command.Claim{Arguments: map[string]any{"intent": m.Intent, "calls": []any{}, "unread": err.Error()}}, nil
			}
			cs, err := plans[m.Intent](h, m)
			var nt *notThere
			if errors.As(err, &nt) { // said, not carried out
				return command.Claim{Arguments: map[string]any{"intent": m.Intent, "calls": []any{}, "absent": nt.args()}, Absent: true}, nil
			}
			if err != nil {
				return command.Claim{}, err
			}
			return command.Claim{Arguments: asArgs(m.Intent, cs), Unplaced: unplaced(m)}, nil
		},
		Refine: confirmRefine,
		Run: func(ctx context.Context, call command.Call) (command.Response, error) {
			return runService(ctx, c, call)
		},
	}
}

// confirmRefine reads the yes or no to an unlock asked about.
func confirmRefine(text string, last command.Args) (command.Args, bool) {
	if !unlocks(fromArgs(last)) {
		return nil, false
	}
	return yesOrNo(text)
}

func unlocks(cs []serviceCall) bool {
	return slices.ContainsFunc(cs, func(c serviceCall) bool { return c.Service == "lock.unlock" })
}

func runService(ctx context.Context, c *Client, call command.Call) (command.Response, error) {
	l := locale.Speaking(ctx)
	if spoken, ok := absentSaid(l, call.Args); ok {
		return command.Response{Kind: command.Failure, Spoken: spoken, Data: map[string]any{"absent": call.Args["absent"]}}, nil
	}
	cs := fromArgs(call.Args)
	h, err := c.House(ctx)
	if err != nil && len(h.Entities) == 0 {
		return command.Response{Kind: command.Failure, Spoken: spokenError(l, err), Data: map[string]any{"error": err.Error()}}, nil
	}
	if call.Args.Has("unread") {
		// The house could not be read when this was said and can now:
		// what was said is matched again only when said again.
		return command.Response{Kind: command.Failure, Spoken: l.T("Could you say that again another way?"), Data: map[string]any{"error": call.Args.String("unread")}}, nil
	}
	names := func(ids []string) []string {
		var out []string
		for _, id := range ids {
			i := slices.IndexFunc(h.Entities, func(e Entity) bool { return e.ID == id })
			if i >= 0 {
				out = append(out, h.Entities[i].Name())
			} else {
				out = append(out, id)
			}
		}
		return out
	}
	if unlocks(cs) {
		// Only the user's own yes, heard right after the question, opens
		// a lock.
		var locks []string
		for _, sc := range cs {
			if sc.Service == "lock.unlock" {
				locks = append(locks, names(sc.Entities)...)
			}
		}
		switch answer := call.Args.String("confirmed"); {
		case call.Refines != nil && answer == "no":
			return command.Response{Spoken: l.T("Okay, %s stays locked.", l.And(locks)), Data: map[string]any{"cancelled": true}}, nil
		case call.Refines == nil || answer != "yes":
			return command.Response{Kind: command.FollowUp, Spoken: l.T("Unlock %s? Say yes to confirm.", l.And(locks)),
				Data: map[string]any{"awaiting": "a yes to unlock"}}, nil
		}
	}
	var done []string
	for _, sc := range cs {
		domain, service, _ := strings.Cut(sc.Service, ".")
		if err := c.CallMany(ctx, domain, service, sc.Entities, sc.Data); err != nil {
			return command.Response{Kind: command.Failure, Spoken: spokenError(l, err), Data: map[string]any{"error": err.Error(), "done": done}}, nil
		}
		done = append(done, sc.Service)
	}
	return command.Response{Spoken: serviceSaid(l, call.Args.String("intent"), call.Utterance, cs, names), Data: map[string]any{"services": done}}, nil
}

// serviceSaid is the answer to service calls made for what the user
// said; its participles agree with the devices named.
func serviceSaid(l locale.Lang, intentName, said string, cs []serviceCall, names func([]string) []string) string {
	var all []string
	for _, sc := range cs {
		all = append(all, sc.Entities...)
	}
	who := l.And(names(all))
	form := l.FormOf(said, names(all)...)
	if len(all) > 3 {
		who = l.T("%d devices", len(all))
		form = locale.Form{Plural: true} // "dispositivos", "appareils"
	}
	a := l.Agreeing(form)
	first := serviceCall{}
	if len(cs) > 0 {
		first = cs[0]
	}
	switch intentName {
	case "HassTurnOn", "HassTurnOff":
		switch first.Service {
		case "cover.open_cover", "valve.open_valve":
			return a.T("Opened %s.", who)
		case "cover.close_cover", "valve.close_valve":
			return a.T("Closed %s.", who)
		case "lock.lock":
			return a.T("Locked %s.", who)
		case "lock.unlock":
			return a.T("Unlocked %s.", who)
		case "scene.turn_on", "script.turn_on":
			return a.T("Activated %s.", who)
		}
		if intentName == "HassTurnOn" {
			return a.T("Turned on %s.", who)
		}
		return a.T("Turned off %s.", who)
	case "HassLightSet":
		if v, ok := first.Data["brightness_pct"]; ok {
			return a.T("Set %s to %v percent.", who, v)
		}
		return l.T("Changed the light of %s.", who)
	case "HassClimateSetTemperature":
		return l.T("%s is set to %v degrees.", who, first.Data["temperature"])
	case "HassSetPosition":
		return l.T("%s is at %v percent.", who, first.Data["position"])
	case "HassMediaPause":
		return l.T("Paused.")
	case "HassMediaUnpause":
		return l.T("Playing.")
	case "HassMediaNext":
		return l.T("Playing the next track.")
	case "HassMediaPrevious":
		return l.T("Playing the previous track.")
	case "HassSetVolume":
		if f, ok := first.Data["volume_level"].(float64); ok {
			return l.T("Volume set to %v percent.", fmt.Sprint(f*100))
		}
	case "HassVacuumStart":
		return a.T("Started %s.", who)
	case "HassVacuumReturnToBase":
		return l.T("Sent %s back to its dock.", who)
	case "HassShoppingListAddItem":
		return l.T("Added %s to your shopping list.", first.Data["name"])
	case "HassShoppingListCompleteItem":
		return l.T("Checked off %s.", first.Data["name"])
	case "HassListAddItem":
		return l.T("Added %s to %s.", first.Data["item"], who)
	case "HassListCompleteItem":
		return l.T("Checked off %s.", first.Data["item"])
	}
	return l.T("Done.")
}
