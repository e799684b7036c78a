package home

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/intent"
	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/command"
)

// Lists are the house's names, areas and floors as the sentence
// templates' {name}, {area} and {floor}: every entity's friendly name,
// with its domain and device class as the context a template may require
// ("turn on" a light, "open" a cover).
func (c *Client) Lists(ctx context.Context) (map[string]*intent.List, error) {
	h, err := c.House(ctx)
	if err != nil && len(h.Entities) == 0 {
		if errors.Is(err, ErrNotSetUp) {
			return nil, err
		}
		// Out of reach: any words may name a device, a room or a
		// floor, so that a request naming one is matched as the
		// house's and answered with why it cannot be done.
		return map[string]*intent.List{"name": intent.Wildcard(), "area": intent.Wildcard(), "floor": intent.Wildcard()}, err
	}
	c.listMu.Lock()
	defer c.listMu.Unlock()
	if c.lists != nil && c.listsOf == houseKey(h) {
		return c.lists, err
	}
	var names, areas, floors []intent.Value
	for _, e := range h.Entities {
		n := e.Name()
		if n == e.ID { // no friendly name: nobody says it
			continue
		}
		ctx := map[string]any{"domain": e.Domain()}
		if dc, ok := e.Attributes["device_class"].(string); ok && dc != "" {
			ctx["device_class"] = dc
		}
		names = append(names, intent.Value{Text: n, Out: n, Context: ctx})
	}
	for _, a := range h.Areas {
		areas = append(areas, intent.Value{Text: a.Name, Out: a.Name})
	}
	for _, f := range h.Floors {
		floors = append(floors, intent.Value{Text: f.Name, Out: f.Name})
	}
	c.lists = map[string]*intent.List{"name": intent.NewList(names), "area": intent.NewList(areas), "floor": intent.NewList(floors)}
	c.listsOf = houseKey(h)
	return c.lists, err
}

// houseKey tells houses apart cheaply: the lists are rebuilt when the
// house read changes.
func houseKey(h House) string {
	var b strings.Builder
	for _, e := range h.Entities {
		b.WriteString(e.ID + "=" + e.Name() + "@" + e.area + ";")
	}
	for _, a := range h.Areas {
		b.WriteString(a.ID + "=" + a.Name + "/" + a.Floor + ";")
	}
	for _, f := range h.Floors {
		b.WriteString(f.ID + "=" + f.Name + ";")
	}
	return b.String()
}

var _ command.Lister = (*Client)(nil)

// listCache is embedded in Client.
type listCache struct {
	listMu  sync.Mutex
	lists   map[string]*intent.List
	listsOf string
}

// scope is what a match says about which entities it means.
type scope struct {
	name, area, floor string // as said, or the area from the speaker's context
	areaFromContext   bool
	domains, classes  []string
}

// scopeOf reads a match's name, area, floor, domain and device_class
// slots.
func scopeOf(m command.Match) scope {
	var s scope
	if n, ok := m.Slots["name"]; ok && !n.Wildcard && !(n.Text == "" && n.Value == "all") {
		s.name = m.String("name") // a fixed name "all" is Home Assistant's every one
	}
	s.area = m.String("area")
	s.areaFromContext = m.Slots["area"].FromContext
	s.floor = m.String("floor")
	s.domains = strs(m.Slots["domain"].Value)
	s.classes = strs(m.Slots["device_class"].Value)
	return s
}

