package home_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/intent"
	"github.com/harkbox/hark/locale/intent/intenttest"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/command/home"
	"github.com/harkbox/hark/reply/command/home/hatest"
	"github.com/harkbox/hark/reply/command/weather"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/reply/schedule/scheduletest"
)

// The household bar: Home Assistant's own labelled test sentences
// (HARK_HA_TESTS), said to a speaker with no model server, in a house
// served by hatest from the test's fixtures. Each is carried out
// correctly (the intent labelled, every action on entities the labelled
// slots allow, every value as labelled), not carried out (left to the
// model, or said not understood), or carried out wrongly. The sentences
// are split in halves by intenttest; the held-out half is never looked at
// while tuning, and its figures are the ones reported.

// supported are the intents the issue asks carried out offline.
var supported = []string{
	"HassStartTimer", "HassCancelTimer", "HassCancelAllTimers", "HassPauseTimer", "HassUnpauseTimer",
	"HassIncreaseTimer", "HassDecreaseTimer", "HassTimerStatus", "HassGetCurrentTime", "HassGetCurrentDate",
	"HassGetWeather", "HassSetVolume", "HassNevermind", "HassTurnOn", "HassTurnOff", "HassLightSet",
	"HassGetState", "HassClimateGetTemperature", "HassClimateSetTemperature", "HassSetPosition",
	"HassMediaPause", "HassMediaUnpause", "HassMediaNext", "HassMediaPrevious", "HassVacuumStart",
	"HassVacuumReturnToBase", "HassShoppingListAddItem", "HassShoppingListCompleteItem", "HassListAddItem",
	"HassListCompleteItem",
}

// household is one language's world: the fake Home Assistant and the
// speaker's registry over it, built anew for each sentence.
type household struct {
	ha    *hatest.HA
	reg   *command.Registry
	sched *schedule.Scheduler
	now   time.Time
}

type memMixer struct{ level int }

func (m *memMixer) Volume(context.Context) (int, bool, error)        { return m.level, false, nil }
func (m *memMixer) SetVolume(_ context.Context, l int, _ bool) error { m.level = l; return nil }

type noStatus struct{}

func (noStatus) Status(context.Context) builtin.DeviceStatus { return builtin.DeviceStatus{} }

type noHome struct{}

func (noHome) Home(context.Context) (weather.Place, bool, error) { return weather.Place{}, false, nil }
func (noHome) SetHome(context.Context, weather.Place) error      { return nil }

// first is a fixture name as Home Assistant holds it: a name written as a
// template is its first expansion (Hark reads no aliases).
func first(name string) string { return intent.Expand(name)[0] }

func newHousehold(t *testing.T, h intenttest.House, area string) *household {
	var floors []hatest.Floor
	for _, f := range h.Floors {
		floors = append(floors, hatest.Floor{ID: f.ID, Name: first(f.Name)})
	}
	var areas []hatest.Area
	for _, a := range h.Areas {
		areas = append(areas, hatest.Area{ID: a.ID, Name: first(a.Name), Floor: a.Floor})
	}
	var ents []hatest.Entity
	for _, e := range h.Entities {
		ents = append(ents, hatest.Entity{ID: e.ID, Name: first(e.Name), State: e.State, Area: e.Area, Attributes: e.Attributes})
	}
	ha := hatest.New(t, floors, areas, nil, ents)
	hh := &household{ha: ha, now: time.Date(2025, 7, 4, 10, 0, 0, 0, time.UTC)}
	clock := func() time.Time { return hh.now }
	hh.sched, _ = schedule.New(schedule.Options{Store: scheduletest.New(), Now: clock, Location: time.UTC})
	areaName := map[string]string{}
	for _, a := range h.Areas {
		areaName[a.ID] = first(a.Name)
	}
	for _, tm := range h.Timers {
		d := time.Duration(tm.StartHours)*time.Hour + time.Duration(tm.StartMinutes)*time.Minute + time.Duration(tm.StartSeconds)*time.Second
		if _, err := hh.sched.AddTimer(command.WithArea(t.Context(), areaName[tm.Area]), tm.Name, d); err != nil {
			t.Fatal(err)
		}
	}
	keys := secretsOf(ha.Secrets())
	c := home.NewClient(keys)
	hh.reg = command.NewRegistry(command.Options{Secrets: keys, Lists: c, Area: area, Now: clock, Location: time.UTC})
	cmds := builtin.All(builtin.Deps{Schedule: hh.sched, Mixer: &memMixer{50}, Status: noStatus{}})
	cmds = append(cmds, weather.Command(nil, noHome{}), home.Control(c), home.State(c), home.Service(c), home.Query(c))
	if err := hh.reg.Register(cmds...); err != nil {
		t.Fatal(err)
	}
	return hh
}

