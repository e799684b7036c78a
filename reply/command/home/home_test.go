package home

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// fakeHA behaves like Home Assistant's REST API: the state list, service
// calls that change it, and 401 for a wrong token.
type fakeHA struct {
	mu     sync.Mutex
	token  string
	states []Entity
	calls  []string // "domain/service entity_id data"
}

func ent(id, name, state string, attrs ...string) Entity {
	a := map[string]any{"friendly_name": name}
	for i := 0; i+1 < len(attrs); i += 2 {
		a[attrs[i]] = attrs[i+1]
	}
	return Entity{ID: id, State: state, Attributes: a}
}

func newFakeHA(t testing.TB) (*fakeHA, *httptest.Server) {
	ha := &fakeHA{token: "good", states: []Entity{
		ent("light.living_room_main", "Living Room Main Light", "off"),
		ent("light.study_reading", "Reading Lamp", "off", "area", "study"),
		ent("light.kitchen_ceiling", "Kitchen Ceiling", "on"),
		ent("light.kitchen_counter", "Kitchen Counter Lights", "off"),
		ent("light.bedroom", "Bedroom Light", "off"),
		ent("switch.coffee_machine", "Coffee Machine", "off"),
		ent("switch.christmas_tree", "Christmas Tree", "off"),
		ent("fan.attic", "Attic Fan", "off"),
		ent("lock.front_door", "Front Door", "locked"),
		ent("lock.back_door", "Back Door", "locked"),
		ent("cover.garage_door", "Garage Door", "closed"),
		ent("cover.bedroom_blinds", "Bedroom Blinds", "open"),
		ent("climate.hallway", "Hallway Thermostat", "heat"),
		ent("sensor.bedroom_temperature", "Bedroom Temperature", "19.5", "unit_of_measurement", "°C"),
	}}
	mux := http.NewServeMux()
	auth := func(h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+ha.token {
				w.WriteHeader(http.StatusUnauthorized)
				io.WriteString(w, "401: Unauthorized")
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc("GET /api/states", auth(func(w http.ResponseWriter, r *http.Request) {
		ha.mu.Lock()
		defer ha.mu.Unlock()
		json.NewEncoder(w).Encode(ha.states)
	}))
	mux.HandleFunc("POST /api/services/{domain}/{service}", auth(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		json.NewDecoder(r.Body).Decode(&body)
		id, _ := body["entity_id"].(string)
		delete(body, "entity_id")
		data, _ := json.Marshal(body)
		ha.mu.Lock()
		defer ha.mu.Unlock()
		ha.calls = append(ha.calls, r.PathValue("domain")+"/"+r.PathValue("service")+" "+id+" "+string(data))
		for i, s := range ha.states {
			if s.ID == id {
				switch r.PathValue("service") {
				case "turn_on":
					ha.states[i].State = "on"
				case "turn_off":
					ha.states[i].State = "off"
				}
			}
		}
		w.Write([]byte("[]"))
	}))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return ha, srv
}

type secretMap map[string]string

func (s secretMap) Get(_ context.Context, k string) (string, error) { return s[k], nil }

// TestFindEntities: the phrasings people use, and speech recognition's
// slips, find the entity meant; ambiguous names find several.
func TestFindEntities(t *testing.T) {
	ha, _ := newFakeHA(t)
	for _, tt := range []struct {
		said    string
		domains []string
		want    string // "" for no single entity
	}{
		{"living room light", nil, "light.living_room_main"},
		{"the living room light", nil, "light.living_room_main"},
		{"living room main light", nil, "light.living_room_main"},
		{"living room lights", []string{"light"}, "light.living_room_main"},
		{"the study lamp", []string{"light"}, "light.study_reading"},
		{"livin room main light", nil, "light.living_room_main"},
		{"lounge main light", nil, "light.living_room_main"},
		{"reading lamp", nil, "light.study_reading"},
		{"the reading light", nil, "light.study_reading"},
		{"redding lamp", nil, "light.study_reading"},
		{"kitchen ceiling", nil, "light.kitchen_ceiling"},
		{"kitchen ceiling light", nil, "light.kitchen_ceiling"},
		{"the kitchen ceiling lamp", nil, "light.kitchen_ceiling"},
		{"kichen ceiling", nil, "light.kitchen_ceiling"},
		{"kitchen counter", nil, "light.kitchen_counter"},
		{"kitchen counter lights", nil, "light.kitchen_counter"},
		{"the counter lights", nil, "light.kitchen_counter"},
		{"kitchen lights", []string{"light"}, ""}, // ceiling or counter
		{"kitchen", []string{"light"}, ""},
		{"bedroom light", []string{"light"}, "light.bedroom"},
		{"the bedroom lamp", []string{"light"}, "light.bedroom"},
		{"bed room light", []string{"light"}, "light.bedroom"},
		{"coffee machine", nil, "switch.coffee_machine"},
		{"the coffee maker machine", nil, "switch.coffee_machine"},
		{"coffe machine", nil, "switch.coffee_machine"},
		{"christmas tree", nil, "switch.christmas_tree"},
		{"the christmas tree lights", nil, "switch.christmas_tree"},
		{"chrismas tree", nil, "switch.christmas_tree"},
		{"attic fan", nil, "fan.attic"},
		{"the fan in the attic", nil, "fan.attic"},
		{"front door", []string{"lock"}, "lock.front_door"},
		{"the front door lock", []string{"lock"}, "lock.front_door"},
		{"back door", []string{"lock"}, "lock.back_door"},
		{"the door", []string{"lock"}, ""},
		{"garage door", nil, "cover.garage_door"},
		{"the garage", []string{"cover"}, "cover.garage_door"},
		{"garrage door", nil, "cover.garage_door"},
		{"bedroom blinds", []string{"cover"}, "cover.bedroom_blinds"},
		{"the blinds in the bedroom", []string{"cover"}, "cover.bedroom_blinds"},
		{"hallway thermostat", nil, "climate.hallway"},
		{"the heating", []string{"climate"}, "climate.hallway"},
		{"temperature in the bedroom", []string{"sensor"}, "sensor.bedroom_temperature"},
		{"bedroom temperature", nil, "sensor.bedroom_temperature"},
		{"light.kitchen_ceiling", nil, "light.kitchen_ceiling"},
		{"Living Room Main Light", nil, "light.living_room_main"},
		{"toaster", nil, ""},
		{"the moon", nil, ""},
	} {
		e, ok, _ := Best(Find(tt.said, ha.states, tt.domains))
		got := ""
		if ok {
			got = e.ID
		}
		if got != tt.want {
			ms := Find(tt.said, ha.states, tt.domains)
			var top []string
			for _, m := range ms[:min(3, len(ms))] {
				top = append(top, m.Entity.ID+" "+strings.TrimRight(strings.TrimRight(json.Number(formatScore(m.Score)).String(), "0"), "."))
			}
			t.Errorf("%q in %v: %q, want %q (top %v)", tt.said, tt.domains, got, tt.want, top)
		}
	}
}

func formatScore(f float64) string { b, _ := json.Marshal(f); return string(b) }

// TestControlAndStateOverTheAPI: home_control, as the model calls it,
// calls the service Home Assistant expects, with the token, after matching
// the name; home_state reads the state; a refused token is said plainly.
func TestControlAndStateOverTheAPI(t *testing.T) {
	ha, srv := newFakeHA(t)
	secrets := secretMap{URLSecret: srv.URL, TokenSecret: "good"}
	c := NewClient(secrets)
	reg := command.NewRegistry(command.Options{Secrets: secrets})
	if err := reg.Register(Control(c), State(c)); err != nil {
		t.Fatal(err)
	}
	resp := reg.Call(t.Context(), "home_control", map[string]any{"action": "turn_on", "entity": "living room light"}, "turn on the living room light")
	if resp.Kind != command.Success || resp.Spoken != "Living Room Main Light is on." {
		t.Fatalf("%+v", resp)
	}
	resp = reg.Call(t.Context(), "home_control", map[string]any{"action": "set_brightness", "entity": "reading lamp", "value": "40"}, "dim the reading lamp")
	if resp.Kind != command.Success {
		t.Fatalf("%+v", resp)
	}
	resp = reg.Call(t.Context(), "home_control", map[string]any{"action": "turn_off", "entity": "kitchen lights"}, "kitchen lights off")
	if resp.Kind != command.Invalid || len(resp.Problems) != 1 || len(resp.Problems[0].Valid) != 2 {
		t.Errorf("ambiguous: %+v, want the two kitchen lights to choose from", resp)
	}
	resp = reg.Call(t.Context(), "home_state", map[string]any{"entity": "temperature in the bedroom"}, "how warm is the bedroom")
	if resp.Spoken != "Bedroom Temperature is 19.5 °C." {
		t.Errorf("state: %+v", resp)
	}
	ha.mu.Lock()
	calls := append([]string(nil), ha.calls...)
	ha.mu.Unlock()
	want := []string{"light/turn_on light.living_room_main {}", "light/turn_on light.study_reading {\"brightness_pct\":40}"}
	if strings.Join(calls, "|") != strings.Join(want, "|") {
		t.Errorf("service calls %q, want %q", calls, want)
	}
	// A token Home Assistant refuses.
	ha.mu.Lock()
	ha.token = "rotated"
	ha.mu.Unlock()
	c.Forget()
	resp = reg.Call(t.Context(), "home_state", map[string]any{"entity": "garage door"}, "is the garage door open")
	if resp.Kind != command.Invalid || !strings.Contains(resp.Problems[0].Message, "isn't set up yet") {
		t.Errorf("a refused token: %+v", resp)
	}
}

type storeMap map[string]string

func (s storeMap) Get(_ context.Context, k string) (string, error) { return s[k], nil }
func (s storeMap) Set(_ context.Context, k, v string) error        { s[k] = v; return nil }

type scriptedIO struct {
	answers []string
	said    []string
}

func (s *scriptedIO) Ask(string) (string, error) {
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}
func (s *scriptedIO) Say(l string) { s.said = append(s.said, l) }

// TestSetup: `hark commands setup home_control` checks the address and
// token against the state list before keeping them, and says what it found.
func TestSetup(t *testing.T) {
	_, srv := newFakeHA(t)
	store := storeMap{}
	c := NewClient(store)
	cmd := Control(c)
	bad := &scriptedIO{answers: []string{srv.URL, "wrong"}}
	if err := cmd.Setup(t.Context(), bad); err == nil || !strings.Contains(err.Error(), "isn't set up") || len(store) != 0 {
		t.Errorf("a wrong token: %v, stored %v", err, store)
	}
	good := &scriptedIO{answers: []string{srv.URL, "good"}}
	if err := cmd.Setup(t.Context(), good); err != nil {
		t.Fatal(err)
	}
	if store[URLSecret] != srv.URL || store[TokenSecret] != "good" || len(good.said) != 1 || !strings.Contains(good.said[0], "14 entities (5 light, 2 switch, 1 fan, 2 cover, 2 lock") {
		t.Errorf("stored %v, said %q", store, good.said)
	}
}

func TestValueRefinement(t *testing.T) {
	ha, srv := newFakeHA(t)
	c := NewClient(storeMap{URLSecret: srv.URL, TokenSecret: ha.token})
	reg := command.NewRegistry(command.Options{Secrets: storeMap{URLSecret: srv.URL, TokenSecret: ha.token}})
	reg.Register(Control(c))
	reg.Call(t.Context(), "home_control", map[string]any{"action": "set_brightness", "entity": "reading lamp", "value": "40"}, "dim the reading lamp")
	u := reg.Understand(t.Context(), locale.English, "make it 70 percent")
	if !u.OK {
		t.Fatal("make it 70 percent was not a refinement")
	}
	if resp := reg.RunRoute(t.Context(), u.Route, "make it 70 percent"); resp.Spoken != "Reading Lamp is at 70 percent." {
		t.Errorf("refined: %+v", resp)
	}
}

// TestSetUp: Home Assistant is set up when its address and token are both
// kept; finding out asks nothing of it.
func TestSetUp(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("SetUp asked Home Assistant %s", r.URL.Path)
	}))
	defer srv.Close()
	for _, tt := range []struct {
		secrets Secrets
		want    bool
	}{
		{nil, false},
		{storeMap{}, false},
		{storeMap{URLSecret: srv.URL}, false},
		{storeMap{TokenSecret: "t0ken"}, false},
		{storeMap{URLSecret: srv.URL, TokenSecret: "t0ken"}, true},
	} {
		if got := NewClient(tt.secrets).SetUp(t.Context()); got != tt.want {
			t.Errorf("SetUp with %v = %v, want %v", tt.secrets, got, tt.want)
		}
	}
}
