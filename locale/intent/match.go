package intent

import (
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Options are what Recognize needs besides the words.
type Options struct {
	// Lists are the lists filled at run time, by name ("name", "area",
	// "floor"); they stand beside the language's own lists, and a
	// template's own list of the same name wins.
	Lists map[string]*List
	// Context is what is known before matching: {"area": "Kitchen"} for a
	// speaker in the kitchen. A value may be {"value": v, "text": t}.
	Context map[string]any
}

// Slot is a value a match found.
type Slot struct {
	// Value is the list value's output: a string, a float64 for numbers,
	// or what the template's data says.
	Value any `json:"value"`
	// Text is the words that said it; empty for a fixed slot.
	Text string `json:"text,omitempty"`
	// Wildcard is set on free text taken by a wildcard list.
	Wildcard bool `json:"wildcard,omitempty"`
	// StandIn is set on free text taken by a list standing in for one
	// that could not be read (Wildcard): a guess at a name, not one.
	StandIn bool `json:"stand_in,omitempty"`
	// FromContext is set on a slot copied from the context (the
	// speaker's area for "turn on the lights"), not said.
	FromContext bool `json:"from_context,omitempty"`
}

// Result is an intent matched, with its slots.
type Result struct {
	Intent string          `json:"intent"`
	Slots  map[string]Slot `json:"slots"`
	// Context is the context at the end of the match: what was given and
	// what the list values matched added.
	Context map[string]any `json:"context,omitempty"`
	// Response names the intent's response the template asks for.
	Response string         `json:"response,omitempty"`
	Metadata map[string]any `json:"metadata,omitempty"`
	// Template is the sentence template that matched.
	Template string `json:"template"`
	// Literal counts the characters of template text matched, Wildcards
	// the wildcard slots: a better match has fewer wildcards, then more
	// literal text.
	Literal   int `json:"-"`
	Wildcards int `json:"-"`
}

// Has reports whether the match filled the slot.
func (r Result) Has(name string) bool { _, ok := r.Slots[name]; return ok }

// String returns a slot's value as text, or "".
func (r Result) String(name string) string {
	switch v := r.Slots[name].Value.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// Number returns a slot's number and whether it holds one.
func (r Result) Number(name string) (float64, bool) {
	switch v := r.Slots[name].Value.(type) {
	case float64:
		return v, true
	case string:
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil
	}
	return 0, false
}

// maxSteps bounds the work spent on one sentence template, and maxResults
// the matches kept of it: beyond them the template is given up, which
// leaves the utterance to the model rather than guess.
const (
	maxSteps   = 20000
	maxResults = 8
)

// Recognize matches what was said against every template of the language
// and returns the best match: one whose every word a template accounts
// for. Of several, the best fills a {name} slot from the list (the longest
// name said), then has fewer wildcards, then matches more template text.
// ambiguous is set when a different intent matches as well as the best.
func (l *Language) Recognize(said string, o Options) (best Result, ambiguous, ok bool) {
	all := l.RecognizeAll(said, o)
	if len(all) == 0 {
		return Result{}, false, false
	}
	for _, r := range all[1:] {
		if Compare(all[0], r) == 0 && r.Intent != all[0].Intent {
			ambiguous = true
		}
	}
	return all[0], ambiguous, true
}

// RecognizeAll returns every match, best first. What was said is
// matched with its skip words dropped, as HassIL does, and, when some were
// there, also as said: a skip word of one template's language may be a
// word another needs (German "mal" is a filler, and "times").
func (l *Language) RecognizeAll(said string, o Options) []Result {
	in, cased := l.normalize(said)
	out := l.recognize(in, cased, o, nil)
	if whole, wholeCased := l.normalizeSkipping(said, false); whole != in && len(l.skipped) > 0 {
		for _, r := range l.recognize(whole, wholeCased, o, l.skipped) {
			if !l.edgeSkipped(r) {
				out = append(out, r)
			}
		}
	}
	slices.SortStableFunc(out, Compare)
	return out
}

// edgeSkipped reports whether free text a match took starts or ends with
// a skip word: on the try with the skip words kept, only a template's own
// words may hold one; free text so taken is what the first try, without
// them, read better ("remember that password please").
func (l *Language) edgeSkipped(r Result) bool {
	for _, s := range r.Slots {
		if !s.Wildcard {
			continue
		}
		words := strings.Fields(normText(s.Text))
		for _, sw := range l.skip {
			if len(sw) <= len(words) && (equalWords(words, sw) || equalWords(words[len(words)-len(sw):], sw)) {
				return true
			}
		}
	}
	return false
}

// recognize matches the sentences the prefilter lets through (of only,
// when given) against what was said.
func (l *Language) recognize(in, cased string, o Options, only []int32) []Result {
	if strings.TrimSpace(in) == "" {
		return nil
	}
	have := l.prefilter(in, &o)
	words := strings.Fields(in)
	var out []Result
	for _, id := range l.candidates(have, only) {
		s := l.all[id]
		b := s.blk
		if !have.holds(s.need) {
			continue
		}
		if len(b.keywords) > 0 && !slices.ContainsFunc(words, func(w string) bool { return slices.Contains(b.keywords, w) }) {
			continue
		}
		if !contextPossible(b, o.Context) {
			continue
		}
		r := &run{lang: l, blk: b, in: in, cased: cased, o: &o}
		r.matchSentence(s)
		out = append(out, r.results...)
	}
	return out
}

// Compare orders a better match first (negative when a is better, zero
// when they are as good): one that fills {name} from the list, with the
// longer name said; then one with fewer wildcards; then one matching more
// template text.
func Compare(a, b Result) int {
	an, aok := a.Slots["name"]
	bn, bok := b.Slots["name"]
	aName := aok && !an.Wildcard && an.Text != ""
	bName := bok && !bn.Wildcard && bn.Text != ""
	switch {
	case aName && !bName:
		return -1
	case bName && !aName:
		return 1
	case aName && bName && len(an.Text) != len(bn.Text):
		return len(bn.Text) - len(an.Text)
	case a.Wildcards != b.Wildcards:
		return a.Wildcards - b.Wildcards
	}
	return b.Literal - a.Literal
}

// run is one sentence template being matched against the words.
type run struct {
	lang *Language
	blk  *block
	in   string // normalized, with a space at the end
	// cased is in with the case as said, byte for byte.
	cased string
	o     *Options

	sent    *sentence
	follow  *node       // what comes right after the list being matched, if known
	slots   []namedSlot // filled so far, in order
	ctx     []ctxEntry  // context gained so far
	literal int
	steps   int
	results []Result
}

type namedSlot struct {
	name string
	Slot
}

type ctxEntry struct {
	key string
	val any
}

// cont is what comes after a part matched: the rest of the template from
// byte pos, start set when a new word begins there. It returns true to
// stop the search.
type cont func(pos int, start bool) bool

func (r *run) matchSentence(s *sentence) {
	r.sent = s
	if !s.root.mayStart(r.in[0]) {
		return
	}
	r.match(s.root, 0, true, r.end)
}

// end is called when the whole template matched up to pos: the match
// counts when nothing but spaces is left and the context conditions hold.
func (r *run) end(pos int, _ bool) bool {
	if strings.TrimSpace(r.in[pos:]) != "" {
		return false
	}
	ctx := map[string]any{}
	for k, v := range r.o.Context {
		ctx[k] = v
	}
	for _, e := range r.ctx {
		ctx[e.key] = e.val
	}
	if !excludedOK(r.blk.excludes, ctx) {
		return false
	}
	fromCtx, ok := required(r.blk.requires, ctx)
	if !ok {
		return false
	}
	res := Result{Intent: r.blk.intent, Slots: map[string]Slot{}, Context: ctx, Response: r.blk.response,
		Metadata: r.blk.metadata, Template: r.sent.text, Literal: r.literal}
	for _, s := range r.slots {
		if s.Wildcard {
			res.Wildcards++
		}
		res.Slots[s.name] = s.Slot
	}
	for k, v := range r.blk.slots {
		if _, ok := res.Slots[k]; !ok {
			res.Slots[k] = Slot{Value: v}
		}
	}
	for k, v := range fromCtx {
		if _, ok := res.Slots[k]; !ok {
			res.Slots[k] = v
		}
	}
	r.results = append(r.results, res)
	return len(r.results) >= maxResults
}

// match matches node n at pos, then calls k.
func (r *run) match(n *node, pos int, start bool, k cont) bool {
	r.steps++
	if r.steps > maxSteps {
		r.results = nil
		return true
	}
	switch n.kind {
	case text:
		return r.text(n.text, pos, start, k)
	case seq:
		return r.seq(n.items, pos, start, k)
	case alt:
		c := r.in[skipSpaces(r.in, pos)%len(r.in)]
		for _, it := range n.items {
			if !it.mayStart(c) {
				continue
			}
			if r.match(it, pos, start, k) {
				return true
			}
		}
		return false
	case rule:
		body := r.blk.rules[n.text]
		if body == nil {
			body = r.lang.rules[n.text]
		}
		if body == nil {
			return false
		}
		return r.match(body, pos, start, k)
	case list:
		return r.list(n, pos, start, k)
	}
	return false
}

func (r *run) seq(items []*node, pos int, start bool, k cont) bool {
	if len(items) == 0 {
		return k(pos, start)
	}
	rest := func(p int, s bool) bool { return r.seq(items[1:], p, s, k) }
	if items[0].kind == list && len(items) > 1 {
		// A wildcard ends only where what follows it may start.
		r.follow = items[1]
		defer func() { r.follow = nil }()
	}
	return r.match(items[0], pos, start, rest)
}

// text matches literal template text. At the start of a word spaces
// before it are skipped on both sides; otherwise its spaces must be said.
// A hyphen or underscore said matches a space in the template ("wi-fi").
// A word starts after text that ends with a space.
func (r *run) text(t string, pos int, start bool, k cont) bool {
	if t == "" {
		return k(pos, start)
	}
	endsSpace := t[len(t)-1] == ' '
	if start {
		t = strings.TrimLeft(t, " ")
		pos = skipSpaces(r.in, pos)
	}
	if t == "" {
		return k(pos, endsSpace || start)
	}
	if p, ok := prefix(r.in, pos, t); ok {
		trimmed := len(strings.TrimSpace(t))
		r.literal += trimmed
		stop := k(p, endsSpace)
		r.literal -= trimmed
		return stop
	}
	if strings.TrimSpace(t) == "" && strings.TrimSpace(r.in[pos:]) == "" {
		return k(pos, start)
	}
	return false
}

// prefix reports where t ends when the words at pos begin with it.
func prefix(in string, pos int, t string) (int, bool) {
	if len(in)-pos < len(t) {
		return 0, false
	}
	for i := 0; i < len(t); i++ {
		c, w := in[pos+i], t[i]
		if c == w || w == ' ' && (c == '-' || c == '_') {
			continue
		}
		return 0, false
	}
	return pos + len(t), true
}

func skipSpaces(in string, pos int) int {
	for pos < len(in) && in[pos] == ' ' {
		pos++
	}
	return pos
}

// lookup finds a list: the block's own, then the ones given at run time,
// then the language's.
func (r *run) lookup(name string) *List {
	if l := r.blk.lists[name]; l != nil {
		return l
	}
	if l := r.o.Lists[name]; l != nil {
		return l
	}
	return r.lang.lists[name]
}

func (r *run) list(n *node, pos int, start bool, k cont) bool {
	l := r.lookup(n.text)
	if l == nil || !l.wildcard {
		r.follow = nil // for a wildcard only
	}
	if l == nil || pos >= len(r.in) {
		return false
	}
	switch {
	case l.wildcard:
		return r.wildcard(n, pos, l.standIn, k)
	case l.rng != nil:
		return r.number(n, l.rng, pos, start, k)
	}
	from := pos
	if start {
		from = skipSpaces(r.in, pos)
	}
	if from >= len(r.in) {
		return false
	}
	for _, i := range l.candidates(r.in[from]) {
		v := &l.values[i]
		end := -1
		if v.in == nil {
			p, ok := prefix(r.in, from, v.text)
			if !ok {
				continue
			}
			end = p
		}
		if !requiredOK(r.blk.requires, v.context) || !excludedOK(r.blk.excludes, v.context) {
			continue
		}
		if r.value(n, v, from, end, start, k) {
			return true
		}
	}
	return false
}

// value takes list value v said from byte from, to end when it is plain
// text (-1 for a template, matched here), then calls k. After a value a
// word starts where one started before it, as in HassIL: "{brightness}
// [%]" reads "50%".
func (r *run) value(n *node, v *listValue, from, end int, start bool, k cont) bool {
	saved := r.literal // a value's own words are not template text
	after := func(p int, _ bool) bool {
		cur := r.literal
		r.literal = saved
		defer func() { r.literal = cur }()
		said := strings.TrimSpace(r.cased[from:p])
		out := v.out
		if out == nil {
			out = said
		}
		r.slots = append(r.slots, namedSlot{n.slot, Slot{Value: out, Text: said}})
		for key, val := range v.context {
			r.ctx = append(r.ctx, ctxEntry{key, val})
		}
		stop := k(p, start)
		r.ctx = r.ctx[:len(r.ctx)-len(v.context)]
		r.slots = r.slots[:len(r.slots)-1]
		return stop
	}
	if end >= 0 {
		return after(end, start)
	}
	return r.match(v.in, from, true, after)
}

// wildcard takes any words, at least one character of them, up to where
// the rest of the template matches; it ends where a word ends unless its
// template writes it against the next word.
func (r *run) wildcard(n *node, pos int, standIn bool, k cont) bool {
	pos = skipSpaces(r.in, pos)
	follow := r.follow
	r.follow = nil
	for e := pos + 1; e < len(r.in); e++ { // the words end with a space
		if !utf8.RuneStart(r.in[e]) || n.wordEnd && r.in[e] != ' ' {
			continue
		}
		if follow != nil && !follow.mayStart(r.in[skipSpaces(r.in, e)%len(r.in)]) {
			continue
		}
		said := strings.TrimSpace(r.cased[pos:e])
		if said == "" {
			continue
		}
		r.slots = append(r.slots, namedSlot{n.slot, Slot{Value: said, Text: said, Wildcard: true, StandIn: standIn}})
		stop := k(e, true)
		r.slots = r.slots[:len(r.slots)-1]
		if stop {
			return true
		}
	}
	return false
}

// number reads a number of the range at pos: digits ("25", "2.5",
// "2,5"), or else words in the language ("twenty five").
func (r *run) number(n *node, rng *numberRange, pos int, start bool, k cont) bool {
	pos = skipSpaces(r.in, pos)
	try := func(v float64, end int, said string, next bool) bool {
		if !rng.contains(v) {
			return false
		}
		r.slots = append(r.slots, namedSlot{n.slot, Slot{Value: v * rng.multiplier, Text: said}})
		stop := k(end, next)
		r.slots = r.slots[:len(r.slots)-1]
		return stop
	}
	if end := digitsEnd(r.in, pos, rng.fractions != nil); end > pos {
		if !rng.digits {
			return false
		}
		said := r.in[pos:end]
		v, err := strconv.ParseFloat(strings.Replace(said, ",", ".", 1), 64)
		return err == nil && try(v, end, said, start) // digits keep the word start, as in HassIL
	}
	if !rng.words || r.lang.numbers == nil {
		return false
	}
	// The words from pos, split at spaces and hyphens, with where each ends.
	var words []string
	var ends []int
	for i := pos; i < len(r.in) && len(words) < 8; {
		j := i
		for j < len(r.in) && r.in[j] != ' ' && r.in[j] != '-' {
			j++
		}
		if j > i {
			words = append(words, r.in[i:j])
			ends = append(ends, j)
		}
		i = j + 1
	}
	for m := len(words); m > 0; m-- {
		v, used, ok := r.lang.numbers(words[:m])
		if !ok || used != m {
			continue
		}
		if try(v, ends[m-1], r.in[pos:ends[m-1]], false) {
			return true
		}
	}
	return false
}

// digitsEnd is where a number in digits that starts at pos ends, with a
// decimal part when fractions are allowed; pos when none starts there.
func digitsEnd(in string, pos int, fractions bool) int {
	i := pos
	if i < len(in) && in[i] == '-' {
		i++
	}
	d := i
	for i < len(in) && in[i] >= '0' && in[i] <= '9' {
		i++
	}
	if i == d {
		return pos
	}
	if fractions && i+1 < len(in) && (in[i] == '.' || in[i] == ',') && in[i+1] >= '0' && in[i+1] <= '9' {
		i++
		for i < len(in) && in[i] >= '0' && in[i] <= '9' {
			i++
		}
	}
	return i
}