// outcome of one labelled sentence.
type outcome int

const (
	correct outcome = iota
	notDone
	wrong
	// refused: understood as labelled, and not carried out because no
	// device of the house fits the labelled slots (Home Assistant answers
	// "no such device" there too).
	refused
)

// fileDomain is the domain a test file is about: media_player of
// media_player_HassMediaNext.yaml.
func fileDomain(file string) string {
	d, _, _ := strings.Cut(file, "_Hass")
	return d
}

// nothingFits reports whether no device of the house is one the labelled
// slots and the test file's domain allow.
func nothingFits(h intenttest.House, c intenttest.Case) bool {
	if strings.HasPrefix(c.File, "homeassistant_") && !slices.ContainsFunc([]string{"name", "area", "floor", "domain", "device_class"}, func(k string) bool { _, ok := c.Slots[k]; return ok }) {
		return false
	}
	domain := fileDomain(c.File)
	areaOf := func(name any) (intenttest.Area, bool) {
		for _, a := range h.Areas {
			if slices.ContainsFunc(intent.Expand(a.Name), func(n string) bool { return intenttest.Same(n, name) }) {
				return a, true
			}
		}
		return intenttest.Area{}, false
	}
	for _, e := range h.Entities {
		if domain != "homeassistant" && e.Domain() != domain {
			continue
		}
		if allowed(h, c, e, areaOf) == "" {
			return false
		}
	}
	return true
}

// fit is the house with the device a labelled sentence asks for when the
// fixtures lack one (they were written for recognition only: "turn on
// the fans in the kitchen" with no fan there): one of the test file's
// domain, with the labelled name, in the labelled area (or one on the
// labelled floor, or the speaker's), its state and attributes those of
// another of its domain. False when the label does not say enough.
func fit(h intenttest.House, c intenttest.Case) (intenttest.House, bool) {
	if c.Intent == "HassGetState" {
		return h, false // a question's answer is the state, which no label says
	}
	one := func(v any) (string, bool) {
		if l, ok := v.([]any); ok && len(l) > 0 {
			v = l[0]
		}
		s, ok := v.(string)
		return s, ok && s != ""
	}
	domain := fileDomain(c.File)
	if domain == "homeassistant" {
		d, ok := one(c.Slots["domain"])
		if !ok {
			return h, false
		}
		domain = d
	}
	e := intenttest.Entity{ID: domain + ".fitted", Name: domain + " fitted", State: "off", Attributes: map[string]any{}}
	for _, o := range h.Entities {
		if o.Domain() == domain {
			e.State, e.Attributes = o.State, maps.Clone(o.Attributes)
			break
		}
	}
	if n, ok := one(c.Slots["name"]); ok && n != "all" {
		e.Name = n
	}
	if dc, ok := one(c.Slots["device_class"]); ok {
		e.Attributes["device_class"] = dc
	}
	areaNamed := func(name string) (intenttest.Area, bool) {
		for _, a := range h.Areas {
			if slices.ContainsFunc(intent.Expand(a.Name), func(n string) bool { return intenttest.Same(n, name) }) {
				return a, true
			}
		}
		return intenttest.Area{}, false
	}
	area, hasArea := one(c.Slots["area"])
	if !hasArea {
		area, hasArea = one(c.Context["area"])
	}
	switch f, onFloor := one(c.Slots["floor"]); {
	case onFloor:
		for _, fl := range h.Floors {
			if slices.ContainsFunc(intent.Expand(fl.Name), func(n string) bool { return intenttest.Same(n, f) }) {
				for _, a := range h.Areas {
					if a.Floor == fl.ID && (!hasArea || intenttest.Same(first(a.Name), area)) {
						e.Area = a.ID
					}
				}
			}
		}
		if e.Area == "" {
			return h, false
		}
	case hasArea:
		a, ok := areaNamed(area)
		if !ok {
			return h, false
		}
		e.Area = a.ID
	}
	h.Entities = append(slices.Clone(h.Entities), e)
	return h, !nothingFits(h, c)
}

