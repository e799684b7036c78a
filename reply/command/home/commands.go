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

// action is what home_control does: the Home Assistant service for a
// domain, and the data the value goes in.
type action struct {
	services map[string]string // domain → service; "*" for any domain
	data     string            // the service data key the value goes in; "" for none
	done     string            // the spoken confirmation, with the entity's name
}

var actions = map[string]action{
	"turn_on":         {map[string]string{"*": "turn_on", "cover": "open_cover", "lock": "unlock"}, "", locale.Key("%s is on.")},
	"turn_off":        {map[string]string{"*": "turn_off", "cover": "close_cover", "lock": "lock"}, "", locale.Key("%s is off.")},
	"toggle":          {map[string]string{"*": "toggle"}, "", locale.Key("Toggled %s.")},
	"set_brightness":  {map[string]string{"light": "turn_on"}, "brightness_pct", locale.Key("%s is at %v percent.")},
	"set_color":       {map[string]string{"light": "turn_on"}, "color_name", locale.Key("%s is %v now.")},
	"set_temperature": {map[string]string{"climate": "set_temperature"}, "temperature", locale.Key("%s is set to %v degrees.")},
	"set_position":    {map[string]string{"cover": "set_cover_position"}, "position", locale.Key("%s is at %v percent.")},
	"open":            {map[string]string{"cover": "open_cover", "lock": "unlock"}, "", locale.Key("%s is open.")},
	"close":           {map[string]string{"cover": "close_cover", "lock": "lock"}, "", locale.Key("%s is closed.")},
	"lock":            {map[string]string{"lock": "lock"}, "", locale.Key("%s is locked.")},
	"unlock":          {map[string]string{"lock": "unlock"}, "", locale.Key("%s is unlocked.")},
}

func actionNames() []string {
	return []string{"turn_on", "turn_off", "toggle", "set_brightness", "set_color", "set_temperature", "set_position", "open", "close", "lock", "unlock"}
}

// domainsFor are the domains an action can act on; nil for any.
func domainsFor(name string) []string {
	a := actions[name]
	if _, any := a.services["*"]; any {
		return nil
	}
	var out []string
	for d := range a.services {
		out = append(out, d)
	}
	return out
}

// resolve validates the entity argument against the live state list:
// an unambiguous match replaces what the model or the user said
// (auto-correction), an ambiguous one asks which, none says what exists.
func resolve(ctx context.Context, c *Client, said string, domains []string) *command.Problem {
	states, err := c.States(ctx)
	if err != nil {
		return &command.Problem{Param: "entity", Message: spokenError(locale.Speaking(ctx), err)}
	}
	e, ok, close := Best(Find(said, states, domains))
	switch {
	case ok:
		if e.ID == said {
			return nil
		}
		return &command.Problem{Param: "entity", Suggest: e.ID, Message: fmt.Sprintf("%q is %s", said, e.ID)}
	case len(close) > 0:
		var names []string
		for _, m := range close[:min(6, len(close))] {
			names = append(names, m.Entity.Name())
		}
		return &command.Problem{Param: "entity", Message: fmt.Sprintf("%q could be several things", said), Valid: names}
	}
	var names []string
	for _, s := range states {
		if len(domains) == 0 || slices.Contains(domains, s.Domain()) {
			names = append(names, s.Name())
		}
	}
	return &command.Problem{Param: "entity", Message: fmt.Sprintf("no device called %q", said), Valid: names[:min(10, len(names))]}
}

// spokenError is a Home Assistant failure as the user hears it.
func spokenError(l locale.Lang, err error) string {
	switch {
	case errors.Is(err, ErrRefused):
		return l.T("Home Assistant refused to let me do that.")
	case errors.Is(err, ErrNotSetUp):
		return l.T("Home Assistant isn't set up yet. Set HA_URL and HA_TOKEN with hark secrets set.")
	}
	return l.T("I can't reach Home Assistant right now.")
}

// entityByID is the live entity of an id.
func entityByID(ctx context.Context, c *Client, id string) (Entity, error) {
	states, err := c.States(ctx)
	if err != nil {
		return Entity{}, err
	}
	for _, s := range states {
		if s.ID == id {
			return s, nil
		}
	}
	return Entity{}, fmt.Errorf("%w: %s", errGone, id)
}

// errGone is an entity Home Assistant no longer lists.
var errGone = errors.New("home: gone from Home Assistant")

// unread is home_control's failure when it could not read its entity as
// it ran: gone from Home Assistant's list, or the list itself not read
// (Home Assistant refusing, out of reach), said as that trouble, as
// home_state says it.
func unread(l locale.Lang, err error) command.Response {
	spoken := spokenError(l, err)
	if errors.Is(err, errGone) {
		spoken = l.T("That device is gone from Home Assistant.")
	}
	return command.Response{Kind: command.Failure, Spoken: spoken, Data: map[string]any{"error": err.Error()}}
}

