package home_test

import (
	"context"
	"errors"
	"testing"

	"github.com/harkbox/hark/reply/command/home"
	"github.com/harkbox/hark/reply/command/home/hatest"
)

type secrets map[string]string

func (s secrets) Get(_ context.Context, k string) (string, error) { return s[k], nil }

func testHouse(t *testing.T) *hatest.HA {
	return hatest.New(t,
		[]hatest.Floor{{ID: "ground", Name: "Ground Floor"}, {ID: "up", Name: "Upstairs"}},
		[]hatest.Area{{ID: "kitchen", Name: "Kitchen", Floor: "ground"}, {ID: "bedroom", Name: "Bedroom", Floor: "up"}, {ID: "shed", Name: "Shed"}},
		[]hatest.Device{{ID: "hue1", Area: "kitchen"}, {ID: "hue2", Area: "kitchen"}},
		[]hatest.Entity{
			{ID: "light.ceiling", Name: "Ceiling", State: "off", Device: "hue1"},                      // the device's area
			{ID: "light.bedside", Name: "Bedside Lamp", State: "on", Device: "hue2", Area: "bedroom"}, // its own area wins
			{ID: "switch.kettle", Name: "Kettle", State: "off", Area: "kitchen"},
			{ID: "sensor.outside", Name: "Outside", State: "12", Attributes: map[string]any{"unit_of_measurement": "°C"}},
		})
}

// TestHouseFromTheTemplateAPI: the state list carries no area; the areas,
// each entity's area (its own, else its device's) and the floors come from
// the templates Home Assistant renders.
func TestHouseFromTheTemplateAPI(t *testing.T) {
	ha := testHouse(t)
	c := home.NewClient(secrets(ha.Secrets()))
	h, err := c.House(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	areas := map[string]string{}
	for _, e := range h.Entities {
		areas[e.ID] = e.Area()
	}
	want := map[string]string{"light.ceiling": "kitchen", "light.bedside": "bedroom", "switch.kettle": "kitchen", "sensor.outside": ""}
	for id, a := range want {
		if areas[id] != a {
			t.Errorf("%s is in %q, want %q", id, areas[id], a)
		}
	}
	if len(h.Areas) != 3 || len(h.Floors) != 2 {
		t.Fatalf("areas %v, floors %v", h.Areas, h.Floors)
	}
	if k, ok := h.AreaNamed("kitchen"); !ok || k.Floor != "ground" {
		t.Errorf("kitchen: %+v %v, want on the ground floor", k, ok)
	}
	if s, _ := h.AreaNamed("Shed"); s.Floor != "" {
		t.Errorf("the shed is on floor %q, want none", s.Floor)
	}
	if f, ok := h.FloorNamed("upstairs"); !ok || f.ID != "up" {
		t.Errorf("upstairs: %+v %v", f, ok)
	}
	// Kept for the refresh time: asked once.
	c.House(t.Context())
	if ha.Templates != 2 {
		t.Errorf("%d templates rendered, want 2 (areas, floors), then the house kept", ha.Templates)
	}
}

// TestHouseWithoutTheTemplateAPI: a token of a user who is no
// administrator reads the states but not the areas; the house still has
// its entities, and the error says why.
func TestHouseWithoutTheTemplateAPI(t *testing.T) {
	ha := testHouse(t)
	ha.Admin = false
	h, err := home.NewClient(secrets(ha.Secrets())).House(t.Context())
	if !errors.Is(err, home.ErrTemplate) || len(h.Entities) != 4 || len(h.Areas) != 0 {
		t.Errorf("house %+v, err %v; want the entities, no areas and ErrTemplate", h, err)
	}
}