// withZone is the house with the zone a question about people names
// ("is anyone at school"): Home Assistant has a zone for each place a
// person can be in, the fixtures none.
func withZone(h intenttest.House, c intenttest.Case) intenttest.House {
	place, ok := c.Slots["state"].(string)
	if c.Intent != "HassGetState" || c.Slots["domain"] != "person" || !ok || place == "home" || place == "not_home" {
		return h
	}
	h.Entities = append(slices.Clone(h.Entities), intenttest.Entity{ID: "zone.labelled", Name: place, State: "0"})
	return h
}

// yesNo reads an answer's first word: 1 for a yes, -1 for a no, 0 for
// neither.
func yesNo(answer string) int {
	w, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(answer)), " ")
	switch strings.Trim(w, ".,:;!¡") {
	case "yes", "ja", "oui", "sí", "si":
		return 1
	case "no", "nein", "non":
		return -1
	}
	return 0
}

// uniqueIDs gives each entity an id of its own: a fixture may hold one
// id twice (two phones, each binary_sensor.phone_connectivity), which
// Home Assistant cannot.
func uniqueIDs(h intenttest.House) intenttest.House {
	seen := map[string]int{}
	h.Entities = slices.Clone(h.Entities)
	for i, e := range h.Entities {
		if seen[e.ID]++; seen[e.ID] > 1 {
			h.Entities[i].ID = fmt.Sprintf("%s_%d", e.ID, seen[e.ID])
		}
	}
	return h
}

// judge says whether the offline path's call does what the label says.
func judge(h intenttest.House, c intenttest.Case, u command.Understood) (outcome, string) {
	if !u.OK && u.Reason == command.Unresolved_ && u.Intent == c.Intent && nothingFits(h, c) {
		return refused, u.Detail
	}
	if !u.OK {
		return notDone, fmt.Sprintf("%s %s", u.Reason, u.Detail)
	}
	rt := u.Route
	args := rt.Claim.Arguments
	if absent, ok := args["absent"]; ok { // said there is no such device there
		if nothingFits(h, c) {
			return refused, fmt.Sprint(absent)
		}
		return wrong, fmt.Sprintf("said %v is absent", absent)
	}
	if rt.Refine {
		return wrong, "taken as a refinement"
	}
	switch rt.Command.Name {
	case "home_service", "home_query":
		if args["intent"] != c.Intent {
			return wrong, fmt.Sprintf("%s, labelled %s", args["intent"], c.Intent)
		}
		return judgeHouse(h, c, args)
	}
	return judgeOwn(c, rt.Command.Name, args)
}