var secrets = []command.Secret{{Key: URLSecret, Description: "Home Assistant's address, e.g. http://homeassistant.local:8123", Required: true},
	{Key: TokenSecret, Description: "a long-lived access token (your Home Assistant profile, Security)", Required: true}}

// Control is home_control.
func Control(c *Client) *command.Command {
	return &command.Command{
		Name:        "home_control",
		Description: "Turn devices in the home on or off, dim or colour lights, set a thermostat or blinds, lock or unlock doors.",
		Keywords:    []string{"turn on", "turn off", "switch on", "switch off", "lights", "light", "lamp", "dim", "brighten", "lock", "unlock", "thermostat", "blinds"},
		Parameters: []command.Parameter{
			{Name: "action", Type: "string", Required: true, Enum: actionNames()},
			{Name: "entity", Type: "string", Required: true, Description: "the device as the user named it, e.g. living room light"},
			{Name: "value", Type: "string", Refinable: true, Description: "brightness or position 0-100, a colour, or degrees"},
		},
		Secrets:  secrets,
		Examples: []command.Example{{Utterance: "turn off the kitchen lights", Arguments: map[string]any{"action": "turn_off", "entity": "kitchen lights"}}},
		Validate: func(ctx context.Context, a command.Args) []command.Problem {
			act := a.String("action")
			if actions[act].data != "" && !a.Has("value") {
				return []command.Problem{{Param: "value", Message: act + " needs a value"}}
			}
			if p := resolve(ctx, c, a.String("entity"), domainsFor(act)); p != nil {
				return []command.Problem{*p}
			}
			return nil
		},
		Refine: refine,
		Setup:  setup(c),
		Run: func(ctx context.Context, call command.Call) (command.Response, error) {
			l := locale.Speaking(ctx)
			act := actions[call.Args.String("action")]
			e, err := entityByID(ctx, c, call.Args.String("entity"))
			if err != nil {
				return unread(l, err), nil
			}
			if opensLock(call.Args.String("action"), e.ID) {
				// Only the user's own yes, heard as a refinement of this
				// call, opens a lock: never an argument the model sent.
				switch answer := call.Args.String("confirmed"); {
				case call.Refines != nil && answer == "no":
					return command.Response{Spoken: l.T("Okay, %s stays locked.", e.Name()), Data: map[string]any{"entity": e.ID, "cancelled": true}}, nil
				case call.Refines == nil || answer != "yes":
					return command.Response{Kind: command.FollowUp, Spoken: l.T("Unlock %s? Say yes to confirm.", e.Name()),
						Data: map[string]any{"entity": e.ID, "awaiting": "a yes to unlock"}}, nil
				}
			}
			service, ok := act.services[e.Domain()]
			if !ok {
				service, ok = act.services["*"]
			}
			if !ok {
				return command.Response{Kind: command.Failure, Spoken: l.T("I can't do that to %s.", e.Name())}, nil
			}
			data := map[string]any{}
			value := any(nil)
			if act.data != "" {
				value = call.Args.String("value")
				if f, err := parseNumber(call.Args.String("value")); err == nil && act.data != "color_name" {
					value = f
				}
				data[act.data] = value
			}
			domain := e.Domain()
			if err := c.Call(ctx, domain, service, e.ID, data); err != nil {
				return command.Response{Kind: command.Failure, Spoken: spokenError(l, err), Data: map[string]any{"error": err.Error()}}, nil
			}
			a := l.Agreeing(l.FormOf(call.Utterance, e.Name()))
			spoken := a.T(act.done, e.Name())
			if act.data != "" {
				spoken = a.T(act.done, e.Name(), value)
			}
			return command.Response{Spoken: spoken, Data: map[string]any{"entity": e.ID, "service": domain + "." + service}}, nil
		},
	}
}

// State is home_state.
func State(c *Client) *command.Command {
	return &command.Command{
		Name:        "home_state",
		Description: "How a device or sensor in the home is now: on or off, open or closed, a temperature.",
		Keywords:    []string{"is the", "are the", "temperature in", "open", "closed", "locked"},
		Parameters:  []command.Parameter{{Name: "entity", Type: "string", Required: true, Description: "the device or sensor as the user named it"}},
		Secrets:     secrets,
		Examples:    []command.Example{{Utterance: "is the garage door open", Arguments: map[string]any{"entity": "garage door"}}},
		Validate: func(ctx context.Context, a command.Args) []command.Problem {
			if p := resolve(ctx, c, a.String("entity"), nil); p != nil {
				return []command.Problem{*p}
			}
			return nil
		},
		Run: func(ctx context.Context, call command.Call) (command.Response, error) {
			c.Forget() // a question wants the state now, as the offline one does
			e, err := entityByID(ctx, c, call.Args.String("entity"))
			switch {
			case errors.Is(err, errGone):
				return command.Response{Kind: command.Failure, Spoken: locale.Speaking(ctx).T("That device is gone from Home Assistant.")}, nil
			case err != nil:
				return command.Response{Kind: command.Failure, Spoken: spokenError(locale.Speaking(ctx), err), Data: map[string]any{"error": err.Error()}}, nil
			}
			return command.Response{Spoken: isSaid(locale.Speaking(ctx), call.Utterance, e),
				Data: map[string]any{"entity": e.ID, "state": e.State, "attributes": e.Attributes}}, nil
		},
	}
}

