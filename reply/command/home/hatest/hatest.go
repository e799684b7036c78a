// Package hatest is a Home Assistant for tests, behind net/http/httptest:
// a house of floors, areas, devices and entities, served over the REST
// API the way Home Assistant serves it. GET /api/ says the API runs, GET
// /api/states lists the states (no areas: Home Assistant's state list
// carries none), POST /api/services/<domain>/<service> calls a service
// and changes the states it changes (or is refused with 401 for an entity
// the token's user may not control), and POST /api/template renders the
// templates Hark sends
// (home.AreasTemplate, home.FloorsTemplate) from the registries, for an
// administrator's token only, as Home Assistant does; any other template
// is refused with Home Assistant's 400.
package hatest

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/command/home"
)

// Floor, Area, Device and Entity make up the house.
type Floor struct{ ID, Name string }

// Area is a room, on a floor or none.
type Area struct{ ID, Name, Floor string }

// Device sits in an area; its entities are there unless they have their
// own.
type Device struct{ ID, Area string }

// Entity is a thing with a state. Name is its friendly name.
type Entity struct {
	ID, Name, State string
	Area, Device    string
	Attributes      map[string]any
}

// Call is a service call received.
type Call struct {
	Domain, Service string
	Entities        []string
	Data            map[string]any
}

func (c Call) String() string {
	d, _ := json.Marshal(c.Data)
	return fmt.Sprintf("%s.%s %s %s", c.Domain, c.Service, strings.Join(c.Entities, ","), d)
}

// HA is the fake Home Assistant. Its fields may be changed under Lock.
type HA struct {
	sync.Mutex
	URL string
	// Token is the accepted token; Admin says whether its user is an
	// administrator (the template API needs one).
	Token string
	Admin bool
	// Forbidden are the entities the token's user may not control: a
	// service call on one is refused with 401, as Home Assistant refuses
	// a call its permissions do not allow.
	Forbidden []string
	Floors    []Floor
	Areas     []Area
	Devices   []Device
	Entities  []Entity
	Calls     []Call
	// Templates counts the templates rendered.
	Templates int
}

// New starts a Home Assistant with the house, for the test's length; the
// token is "token" and its user an administrator.
func New(t testing.TB, floors []Floor, areas []Area, devices []Device, entities []Entity) *HA {
	ha := &HA{Token: "token", Admin: true, Floors: floors, Areas: areas, Devices: devices, Entities: entities}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/{$}", ha.auth(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"message":"API running."}`)
	}))
	mux.HandleFunc("GET /api/states", ha.auth(ha.states))
	mux.HandleFunc("POST /api/services/{domain}/{service}", ha.auth(ha.service))
	mux.HandleFunc("POST /api/template", ha.auth(ha.template))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	ha.URL = srv.URL
	return ha
}

// Small starts a Home Assistant with a small house, for the test's length:
// the kitchen, the living room and the salon on the ground floor, the
// bedroom on the first; a light in each (two in the living room), and the
// kitchen's speaker and thermostat.
func Small(t testing.TB) *HA {
	return New(t, []Floor{{ID: "ground", Name: "Ground floor"}, {ID: "first", Name: "First floor"}},
		[]Area{{ID: "kitchen", Name: "Kitchen", Floor: "ground"}, {ID: "living_room", Name: "Living room", Floor: "ground"},
			{ID: "salon", Name: "Salon", Floor: "ground"}, {ID: "bedroom", Name: "Bedroom", Floor: "first"}}, nil,
		[]Entity{
			{ID: "light.kitchen", Name: "Kitchen light", State: "off", Area: "kitchen"},
			{ID: "light.living_room_lamp", Name: "Living room lamp", State: "off", Area: "living_room"},
			{ID: "light.living_room_light", Name: "Living room light", State: "off", Area: "living_room"},
			{ID: "light.salon", Name: "Lumière du salon", State: "off", Area: "salon"},
			{ID: "light.bedroom", Name: "Bedroom light", State: "off", Area: "bedroom"},
			{ID: "media_player.kitchen", Name: "Kitchen speaker", State: "playing", Area: "kitchen"},
			{ID: "climate.kitchen", Name: "Kitchen thermostat", State: "heat", Area: "kitchen", Attributes: map[string]any{"current_temperature": 20.5}},
		})
}

// Secrets are the secrets that point Hark at it.
func (ha *HA) Secrets() map[string]string {
	return map[string]string{home.URLSecret: ha.URL, home.TokenSecret: ha.Token}
}

// CallsMade returns the service calls so far, as "light.turn_on
// light.a,light.b {data}".
func (ha *HA) CallsMade() []string {
	ha.Lock()
	defer ha.Unlock()
	var out []string
	for _, c := range ha.Calls {
		out = append(out, c.String())
	}
	return out
}

func (ha *HA) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ha.Lock()
		ok := r.Header.Get("Authorization") == "Bearer "+ha.Token
		ha.Unlock()
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, "401: Unauthorized")
			return
		}
		h(w, r)
	}
}