// judgeOwn checks the speaker's own commands for Home Assistant's
// timer, time, weather, volume and nevermind intents.
func judgeOwn(c intenttest.Case, name string, args map[string]any) (outcome, string) {
	want := map[string][]string{
		"set_timer": {"HassStartTimer"}, "cancel_timer": {"HassCancelTimer", "HassCancelAllTimers"},
		"check_timers": {"HassTimerStatus"}, "pause_timer": {"HassPauseTimer", "HassUnpauseTimer"},
		"adjust_timer": {"HassIncreaseTimer", "HassDecreaseTimer"}, "get_current_time": {"HassGetCurrentTime", "HassGetCurrentDate"},
		"get_weather": {"HassGetWeather"}, "stop": {"HassNevermind"}, "control_volume": {"HassSetVolume"},
	}[name]
	if !slices.Contains(want, c.Intent) {
		return wrong, fmt.Sprintf("%s %v, labelled %s", name, args, c.Intent)
	}
	dur := func(prefix string) time.Duration {
		var d time.Duration
		for unit, mult := range map[string]time.Duration{"hours": time.Hour, "minutes": time.Minute, "seconds": time.Second} {
			if v, ok := c.Slots[prefix+unit]; ok {
				f, _ := toFloat(v)
				d += time.Duration(f * float64(mult))
			}
		}
		return d
	}
	named := func() bool {
		n, _ := args["name"].(string)
		w, ok := c.Slots["name"]
		return !ok && n == "" || ok && intenttest.Same(strings.ToLower(n), lower(w))
	}
	ok := true
	switch name {
	case "set_timer":
		d, _ := args["duration"].(time.Duration)
		ok = d == dur("") && named()
	case "cancel_timer", "check_timers", "pause_timer", "adjust_timer":
		started, _ := args["started"].(time.Duration)
		area, hasArea := args["area"]
		_, wantArea := c.Slots["area"]
		ok = started == dur("start_") && named() && (hasArea == wantArea) && (!hasArea || intenttest.Same(lower(area), lower(c.Slots["area"])))
		if name == "cancel_timer" {
			ok = ok && (args["all"] == true) == (c.Intent == "HassCancelAllTimers")
		}
		if name == "pause_timer" {
			ok = ok && (args["resume"] == true) == (c.Intent == "HassUnpauseTimer")
		}
		if name == "adjust_timer" {
			by, _ := args["by"].(time.Duration)
			ok = ok && by == dur("") && (args["subtract"] == true) == (c.Intent == "HassDecreaseTimer")
		}
	case "get_current_time":
		ok = args["detail"] == map[string]string{"HassGetCurrentTime": "time", "HassGetCurrentDate": "date"}[c.Intent]
	case "control_volume":
		// The speaker's own volume: said with no device or room but its own.
		level, _ := toFloat(args["level"])
		want, _ := toFloat(c.Slots["volume_level"])
		_, hasName := c.Slots["name"]
		ok = args["action"] == "set" && level == want && !hasName && intenttest.Same(c.Slots["area"], c.Context["area"])
	}
	if !ok {
		return wrong, fmt.Sprintf("%s %v, labelled %s %v", name, args, c.Intent, c.Slots)
	}
	return correct, ""
}