func strs(v any) []string {
	switch x := v.(type) {
	case string:
		return []string{x}
	case []any:
		var out []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// byPlace are the intents that act on the devices of a place (lights,
// switches, covers, thermostats, and questions about them): said with no
// device, room or floor, they act where the speaker stands, or on the
// whole house. The media controls act by place too (the players in the
// speaker's room), but they are left whole: said short far more often
// than with a room, and at worst they pause or skip the music in the
// wrong room. The lists and the vacuum have no place.
var byPlace = []string{"HassTurnOn", "HassTurnOff", "HassLightSet", "HassSetPosition",
	"HassClimateSetTemperature", "HassClimateGetTemperature", "HassGetState"}

// unplaced reports a match of an intent that acts by place and names no
// device, room or floor (command.Claim.Unplaced).
func unplaced(m command.Match) bool {
	s := scopeOf(m)
	return slices.Contains(byPlace, m.Intent) && s.name == "" && (s.area == "" || s.areaFromContext) && s.floor == ""
}

// contextArea is the speaker's area from the match's context, if any.
func contextArea(m command.Match) string {
	v, _ := m.Context["area"].(map[string]any)
	s, _ := v["value"].(string)
	if s == "" {
		s, _ = m.Context["area"].(string)
	}
	return s
}

// notThere is targets' answer when a device of the name said is in the
// house but none is in the area or on the floor said: as Home Assistant,
// Hark acts on nothing outside the place said, and says so.
type notThere struct {
	name        string // as said
	area, floor string // the house's names of the area or floor said
}

func (n *notThere) Error() string {
	if n.floor != "" {
		return fmt.Sprintf("home: no device called %q on the floor %s", n.name, n.floor)
	}
	return fmt.Sprintf("home: no device called %q in the area %s", n.name, n.area)
}

// args write it as the hidden commands' "absent" argument.
func (n *notThere) args() map[string]any {
	if n.floor != "" {
		return map[string]any{"name": n.name, "floor": n.floor}
	}
	return map[string]any{"name": n.name, "area": n.area}
}

// absentSaid is the answer to a call whose "absent" argument says the
// device named is not in the place said; false when it has none.
func absentSaid(l locale.Lang, a command.Args) (string, bool) {
	m, ok := a["absent"].(map[string]any)
	if !ok {
		return "", false
	}
	name, _ := m["name"].(string)
	if floor, _ := m["floor"].(string); floor != "" {
		return l.T("There's nothing called %s on the floor %s.", name, floor), true
	}
	area, _ := m["area"].(string)
	return l.T("There's nothing called %s in the %s area.", name, area), true
}

// inPlaceSaid keeps the entities in the area and on the floor the user
// said; an area that is only the speaker's own binds nothing.
func inPlaceSaid(h House, s scope, es []Entity) ([]Entity, error) {
	if s.area != "" && !s.areaFromContext {
		a, ok := h.AreaNamed(s.area)
		if !ok {
			return nil, command.Unresolved("area", fmt.Sprintf("no area %q", s.area))
		}
		es = slices.DeleteFunc(slices.Clone(es), func(e Entity) bool { return e.area != a.ID })
		if len(es) == 0 {
			return nil, &notThere{name: s.name, area: a.Name}
		}
	}
	if s.floor != "" {
		f, ok := h.FloorNamed(s.floor)
		if !ok {
			return nil, command.Unresolved("floor", fmt.Sprintf("no floor %q", s.floor))
		}
		es = slices.DeleteFunc(slices.Clone(es), func(e Entity) bool {
			a, ok := h.AreaByID(e.area)
			return !ok || a.Floor != f.ID
		})
		if len(es) == 0 {
			return nil, &notThere{name: s.name, floor: f.Name}
		}
	}
	return es, nil
}

// targets are the entities a match means, of those able to do what it
// asks: the ones of the name said, in the area or on the floor said (the
// speaker's own area tells apart devices of the same name, but binds
// none), else those in the area or on the floor said (or the speaker's
// area), else the whole house; narrowed to the domains and device classes
// said. None is an unresolved slot, or a *notThere when the name is
// elsewhere than the place said; several of one name is unresolved too,
// unless many are wanted.
func targets(h House, m command.Match, able func(Entity) bool, many bool) ([]Entity, error) {
	s := scopeOf(m)
	in := func(e Entity) bool {
		if len(s.domains) > 0 && !slices.Contains(s.domains, e.Domain()) {
			return false
		}
		if len(s.classes) > 0 {
			dc, _ := e.Attributes["device_class"].(string)
			if !slices.Contains(s.classes, dc) {
				return false
			}
		}
		return able == nil || able(e)
	}
	var out []Entity
	switch {
	case s.name != "":
		for _, e := range h.Entities {
			if strings.EqualFold(strings.TrimSpace(e.Name()), s.name) && in(e) {
				out = append(out, e)
			}
		}
		if len(out) == 0 {
			return nil, command.Unresolved("name", fmt.Sprintf("no device called %q can do that", s.name))
		}
		var err error
		if out, err = inPlaceSaid(h, s, out); err != nil {
			return nil, err
		}
		if len(out) > 1 {
			where := s.area
			if where == "" {
				where = contextArea(m)
			}
			if a, ok := h.AreaNamed(where); ok {
				if here := slices.DeleteFunc(slices.Clone(out), func(e Entity) bool { return e.area != a.ID }); len(here) > 0 {
					out = here
				}
			}
		}
		if len(out) > 1 { // as Home Assistant: a name is one device
			return nil, command.Unresolved("name", fmt.Sprintf("%d devices are called %q", len(out), s.name))
		}
		return out, nil
	case s.area != "":
		a, ok := h.AreaNamed(s.area)
		if !ok {
			return nil, command.Unresolved("area", fmt.Sprintf("no area %q", s.area))
		}
		for _, e := range h.Entities {
			if e.area == a.ID && in(e) {
				out = append(out, e)
			}
		}
	case s.floor != "":
		f, ok := h.FloorNamed(s.floor)
		if !ok {
			return nil, command.Unresolved("floor", fmt.Sprintf("no floor %q", s.floor))
		}
		for _, e := range h.Entities {
			if a, ok := h.AreaByID(e.area); ok && a.Floor == f.ID && in(e) {
				out = append(out, e)
			}
		}
	default:
		for _, e := range h.Entities {
			if in(e) {
				out = append(out, e)
			}
		}
	}
	if len(out) == 0 {
		return nil, command.Unresolved("area", "nothing there can do that")
	}
	return out, nil
}

// ids are the entities' ids.
func ids(es []Entity) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

// serviceCall is one Home Assistant service call, as the offline path's
// arguments show it.
type serviceCall struct {
	Service  string         `json:"service"`
	Entities []string       `json:"entity_id"`
	Data     map[string]any `json:"data,omitempty"`
}

// calls groups entities into one call per service: services are per
// domain ("light.turn_on", "cover.open_cover").
func calls(es []Entity, service func(Entity) string, data map[string]any) []serviceCall {
	var out []serviceCall
	for _, e := range es {
		svc := service(e)
		if i := slices.IndexFunc(out, func(c serviceCall) bool { return c.Service == svc }); i >= 0 {
			out[i].Entities = append(out[i].Entities, e.ID)
			continue
		}
		out = append(out, serviceCall{Service: svc, Entities: []string{e.ID}, Data: data})
	}
	return out
}

// asArgs writes calls as a command's arguments: plain maps and lists, as
// the JSON a tool call carries.
func asArgs(intentName string, cs []serviceCall) map[string]any {
	var list []any
	for _, c := range cs {
		m := map[string]any{"service": c.Service, "entity_id": toAny(c.Entities)}
		if len(c.Data) > 0 {
			m["data"] = c.Data
		}
		list = append(list, m)
	}
	return map[string]any{"intent": intentName, "calls": list}
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// fromArgs reads calls back from a command's arguments.
func fromArgs(a command.Args) []serviceCall {
	list, _ := a["calls"].([]any)
	var out []serviceCall
	for _, x := range list {
		m, _ := x.(map[string]any)
		c := serviceCall{}
		c.Service, _ = m["service"].(string)
		c.Entities = strs(m["entity_id"])
		c.Data, _ = m["data"].(map[string]any)
		if c.Service != "" {
			out = append(out, c)
		}
	}
	return out
}

// named is nil when the house's names a request took as free text (its
// lists are wildcards while the house cannot be read) may be names, and
// else the error that leaves the match to other commands: "tell me a
// joke" or "what is 3 plus 4" names no device. A question is the house's
// only by the house's own names: "what is {name}" would take any
// question.
func named(m command.Match, question bool) error {
	said := " " + utterance.Normalize(m.Said) + " "
	rest, free := said, ""
	for _, slot := range []string{"name", "area", "floor"} {
		s, ok := m.Slots[slot]
		if !ok || !s.Wildcard {
			continue
		}
		text := " " + utterance.Normalize(s.Text) + " "
		if question || !command.NameLike(s.Text) || !strings.Contains(said, text) {
			return command.Unresolved(slot, fmt.Sprintf("%q names nothing of the house", s.Text))
		}
		rest, free = strings.Replace(rest, text, " ", 1), slot
	}
	if free != "" && strings.TrimSpace(rest) == "" {
		// Names alone ("{name} {area}"): any words would do, in any
		// language.
		return command.Unresolved(free, "no words besides the names")
	}
	return nil
}