// state is an entity as /api/states lists it.
func (e Entity) state(at time.Time) map[string]any {
	attrs := map[string]any{}
	maps.Copy(attrs, e.Attributes)
	if e.Name != "" {
		attrs["friendly_name"] = e.Name
	}
	ts := at.UTC().Format(time.RFC3339Nano)
	return map[string]any{"entity_id": e.ID, "state": e.State, "attributes": attrs, "last_changed": ts,
		"last_reported": ts, "last_updated": ts, "context": map[string]any{"id": "01J0000000000000000000000", "parent_id": nil, "user_id": nil}}
}

func (ha *HA) states(w http.ResponseWriter, r *http.Request) {
	ha.Lock()
	defer ha.Unlock()
	var out []map[string]any
	for _, e := range ha.Entities {
		out = append(out, e.state(time.Unix(1700000000, 0)))
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

func (ha *HA) service(w http.ResponseWriter, r *http.Request) {
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"message": "Data should be valid JSON."})
		return
	}
	var ids []string
	switch v := body["entity_id"].(type) {
	case string:
		ids = []string{v}
	case []any:
		for _, x := range v {
			if s, ok := x.(string); ok {
				ids = append(ids, s)
			}
		}
	}
	delete(body, "entity_id")
	c := Call{Domain: r.PathValue("domain"), Service: r.PathValue("service"), Entities: ids, Data: body}
	ha.Lock()
	defer ha.Unlock()
	if slices.ContainsFunc(ids, func(id string) bool { return slices.Contains(ha.Forbidden, id) }) {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "401: Unauthorized")
		return
	}
	ha.Calls = append(ha.Calls, c)
	var changed []map[string]any
	for i := range ha.Entities {
		e := &ha.Entities[i]
		if !slices.Contains(ids, e.ID) {
			continue
		}
		apply(e, c)
		changed = append(changed, e.state(time.Unix(1700000000, 0)))
	}
	w.Header().Set("Content-Type", "application/json")
	if changed == nil {
		changed = []map[string]any{}
	}
	json.NewEncoder(w).Encode(changed)
}

// apply changes an entity's state as the service would.
func apply(e *Entity, c Call) {
	if e.Attributes == nil {
		e.Attributes = map[string]any{}
	}
	switch c.Service {
	case "turn_on":
		e.State = "on"
		for k, v := range c.Data {
			e.Attributes[k] = v
		}
	case "turn_off":
		e.State = "off"
	case "toggle":
		e.State = map[string]string{"on": "off", "off": "on"}[e.State]
	case "open_cover", "open_valve":
		e.State = "open"
	case "close_cover", "close_valve":
		e.State = "closed"
	case "lock":
		e.State = "locked"
	case "unlock":
		e.State = "unlocked"
	case "media_pause":
		e.State = "paused"
	case "media_play":
		e.State = "playing"
	case "start":
		e.State = "cleaning"
	case "return_to_base":
		e.State = "returning"
	case "set_temperature":
		e.Attributes["temperature"] = c.Data["temperature"]
	case "set_cover_position":
		e.Attributes["current_position"] = c.Data["position"]
	case "set_valve_position":
		e.Attributes["current_position"] = c.Data["position"]
	case "volume_set":
		e.Attributes["volume_level"] = c.Data["volume_level"]
	}
}

// areaEntities are an area's entities as area_entities gives them: those
// assigned to it, then those of its devices that have no area of their
// own.
func (ha *HA) areaEntities(area string) []string {
	out := []string{}
	for _, e := range ha.Entities {
		if e.Area == area {
			out = append(out, e.ID)
		}
	}
	for _, d := range ha.Devices {
		if d.Area != area {
			continue
		}
		for _, e := range ha.Entities {
			if e.Device == d.ID && e.Area == "" {
				out = append(out, e.ID)
			}
		}
	}
	return out
}

func (ha *HA) template(w http.ResponseWriter, r *http.Request) {
	ha.Lock()
	defer ha.Unlock()
	if !ha.Admin {
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, "401: Unauthorized")
		return
	}
	var body map[string]any
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"message": "Error rendering template: " + err.Error()})
		return
	}
	ha.Templates++
	var out any
	switch body["template"] {
	case home.AreasTemplate:
		var areas []map[string]any
		for _, a := range ha.Areas {
			areas = append(areas, map[string]any{"id": a.ID, "name": a.Name, "entities": ha.areaEntities(a.ID)})
		}
		out = areas
	case home.FloorsTemplate:
		var floors []map[string]any
		for _, f := range ha.Floors {
			var ids []string
			for _, a := range ha.Areas {
				if a.Floor == f.ID {
					ids = append(ids, a.ID)
				}
			}
			floors = append(floors, map[string]any{"id": f.ID, "name": f.Name, "areas": ids})
		}
		out = floors
	default:
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]string{"message": "Error rendering template: this test double renders Hark's templates only"})
		return
	}
	b, _ := json.Marshal(out)
	if string(b) == "null" {
		b = []byte("[]")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Write(b)
}