func lower(v any) any {
	switch x := v.(type) {
	case string:
		return strings.ToLower(x)
	case []any:
		var out []any
		for _, e := range x {
			out = append(out, lower(e))
		}
		return out
	}
	return v
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// judgeHouse checks a Home Assistant intent carried out: every entity
// acted on or asked about is allowed by the labelled slots, and every
// value is the labelled one.
func judgeHouse(h intenttest.House, c intenttest.Case, args map[string]any) (outcome, string) {
	var targets []string
	var data []map[string]any
	if calls, ok := args["calls"].([]any); ok {
		for _, x := range calls {
			m := x.(map[string]any)
			for _, id := range m["entity_id"].([]any) {
				targets = append(targets, id.(string))
			}
			d, _ := m["data"].(map[string]any)
			data = append(data, d)
		}
	}
	if ids, ok := args["entity_id"].([]any); ok {
		for _, id := range ids {
			targets = append(targets, id.(string))
		}
	}
	byID := map[string][]intenttest.Entity{} // a fixture may hold one id twice
	for _, e := range h.Entities {
		byID[e.ID] = append(byID[e.ID], e)
	}
	areaOf := func(name any) (intenttest.Area, bool) {
		for _, a := range h.Areas {
			if intenttest.Same(first(a.Name), name) || slices.ContainsFunc(intent.Expand(a.Name), func(n string) bool { return intenttest.Same(n, name) }) {
				return a, true
			}
		}
		return intenttest.Area{}, false
	}
	for _, id := range targets {
		var why string
		for _, e := range byID[id] {
			if why = allowed(h, c, e, areaOf); why == "" {
				break
			}
		}
		if why != "" {
			return wrong, why
		}
	}
	return values(c, args, data)
}

// allowed says why the labelled slots do not allow an entity; "" when
// they do.
func allowed(h intenttest.House, c intenttest.Case, e intenttest.Entity, areaOf func(any) (intenttest.Area, bool)) string {
	id := e.ID
	{
		if n, ok := c.Slots["name"]; ok && n != "all" && !slices.ContainsFunc(intent.Expand(e.Name), func(s string) bool { return intenttest.Same(strings.ToLower(s), lower(n)) }) {
			return fmt.Sprintf("%s is not %v", id, n)
		}
		if a, ok := c.Slots["area"]; ok {
			// A device named need not be in the speaker's own area, but
			// must be in an area said.
			if want, found := areaOf(a); !found || e.Area != want.ID {
				if n, named := c.Slots["name"]; !named || n == "all" || !intenttest.Same(a, c.Context["area"]) {
					return fmt.Sprintf("%s is not in %v", id, a)
				}
			}
		}
		if f, ok := c.Slots["floor"]; ok {
			in := false
			for _, a := range h.Areas {
				for _, fl := range h.Floors {
					if a.ID == e.Area && a.Floor == fl.ID && slices.ContainsFunc(intent.Expand(fl.Name), func(n string) bool { return intenttest.Same(n, f) }) {
						in = true
					}
				}
			}
			if !in {
				return fmt.Sprintf("%s is not on %v", id, f)
			}
		}
		if d, ok := c.Slots["domain"]; ok && !intenttest.Same(e.Domain(), d) {
			return fmt.Sprintf("%s is not of %v", id, d)
		}
		if dc, ok := c.Slots["device_class"]; ok && !intenttest.Same(e.Attributes["device_class"], dc) {
			return fmt.Sprintf("%s is not a %v", id, dc)
		}
	}
	return ""
}

// values checks the values a call sets or a question asks against the
// labelled ones.
func values(c intenttest.Case, args map[string]any, data []map[string]any) (outcome, string) {
	for slot, key := range map[string]string{"brightness": "brightness_pct", "position": "position", "temperature": "temperature", "color": "color_name", "item": ""} {
		want, ok := c.Slots[slot]
		if !ok {
			continue
		}
		for _, d := range data {
			got := d[key]
			if slot == "item" {
				got = d["item"]
				if got == nil {
					got = d["name"]
				}
			}
			if slot == "temperature" && c.Intent == "HassLightSet" {
				got = d["color_temp_kelvin"]
			}
			if !intenttest.Same(got, want) && !intenttest.Same(lower(got), lower(want)) {
				return wrong, fmt.Sprintf("%s %v, labelled %v", slot, got, want)
			}
		}
	}
	if want, ok := c.Slots["volume_level"]; ok {
		for _, d := range data {
			got, _ := toFloat(d["volume_level"])
			w, _ := toFloat(want)
			if got*100 != w {
				return wrong, fmt.Sprintf("volume %v, labelled %v", got, want)
			}
		}
	}
	if want, ok := c.Slots["state"]; ok && !intenttest.Same(args["state"], want) {
		return wrong, fmt.Sprintf("state %v, labelled %v", args["state"], want)
	}
	return correct, ""
}

// TestHouseholdBar reports, per language, the share of the labelled
// household sentences carried out correctly with no model, and wrongly;
// it fails under the bar (90 % correct, at most 0.5 % wrong, on the
// held-out half). A sentence whose device the fixtures lack is said in a
// house that has it (fit); a yes or no answer opposite to Home
// Assistant's is wrong.
func TestHouseholdBar(t *testing.T) {
	dir := intenttest.Dir()
	if dir == "" {
		t.Skip("no labelled sentences: set " + intenttest.Env + " to the tests folder of Home Assistant's intents repository")
	}
	for _, lang := range []locale.Lang{locale.English, locale.German, locale.French, locale.Spanish} {
		h, cases, err := intenttest.Load(dir, string(lang))
		if err != nil {
			t.Fatal(err)
		}
		h = uniqueIDs(h)
		type tally struct{ n, ok, refused, wrong int }
		var all, held, other tally
		var wrongs []string
		fitted := 0
		for _, c := range cases {
			area, _ := c.Context["area"].(string)
			h := h
			if f, ok := fit(h, c); ok && nothingFits(h, c) {
				h = f
				if c.HeldOut && slices.Contains(supported, c.Intent) {
					fitted++
				}
			}
			h = withZone(h, c)
			hh := newHousehold(t, h, area)
			u := hh.reg.Understand(t.Context(), lang, c.Sentence)
			res, why := judge(h, c, u)
			if u.OK {
				resp := hh.reg.RunRoute(locale.WithLanguage(t.Context(), string(lang)), u.Route, c.Sentence)
				if res == correct && len(c.Response) > 0 && yesNo(resp.Spoken)*yesNo(c.Response[0]) < 0 {
					res, why = wrong, fmt.Sprintf("answered %q, Home Assistant %q", resp.Spoken, c.Response[0])
				}
			}
			if !slices.Contains(supported, c.Intent) {
				other.n++
				if u.OK && res == wrong {
					other.wrong++
					wrongs = append(wrongs, fmt.Sprintf("(unsupported) %q: %s", c.Sentence, why))
				}
				continue
			}
			for _, tl := range []*tally{&all, &held} {
				if tl == &held && !c.HeldOut {
					continue
				}
				tl.n++
				switch res {
				case correct:
					tl.ok++
				case refused:
					tl.refused++
				case wrong:
					tl.wrong++
				}
			}
			if res == wrong && !c.HeldOut {
				wrongs = append(wrongs, fmt.Sprintf("%s %q: %s", c.File, c.Sentence, why))
			}
			if res == notDone && !c.HeldOut && testing.Verbose() {
				t.Logf("%s not done: %s %q (%s)", lang, c.File, c.Sentence, why)
			}
		}
		pct := func(a, b int) float64 { return 100 * float64(a) / float64(max(b, 1)) }
		sort.Strings(wrongs)
		t.Logf("%s: held-out %d sentences (%d in a house given the device the fixtures lacked): %.1f %% carried out correctly, %.1f %% with those rightly refused (no device fits), %.2f %% wrong; all %d: %.1f %%, %.1f %%, %.2f %% wrong; of %d for other intents %d wrongly acted on",
			lang, held.n, fitted, pct(held.ok, held.n), pct(held.ok+held.refused, held.n), pct(held.wrong, held.n),
			all.n, pct(all.ok, all.n), pct(all.ok+all.refused, all.n), pct(all.wrong, all.n), other.n, other.wrong)
		for _, w := range wrongs {
			t.Logf("%s wrong: %s", lang, w)
		}
		if pct(held.ok, held.n) < 90 || pct(held.wrong, held.n) > 0.5 {
			t.Errorf("%s: %.1f %% correct, %.2f %% wrong on the held-out half; the bar is 90 %% and 0.5 %%", lang, pct(held.ok, held.n), pct(held.wrong, held.n))
		}
	}
}
