package home

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
)

// House is Home Assistant's house as the offline path needs it: every
// entity with its area, the areas and the floors. The state list carries
// no area, so areas and floors come from Home Assistant's template API,
// which renders areas(), area_entities(), floors() and floor_areas().
type House struct {
	Entities []Entity
	Areas    []Area
	Floors   []Floor
}

// Area is a room.
type Area struct {
	ID, Name string
	// Floor is the floor's id, or "".
	Floor string
}

// Floor is a floor of the house.
type Floor struct {
	ID, Name string
}

// The templates Hark asks Home Assistant to render: the areas with their
// entities (an entity's own area, or its device's when it has none, as
// area_entities gives them), and the floors with their areas. Floors came
// in Home Assistant 2024.4; a server without them renders the first only.
const (
	AreasTemplate  = `{% set ns = namespace(out=[]) %}{% for a in areas() %}{% set ns.out = ns.out + [{"id": a, "name": area_name(a), "entities": area_entities(a)}] %}{% endfor %}{{ ns.out | to_json }}`
	FloorsTemplate = `{% set ns = namespace(out=[]) %}{% for f in floors() %}{% set ns.out = ns.out + [{"id": f, "name": floor_name(f), "areas": floor_areas(f)}] %}{% endfor %}{{ ns.out | to_json }}`
)

// Area is the id of the entity's area, or "" when it has none or the
// house was read without areas.
func (e Entity) Area() string { return e.area }

// AreaByID returns an area.
func (h House) AreaByID(id string) (Area, bool) {
	i := slices.IndexFunc(h.Areas, func(a Area) bool { return a.ID == id })
	if i < 0 {
		return Area{}, false
	}
	return h.Areas[i], true
}

// AreaNamed returns the area with that name or id, in any case.
func (h House) AreaNamed(name string) (Area, bool) {
	i := slices.IndexFunc(h.Areas, func(a Area) bool { return strings.EqualFold(a.Name, name) || a.ID == name })
	if i < 0 {
		return Area{}, false
	}
	return h.Areas[i], true
}

// FloorNamed returns the floor with that name or id, in any case.
func (h House) FloorNamed(name string) (Floor, bool) {
	i := slices.IndexFunc(h.Floors, func(f Floor) bool { return strings.EqualFold(f.Name, name) || f.ID == name })
	if i < 0 {
		return Floor{}, false
	}
	return h.Floors[i], true
}

// House returns the house, at most Refresh old: the state list, then
// the areas and floors rendered by the template API. When the template
// API refuses (a token of a user who is not an administrator, or a server
// without it), the house has entities and no areas, and the error is
// returned with it, for the caller to log.
func (c *Client) House(ctx context.Context) (House, error) {
	c.mu.Lock()
	if c.house != nil && time.Since(c.houseAt) < c.Refresh {
		h := *c.house
		c.mu.Unlock()
		return h, nil
	}
	if time.Since(c.failedAt) < c.Refresh && c.failed != nil {
		err := c.failed // Home Assistant did not answer a moment ago: no wait for it on every turn
		c.mu.Unlock()
		return House{}, err
	}
	c.mu.Unlock()
	states, err := c.States(ctx)
	if err != nil {
		c.mu.Lock()
		c.failed, c.failedAt = err, time.Now()
		c.mu.Unlock()
		return House{}, err
	}
	h := House{Entities: slices.Clone(states)}
	var areaErr error
	var areas []struct {
		ID       string   `json:"id"`
		Name     string   `json:"name"`
		Entities []string `json:"entities"`
	}
	if areaErr = c.render(ctx, AreasTemplate, &areas); areaErr == nil {
		where := map[string]string{}
		for _, a := range areas {
			h.Areas = append(h.Areas, Area{ID: a.ID, Name: a.Name})
			for _, e := range a.Entities {
				where[e] = a.ID
			}
		}
		for i := range h.Entities {
			h.Entities[i].area = where[h.Entities[i].ID]
		}
		var floors []struct {
			ID    string   `json:"id"`
			Name  string   `json:"name"`
			Areas []string `json:"areas"`
		}
		if err := c.render(ctx, FloorsTemplate, &floors); err == nil {
			for _, f := range floors {
				h.Floors = append(h.Floors, Floor{ID: f.ID, Name: f.Name})
				for _, id := range f.Areas {
					if i := slices.IndexFunc(h.Areas, func(a Area) bool { return a.ID == id }); i >= 0 {
						h.Areas[i].Floor = f.ID
					}
				}
			}
		}
	}
	c.mu.Lock()
	c.house, c.houseAt = &h, time.Now()
	c.mu.Unlock()
	if areaErr != nil {
		return h, fmt.Errorf("home: areas: %w", areaErr)
	}
	return h, nil
}

// ErrTemplate reports a template Home Assistant would not render.
var ErrTemplate = errors.New("home: Home Assistant did not render the template")

// render asks Home Assistant to render a template that writes JSON, and
// reads it into out.
func (c *Client) render(ctx context.Context, template string, out any) error {
	var text string
	err := c.do(ctx, http.MethodPost, "/api/template", map[string]any{"template": template}, &text)
	if err != nil {
		if errors.Is(err, ErrRefused) { // 401 for a token that works: the template API is for administrators
			return fmt.Errorf("%w: the token's user is not an administrator", ErrTemplate)
		}
		return fmt.Errorf("%w: %v", ErrTemplate, err)
	}
	if err := json.Unmarshal([]byte(text), out); err != nil {
		return fmt.Errorf("%w: not JSON: %v", ErrTemplate, err)
	}
	return nil
}
