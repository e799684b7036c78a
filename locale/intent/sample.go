package intent

import (
	"math/rand/v2"
	"strconv"
	"strings"
)

// Expand returns every text a template without lists or rules says ("[the]
// kitchen (light|lamp)" gives four), at most 1,000; plain text is itself.
func Expand(template string) []string {
	if !isTemplate(template) {
		return []string{template}
	}
	n, err := parse(template, true, nil)
	if err != nil {
		return []string{template}
	}
	var out []string
	for _, s := range expand(expandPerms(n), 1000) {
		if s = strings.Join(strings.Fields(s), " "); s != "" {
			out = append(out, s)
		}
	}
	return out
}

func expand(n *node, limit int) []string {
	switch n.kind {
	case text:
		return []string{n.text}
	case alt:
		var out []string
		for _, it := range n.items {
			out = append(out, expand(it, limit-len(out))...)
			if len(out) >= limit {
				return out[:limit]
			}
		}
		return out
	case seq:
		out := []string{""}
		for _, it := range n.items {
			parts := expand(it, limit)
			var next []string
			for _, o := range out {
				for _, p := range parts {
					next = append(next, o+p)
					if len(next) >= limit {
						break
					}
				}
			}
			out = next
		}
		return out
	}
	return nil
}

// Sample is a sentence made from a template, with what matching it must
// give.
type Sample struct {
	Intent   string
	Template string
	Text     string
	// Slots are the list values chosen, by slot.
	Slots map[string]any
	// Context is what the sentence needs to be said in (the speaker's
	// area, for "turn on the lights in here").
	Context map[string]any
}

// wildWords fill wildcards in samples.
var wildWords = []string{"pizza", "milk", "banana bread", "the big blue box", "tomatoes", "laundry"}

// Samples makes up to perTemplate sentences from every template of the
// language, choosing alternatives, optionals and list values at random;
// lists holds the run-time lists (names, areas, floors). Templates whose
// context conditions no value meets are left out.
func (l *Language) Samples(r *rand.Rand, perTemplate int, lists map[string]*List) []Sample {
	var out []Sample
	for _, ci := range l.intents {
		for _, b := range ci.data {
			for _, s := range b.sentences {
				for range perTemplate {
					sm := &sampler{lang: l, blk: b, r: r, lists: lists, slots: map[string]any{}, ctx: map[string]any{}}
					text, ok := sm.walk(s.root, 0)
					if !ok || !sm.contextFor(b) {
						continue
					}
					out = append(out, Sample{Intent: ci.name, Template: s.text, Text: strings.Join(strings.Fields(text), " "),
						Slots: sm.slots, Context: sm.given})
				}
			}
		}
	}
	return out
}

type sampler struct {
	lang  *Language
	blk   *block
	r     *rand.Rand
	lists map[string]*List
	slots map[string]any
	ctx   map[string]any // gained from the values chosen
	given map[string]any // what the sentence must be said in
}

func (s *sampler) walk(n *node, depth int) (string, bool) {
	if depth > 60 {
		return "", false
	}
	switch n.kind {
	case text:
		return n.text, true
	case seq:
		var b strings.Builder
		for _, it := range n.items {
			t, ok := s.walk(it, depth+1)
			if !ok {
				return "", false
			}
			b.WriteString(t)
		}
		return b.String(), true
	case alt:
		return s.walk(n.items[s.r.IntN(len(n.items))], depth+1)
	case rule:
		body := s.blk.rules[n.text]
		if body == nil {
			body = s.lang.rules[n.text]
		}
		if body == nil {
			return "", false
		}
		return s.walk(body, depth+1)
	case list:
		return s.value(n, depth)
	}
	return "", false
}

func (s *sampler) value(n *node, depth int) (string, bool) {
	l := s.blk.lists[n.text]
	if l == nil {
		l = s.lists[n.text]
	}
	if l == nil {
		l = s.lang.lists[n.text]
	}
	if l == nil {
		return "", false
	}
	switch {
	case l.wildcard:
		w := wildWords[s.r.IntN(len(wildWords))]
		s.slots[n.slot] = w
		return " " + w + " ", true
	case l.rng != nil:
		steps := int((l.rng.to-l.rng.from)/l.rng.step) + 1
		v := l.rng.from + float64(s.r.IntN(steps))*l.rng.step
		s.slots[n.slot] = v * l.rng.multiplier
		return strconv.FormatFloat(v, 'f', -1, 64), true
	}
	var fit []*listValue
	for i := range l.values {
		v := &l.values[i]
		if requiredOK(s.blk.requires, v.context) && excludedOK(s.blk.excludes, v.context) {
			fit = append(fit, v)
		}
	}
	if len(fit) == 0 {
		return "", false
	}
	v := fit[s.r.IntN(len(fit))]
	text := v.text
	if v.in != nil {
		t, ok := s.walk(v.in, depth+1)
		if !ok {
			return "", false
		}
		text = strings.TrimSpace(t)
	}
	out := v.out
	if out == nil {
		out = strings.Join(strings.Fields(text), " ")
	}
	s.slots[n.slot] = out
	for k, c := range v.context {
		s.ctx[k] = c
	}
	return text, true
}

// contextFor gives the sentence the context its block requires and the
// values chosen do not bring: a required value, or for "any value" (the
// speaker's area) a value of the list of that name. It reports false when
// the block cannot be met.
func (s *sampler) contextFor(b *block) bool {
	s.given = map[string]any{}
	for key, req := range b.requires {
		want, slot := condition(key, req)
		if v, ok := s.ctx[key]; ok {
			if !satisfies(want, v) {
				return false
			}
			continue
		}
		switch w := want.(type) {
		case nil:
			l := s.lists[key]
			if l == nil || len(l.values) == 0 {
				return false
			}
			v := l.values[s.r.IntN(len(l.values))]
			s.given[key] = v.out
		case []any:
			s.given[key] = w[0]
		default:
			s.given[key] = w
		}
		if slot != "" {
			s.slots[slot] = s.given[key]
		}
	}
	for k, v := range b.slots {
		if _, ok := s.slots[k]; !ok {
			s.slots[k] = v
		}
	}
	return excludedOK(b.excludes, s.given)
}
