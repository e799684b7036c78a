// Package intenttest reads Home Assistant's labelled test sentences (the
// tests/<lang>/ folder of its intents repository: sentences with the
// intent and slots they must give, and _fixtures.yaml, the house they are
// said in: floors, areas, entities, timers) for the tests that measure
// how well Hark understands a household. The folder is not part of Hark;
// tests find it through HARK_HA_TESTS and skip without it.
package intenttest

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Env names the variable that points at the tests folder.
const Env = "HARK_HA_TESTS"

// Dir is the tests folder HARK_HA_TESTS names, or "" when unset or absent.
func Dir() string {
	d := os.Getenv(Env)
	if d == "" {
		return ""
	}
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return ""
	}
	return d
}

// House is a test language's fixtures.
type House struct {
	Floors   []Floor
	Areas    []Area
	Entities []Entity
	Timers   []Timer
}

// Floor is a floor of the house; Name may be a template of its names.
type Floor struct {
	Name, ID string
}

// Area is a room; Name may be a template of its names.
type Area struct {
	Name, ID, Floor string
}

// Entity is a device: its id, name (maybe a template), area id, state as
// Home Assistant stores it and as said, and attributes.
type Entity struct {
	ID, Name, Area   string
	State, StateSaid string
	Attributes       map[string]any
}

// Domain is the part of the id before the dot.
func (e Entity) Domain() string { d, _, _ := strings.Cut(e.ID, "."); return d }

// Timer is a running timer of the fixtures.
type Timer struct {
	Name, Area                             string
	StartHours, StartMinutes, StartSeconds int
	Active                                 bool
	SecondsLeft                            int
}

// Case is one labelled sentence.
type Case struct {
	File     string
	Sentence string
	Intent   string
	// Slots are the slots the match must give; a list value allows any of
	// its values.
	Slots map[string]any
	// Context is the context the sentence is said in ({"area": "Kitchen"}
	// for a speaker there).
	Context map[string]any
	// Response is the response Home Assistant gives, when the test says.
	Response []string
	// HeldOut marks the half of the sentences kept out of any tuning:
	// figures are reported on it.
	HeldOut bool
}

// Load reads a language's fixtures and labelled sentences from dir.
func Load(dir, lang string) (House, []Case, error) {
	var h House
	b, err := os.ReadFile(filepath.Join(dir, lang, "_fixtures.yaml"))
	if err != nil {
		return h, nil, fmt.Errorf("intenttest: %w", err)
	}
	if h, err = readHouse(b); err != nil {
		return h, nil, fmt.Errorf("intenttest: %s fixtures: %w", lang, err)
	}
	// The folders per intent hold another suite, for another form of the
	// templates; only the files of the language's folder are read.
	files, err := filepath.Glob(filepath.Join(dir, lang, "*.yaml"))
	if err != nil {
		return h, nil, fmt.Errorf("intenttest: %w", err)
	}
	files = slices.DeleteFunc(files, func(f string) bool { return strings.HasPrefix(filepath.Base(f), "_") })
	sort.Strings(files)
	var cases []Case
	for _, f := range files {
		cs, err := readCases(f)
		if err != nil {
			return h, nil, fmt.Errorf("intenttest: %s: %w", f, err)
		}
		rel, _ := filepath.Rel(filepath.Join(dir, lang), f)
		for i := range cs {
			cs[i].File = rel
		}
		cases = append(cases, cs...)
	}
	return h, cases, nil
}

// heldOut splits the sentences in two halves by a hash of their words.
func heldOut(sentence string) bool {
	f := fnv.New32a()
	f.Write([]byte(strings.ToLower(sentence)))
	return f.Sum32()%2 == 1
}

func readHouse(b []byte) (House, error) {
	var raw struct {
		Floors   []map[string]any `yaml:"floors"`
		Areas    []map[string]any `yaml:"areas"`
		Entities []map[string]any `yaml:"entities"`
		Timers   []map[string]any `yaml:"timers"`
	}
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return House{}, err
	}
	var h House
	for _, f := range raw.Floors {
		h.Floors = append(h.Floors, Floor{Name: str(f["name"]), ID: str(f["id"])})
	}
	for _, a := range raw.Areas {
		h.Areas = append(h.Areas, Area{Name: str(a["name"]), ID: str(a["id"]), Floor: str(a["floor"])})
	}
	for _, e := range raw.Entities {
		ent := Entity{ID: str(e["id"]), Name: str(e["name"]), Area: str(e["area"]), State: "off"}
		switch s := e["state"].(type) {
		case string:
			ent.State = s
		case map[string]any:
			ent.State, ent.StateSaid = str(s["out"]), str(s["in"])
		case nil:
		default:
			ent.State = fmt.Sprint(s)
		}
		ent.Attributes, _ = e["attributes"].(map[string]any)
		h.Entities = append(h.Entities, ent)
	}
	for _, t := range raw.Timers {
		tm := Timer{Name: str(t["name"]), Area: str(t["area"]), Active: t["is_active"] != false}
		tm.StartHours, _ = t["start_hours"].(int)
		tm.StartMinutes, _ = t["start_minutes"].(int)
		tm.StartSeconds, _ = t["start_seconds"].(int)
		tm.SecondsLeft, _ = t["total_seconds_left"].(int)
		h.Timers = append(h.Timers, tm)
	}
	return h, nil
}

func str(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

func readCases(file string) ([]Case, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var raw struct {
		Tests []struct {
			Sentences []string `yaml:"sentences"`
			Intent    struct {
				Name    string         `yaml:"name"`
				Slots   map[string]any `yaml:"slots"`
				Context map[string]any `yaml:"context"`
			} `yaml:"intent"`
			Response any `yaml:"response"`
		} `yaml:"tests"`
	}
	if err := yaml.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	var out []Case
	for _, t := range raw.Tests {
		var resp []string
		switch r := t.Response.(type) {
		case string:
			resp = []string{strings.TrimSpace(r)}
		case []any:
			for _, x := range r {
				resp = append(resp, strings.TrimSpace(str(x)))
			}
		}
		for _, s := range t.Sentences {
			out = append(out, Case{Sentence: s, Intent: t.Intent.Name, Slots: t.Intent.Slots, Context: t.Intent.Context,
				Response: resp, HeldOut: heldOut(s)})
		}
	}
	return out, nil
}

// Same compares a slot value found with the value a test wants: numbers
// by value, text exactly; a wanted list is met by any of its values.
func Same(got, want any) bool {
	if g, ok := got.([]any); ok {
		if w, ok := want.([]any); ok { // both lists: all found are wanted
			return !slices.ContainsFunc(g, func(x any) bool { return !Same(x, w) })
		}
	}
	if l, ok := want.([]any); ok {
		return slices.ContainsFunc(l, func(w any) bool { return Same(got, w) })
	}
	gf, gok := num(got)
	wf, wok := num(want)
	if gok && wok {
		return gf == wf
	}
	return fmt.Sprint(got) == fmt.Sprint(want)
}

func num(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}