// opensLock reports whether the action on the entity unlocks a lock.
func opensLock(action, id string) bool {
	return strings.HasPrefix(id, "lock.") && (action == "unlock" || action == "turn_on" || action == "open")
}

var (
	yes = []string{"yes", "yes please", "yeah", "yep", "sure", "do it", "go ahead", "confirm", "confirmed", "ok", "okay", "unlock it"}
	no  = []string{"no", "no thanks", "nope", "cancel", "don't", "do not", "leave it", "keep it locked", "never mind"}
)

// said is what was said, lower-cased, its spaces single and its end's
// punctuation gone.
func said(text string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.Trim(text, " .!?"))), " ")
}

// yesOrNo reads the yes or no to an unlock asked about.
func yesOrNo(text string) (command.Args, bool) {
	t := said(text)
	switch {
	case slices.Contains(yes, t):
		return command.Args{"confirmed": "yes"}, true
	case slices.Contains(no, t):
		return command.Args{"confirmed": "no"}, true
	}
	return nil, false
}

// refine reads a follow-up to home_control: the yes or no to an unlock,
// or a new value for the last change ("make it 30", "actually blue").
func refine(text string, last command.Args) (command.Args, bool) {
	if opensLock(last.String("action"), last.String("entity")) {
		return yesOrNo(text)
	}
	t := said(text)
	if actions[last.String("action")].data == "" {
		return nil, false
	}
	for _, cue := range []string{"make it ", "make that ", "change it to ", "actually ", "set it to ", "no "} {
		if v, ok := strings.CutPrefix(t, cue); ok && v != "" && len(strings.Fields(v)) <= 3 {
			return command.Args{"value": strings.TrimSuffix(strings.TrimSuffix(v, " percent"), " degrees")}, true
		}
	}
	return nil, false
}

func parseNumber(s string) (float64, error) {
	var f float64
	_, err := fmt.Sscanf(strings.TrimSuffix(strings.TrimSpace(s), "%"), "%g", &f)
	return f, err
}

// SecretStore is where setup keeps what it was told; *storage.Secrets is
// one.
type SecretStore interface {
	Secrets
	Set(ctx context.Context, key, value string) error
}

// setup asks for Home Assistant's address and a token, checks them by
// reading the state list, keeps them, and says what it found.
func setup(c *Client) func(ctx context.Context, io command.SetupIO) error {
	return func(ctx context.Context, io command.SetupIO) error {
		store, ok := c.secrets.(SecretStore)
		if !ok {
			return errors.New("home: setup cannot store secrets here")
		}
		addr, err := io.Ask("Home Assistant's address (e.g. http://homeassistant.local:8123):")
		if err != nil {
			return err
		}
		token, err := io.Ask("A long-lived access token (Home Assistant: your profile, Security):")
		if err != nil {
			return err
		}
		addr, token = strings.TrimSpace(addr), strings.TrimSpace(token)
		trial := NewClient(secretPair{URLSecret: addr, TokenSecret: token})
		states, err := trial.States(ctx)
		if err != nil {
			return fmt.Errorf("home: %s did not accept that: %w", addr, err)
		}
		if err := store.Set(ctx, URLSecret, addr); err != nil {
			return err
		}
		if err := store.Set(ctx, TokenSecret, token); err != nil {
			return err
		}
		c.Forget()
		counts := map[string]int{}
		for _, s := range states {
			counts[s.Domain()]++
		}
		var parts []string
		for _, d := range []string{"light", "switch", "fan", "cover", "lock", "climate", "sensor", "binary_sensor", "media_player"} {
			if counts[d] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", counts[d], d))
			}
		}
		io.Say(fmt.Sprintf("Connected to Home Assistant at %s: %d entities (%s).", addr, len(states), strings.Join(parts, ", ")))
		return nil
	}
}

// secretPair is two secrets in memory, for trying them before they are
// kept.
type secretPair map[string]string

func (p secretPair) Get(_ context.Context, k string) (string, error) { return p[k], nil }
