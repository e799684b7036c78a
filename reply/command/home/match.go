package home

import (
	"slices"
	"strings"
	"unicode"

	"github.com/agnivade/levenshtein"
)

// Match is an entity and how well it matches what the user said, 0 to 1.
type Match struct {
	Entity Entity
	Score  float64
}

// Good is the lowest score of a match worth acting on; Lead is how far the
// best must lead the next to be unambiguous.
const (
	Good = 0.6
	Lead = 0.15
)

// stop words say nothing about which thing is meant.
var stop = map[string]bool{"the": true, "a": true, "an": true, "my": true, "our": true, "please": true, "in": true,
	"on": true, "of": true, "at": true, "to": true, "all": true, "and": true, "room's": true, "s": true}

// synonyms map what people say to the words entities use.
var synonyms = map[string]string{"lamp": "light", "lamps": "light", "lights": "light", "bulb": "light", "bulbs": "light",
	"lighting": "light", "blinds": "blind", "curtains": "curtain", "shades": "shade", "doors": "door", "fans": "fan",
	"plugs": "plug", "socket": "plug", "outlet": "plug", "thermostat": "climate", "heating": "climate", "heater": "climate",
	"lounge": "living", "sitting": "living"}

// domainWords name an entity's domain in speech.
var domainWords = map[string][]string{"light": {"light"}, "switch": {"switch", "plug"}, "fan": {"fan"},
	"lock": {"lock", "door"}, "cover": {"blind", "curtain", "shade", "door", "cover", "window"},
	"climate": {"climate", "temperature"}, "sensor": {"sensor", "temperature"}, "binary_sensor": {"sensor", "door", "window"},
	"media_player": {"speaker", "tv", "television", "music"}}

func words(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if stop[w] {
			continue
		}
		if syn, ok := synonyms[w]; ok {
			w = syn
		}
		out = append(out, w)
	}
	return out
}

// names are the words an entity answers to: its friendly name, its id's,
// its area and aliases (attributes Home Assistant may carry), and its
// domain in speech.
func names(e Entity) []string {
	ws := words(e.Name())
	_, object, _ := strings.Cut(e.ID, ".")
	ws = append(ws, words(strings.ReplaceAll(object, "_", " "))...)
	for _, k := range []string{"area", "room"} {
		if a, ok := e.Attributes[k].(string); ok {
			ws = append(ws, words(a)...)
		}
	}
	if aliases, ok := e.Attributes["aliases"].([]any); ok {
		for _, a := range aliases {
			if s, ok := a.(string); ok {
				ws = append(ws, words(s)...)
			}
		}
	}
	ws = append(ws, domainWords[e.Domain()]...)
	slices.Sort(ws)
	return slices.Compact(ws)
}

// similar scores two words: the same 1, a plural or a prefix of a long
// word 0.9, one letter off 0.8, two off in a long word 0.6.
func similar(a, b string) float64 {
	switch {
	case a == b:
		return 1
	case strings.TrimSuffix(a, "s") == strings.TrimSuffix(b, "s"):
		return 0.9
	case len(a) >= 5 && len(b) >= 5 && (strings.HasPrefix(a, b) || strings.HasPrefix(b, a)):
		return 0.9
	}
	d := levenshtein.ComputeDistance(a, b)
	switch {
	case d == 1 && min(len(a), len(b)) >= 4:
		return 0.8
	case d == 2 && min(len(a), len(b)) >= 7:
		return 0.6
	}
	return 0
}

// Find ranks entities for what the user called one, best first, among those
// of domains (nil for any); an entity id matches itself exactly.
func Find(said string, entities []Entity, domains []string) []Match {
	q := words(said)
	var out []Match
	for _, e := range entities {
		if len(domains) > 0 && !slices.Contains(domains, e.Domain()) {
			continue
		}
		if strings.EqualFold(said, e.ID) || strings.EqualFold(strings.TrimSpace(said), e.Name()) {
			out = append(out, Match{e, 1})
			continue
		}
		if len(q) == 0 {
			continue
		}
		ns := names(e)
		q := joined(q, ns)
		sum := 0.0
		for _, w := range q {
			best := 0.0
			for _, n := range ns {
				best = max(best, similar(w, n))
			}
			sum += best
		}
		// Of the name's own words (not the domain's), how many were said.
		own := words(e.Name())
		covered := 0.0
		for _, n := range own {
			for _, w := range q {
				if similar(w, n) >= 0.8 {
					covered++
					break
				}
			}
		}
		score := sum / float64(len(q))
		if len(own) > 0 {
			score = 0.75*score + 0.25*covered/float64(len(own))
		}
		if score > 0 {
			out = append(out, Match{e, score})
		}
	}
	slices.SortStableFunc(out, func(a, b Match) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return strings.Compare(a.Entity.ID, b.Entity.ID)
	})
	return out
}

// joined merges words said apart that an entity writes as one ("bed
// room" for "bedroom", "living room" for "livingroom").
func joined(q, names []string) []string {
	var out []string
	for i := 0; i < len(q); i++ {
		if i+1 < len(q) && slices.Contains(names, q[i]+q[i+1]) {
			out = append(out, q[i]+q[i+1])
			i++
			continue
		}
		out = append(out, q[i])
	}
	return out
}

// Best is the one entity meant, when the best match is good and clearly
// ahead of the next; otherwise the candidates to choose from.
func Best(ms []Match) (Entity, bool, []Match) {
	if len(ms) == 0 || ms[0].Score < Good {
		return Entity{}, false, nil
	}
	if len(ms) > 1 && ms[1].Score > ms[0].Score-Lead {
		var close []Match
		for _, m := range ms {
			if m.Score > ms[0].Score-Lead {
				close = append(close, m)
			}
		}
		return Entity{}, false, close
	}
	return ms[0].Entity, true, nil
}
