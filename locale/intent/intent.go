// Package intent understands what people say to a house assistant the way
// Home Assistant's own matcher, HassIL, does: sentence templates per
// language and intent ("turn on [the] {name}", "<timer_set> a timer for
// <timer_duration>"), with alternatives, optionals, permutations, lists
// of values, number ranges, wildcards, expansion rules, skip words, fixed
// slots and context conditions, matched against the whole of what was
// said. An utterance matches an intent only when every word of it is
// accounted for by one template.
//
// The templates are data: Home Assistant's intents for the languages Hark
// speaks (Home Assistant intents, CC BY 4.0, commit aa550032) and Hark's
// own, in the same syntax, compiled by the generator in internal/gen into
// the compact form in data/, which the package embeds. The lists Home
// Assistant fills at run time ({name}, {area}, {floor}) are handed to
// Recognize by the caller.
//
// The reply engine's offline path and the tool router use it; it imports
// nothing of reply.
package intent

//go:generate go run ./internal/gen -ha ../../../shared/third_party/home-assistant-intents-aa550032.tar.gz

import (
	"embed"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/harkbox/hark/locale"
)

// Language is one language's compiled templates. It is safe for
// concurrent use.
type Language struct {
	Code    string
	intents []*compiledIntent
	lists   map[string]*List
	rules   map[string]*node
	skip    [][]string // skip words, as words, longest first
	lead    [][]string // lead words, as words, longest first
	// literals are the distinct words that some template needs; a
	// sentence is tried only when its clauses of them hold.
	literals []string
	numbers  func(words []string) (float64, int, bool)
	words    sync.Map // intent → []string, as Words computed them

	// The prefilter's index: the literals found by one walk, and the
	// sentences by one clause each (every sentence is reached through an
	// atom of its anchor clause, or always when it has none).
	finder     *finder
	all        []*sentence
	byLiteral  [][]int32 // literal → sentences anchored on it
	byRuntime  [4][]int32
	anchorless []int32
	// skipped are the sentences whose intents say a skip word themselves:
	// only they are tried again on what was said with its skip words.
	skipped []int32

	// needMemo holds the clauses of the rules, lists and texts read while
	// compiling, and nodes gives the templates' nodes; nil after.
	needMemo map[needKey][]need
	nodes    *nodes
}

type compiledIntent struct {
	name string
	data []*block
}

// block is one compiled SourceData.
type block struct {
	intent    string
	sentences []*sentence
	slots     map[string]any
	response  string
	requires  map[string]any
	excludes  map[string]any
	rules     map[string]*node
	lists     map[string]*List
	keywords  []string
	metadata  map[string]any
}

type sentence struct {
	text string
	root *node
	need []clause // all must hold of what was said
	blk  *block
}

// Value is one value of a list given at run time: the words that say it,
// the value a match puts in the slot (the words when nil), and context
// the match gains ({"domain": "light"} for a light's name).
type Value struct {
	Text    string
	Out     any
	Context map[string]any
}

// List is a list of values, a range of numbers or a wildcard.
type List struct {
	values   []listValue
	rng      *numberRange
	wildcard bool
	// standIn marks a Wildcard standing in for a list not read.
	standIn bool
	// byFirst indexes the plain values by their first byte; templates
	// lists the values written as templates, tried at any byte.
	byFirst   map[byte][]int
	templates []int
}

// candidates are the values that may start with byte c, in list order.
func (l *List) candidates(c byte) []int {
	if l.byFirst == nil {
		l.index()
	}
	plain := l.byFirst[c]
	if len(l.templates) == 0 {
		return plain
	}
	if len(plain) == 0 {
		return l.templates
	}
	out := make([]int, 0, len(plain)+len(l.templates))
	i, j := 0, 0
	for i < len(plain) || j < len(l.templates) {
		if j >= len(l.templates) || i < len(plain) && plain[i] < l.templates[j] {
			out = append(out, plain[i])
			i++
			continue
		}
		out = append(out, l.templates[j])
		j++
	}
	return out
}

// index builds byFirst; lists are indexed when compiled, so concurrent
// matching only reads it.
func (l *List) index() {
	l.byFirst = map[byte][]int{}
	for i := range l.values {
		v := &l.values[i]
		v.filtered = filterText(v.text)
		if v.in != nil {
			l.templates = append(l.templates, i)
			continue
		}
		l.byFirst[v.text[0]] = append(l.byFirst[v.text[0]], i)
	}
}

type listValue struct {
	text     string // plain words, normalized; "" when in is set
	filtered string // text as the prefilter compares it
	in       *node  // a template
	out      any
	context  map[string]any
	metadata map[string]any
}

type numberRange struct {
	from, to, step float64
	fractions      []float64
	multiplier     float64
	digits, words  bool
}

// NewList compiles values given at run time (names, areas, floors) into a
// list Recognize can take. Words in template syntax are taken as a
// template ("[the] kitchen [light]").
func NewList(values []Value) *List {
	l := &List{}
	for _, v := range values {
		lv := listValue{out: v.Out, context: v.Context}
		if lv.out == nil {
			lv.out = v.Text
		}
		if isTemplate(v.Text) {
			if n, err := parseTemplate(v.Text); err == nil {
				lv.in = prepared(n)
			}
		}
		if lv.in == nil {
			lv.text = strings.TrimSpace(normText(v.Text))
			if lv.text == "" {
				continue
			}
		}
		l.values = append(l.values, lv)
	}
	l.index()
	return l
}

// Wildcard returns a list that takes any words, as a template's wildcard
// list does: a list of the house's names while they cannot be read, so
// that what names a device is still matched as the house's.
//
// What it takes is marked Slot.StandIn.
func Wildcard() *List { return &List{wildcard: true, standIn: true} }

// Find returns the value said by text (in any case), if the list has one
// written plainly.
func (l *List) Find(text string) (Value, bool) {
	t := strings.TrimSpace(normText(text))
	for _, v := range l.values {
		if v.in == nil && v.text == t {
			return Value{Text: v.text, Out: v.out, Context: v.context}, true
		}
	}
	return Value{}, false
}

// Texts are the words of the list's values written plainly, normalized
// (lower case), in list order.
func (l *List) Texts() []string {
	var out []string
	for _, v := range l.values {
		if v.in == nil && v.text != "" {
			out = append(out, v.text)
		}
	}
	return out
}

// SaidIn reports whether text says one of the list's values written
// plainly, as whole words (in any case, punctuation aside).
func (l *List) SaidIn(text string) bool {
	said := " " + strings.Join(plainWords(text), " ") + " "
	for _, v := range l.values {
		if w := plainWords(v.text); v.in == nil && len(w) > 0 && strings.Contains(said, " "+strings.Join(w, " ")+" ") {
			return true
		}
	}
	return false
}

// plainWords are the words of s, normalized, without punctuation.
func plainWords(s string) []string {
	return strings.FieldsFunc(normText(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// Len is the number of values of a text list.
func (l *List) Len() int { return len(l.values) }

func compileList(name string, s SourceList, a *nodes) (*List, error) {
	switch {
	case s.Wildcard:
		return &List{wildcard: true}, nil
	case s.Range != nil:
		r := s.Range
		nr := &numberRange{from: float64(r.From), to: float64(r.To), step: float64(max(r.Step, 1)), multiplier: 1,
			digits: !r.NoDigits, words: !r.NoWords}
		if r.Multiplier != nil {
			nr.multiplier = *r.Multiplier
		}
		switch r.Fractions {
		case "":
		case "halves":
			nr.fractions = []float64{0.5}
		case "tenths":
			nr.fractions = []float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}
		default:
			return nil, fmt.Errorf("intent: list %s: unknown fractions %q", name, r.Fractions)
		}
		if nr.from > nr.to {
			return nil, fmt.Errorf("intent: list %s: range from %v is above to %v", name, nr.from, nr.to)
		}
		return &List{rng: nr}, nil
	}
	l := &List{}
	for _, v := range s.Values {
		lv := listValue{out: v.Out, context: v.Context, metadata: v.Metadata}
		if isTemplate(v.In) {
			n, err := parse(v.In, false, a)
			if err != nil {
				return nil, fmt.Errorf("intent: list %s: %w", name, err)
			}
			lv.in = prepared(n)
		} else {
			lv.text = strings.TrimSpace(normText(v.In))
		}
		l.values = append(l.values, lv)
	}
	l.index()
	return l, nil
}

// contains reports whether a number is in the range.
func (r *numberRange) contains(v float64) bool {
	if v < r.from || v > r.to {
		return false
	}
	whole := math.Floor(v)
	if math.Mod(whole-r.from, r.step) != 0 {
		return false
	}
	frac := v - whole
	if frac == 0 {
		return true
	}
	if whole+1 > r.to+1e-9 && frac > 0 {
		return false
	}
	for _, f := range r.fractions {
		if math.Abs(frac-f) < 1e-9 {
			return true
		}
	}
	return false
}

// ErrNoSpaces is a language whose templates ignore white space (Chinese):
// the matcher reads words between spaces, and does not compile it.
var ErrNoSpaces = errors.New("intent: templates that ignore white space are not supported")

// Compile turns a Source into a Language.
func Compile(s Source) (*Language, error) {
	if s.IgnoreWhitespace {
		return nil, fmt.Errorf("%w: %s", ErrNoSpaces, s.Language)
	}
	l := &Language{Code: s.Language, lists: map[string]*List{}, rules: map[string]*node{}, nodes: &nodes{}}
	defer func() { l.nodes = nil }()
	lang, _ := locale.Of(s.Language)
	l.numbers = lang.ReadNumber
	for name, ls := range s.Lists {
		c, err := compileList(name, ls, l.nodes)
		if err != nil {
			return nil, err
		}
		l.lists[name] = c
	}
	var err error
	if l.rules, err = compileRules(s.Rules, l.nodes); err != nil {
		return nil, err
	}
	for _, w := range s.SkipWords {
		if ws := strings.Fields(normText(w)); len(ws) > 0 {
			l.skip = append(l.skip, ws)
		}
	}
	sort.SliceStable(l.skip, func(i, j int) bool { return len(strings.Join(l.skip[i], " ")) > len(strings.Join(l.skip[j], " ")) })
	for _, w := range s.LeadWords {
		if ws := strings.Fields(normText(w)); len(ws) > 0 {
			l.lead = append(l.lead, ws)
		}
	}
	sort.SliceStable(l.lead, func(i, j int) bool { return len(l.lead[i]) > len(l.lead[j]) })
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range s.Intents {
			if !yield(n) {
				return
			}
		}
	})
	lits := map[string]int{}
	l.needMemo = map[needKey][]need{}
	defer func() { l.needMemo = nil }()
	for _, name := range names {
		ci := &compiledIntent{name: name}
		for _, d := range s.Intents[name].Data {
			b, err := l.compileBlock(name, d, lits)
			if err != nil {
				return nil, err
			}
			ci.data = append(ci.data, b)
		}
		l.intents = append(l.intents, ci)
	}
	l.index(s.SkipWords)
	return l, nil
}

func compileRules(src map[string]string, a *nodes) (map[string]*node, error) {
	out := map[string]*node{}
	for name, body := range src {
		n, err := parse(body, false, a)
		if err != nil {
			return nil, fmt.Errorf("intent: rule <%s>: %w", name, err)
		}
		out[name] = prepared(n)
	}
	return out, nil
}

func (l *Language) compileBlock(intent string, d SourceData, lits map[string]int) (*block, error) {
	b := &block{intent: intent, slots: d.Slots, response: d.Response, requires: d.RequiresContext, excludes: d.ExcludesContext,
		metadata: d.Metadata, lists: map[string]*List{}}
	for name, ls := range d.Lists {
		c, err := compileList(name, ls, l.nodes)
		if err != nil {
			return nil, fmt.Errorf("intent: %s: %w", intent, err)
		}
		b.lists[name] = c
	}
	var err error
	if b.rules, err = compileRules(d.Rules, l.nodes); err != nil {
		return nil, fmt.Errorf("intent: %s: %w", intent, err)
	}
	for _, k := range d.RequiredKeywords {
		b.keywords = append(b.keywords, normText(k))
	}
	for _, text := range d.Sentences {
		n, err := parse(text, false, l.nodes)
		if err != nil {
			return nil, fmt.Errorf("intent: %s: %w", intent, err)
		}
		s := &sentence{text: text, root: prepared(n), blk: b}
		need, err := l.needs(b, s.root, 0)
		if err != nil {
			return nil, fmt.Errorf("intent: %s: %q: %w", intent, text, err)
		}
		s.need = l.clauses(need, lits)
		b.sentences = append(b.sentences, s)
	}
	return b, nil
}

// filterText is text as the prefilter compares it: hyphens and
// underscores are spaces, as the matcher may read them.
func filterText(s string) string { return filterer.Replace(s) }

var filterer = strings.NewReplacer("-", " ", "_", " ")

// expandPerms replaces every permutation by the alternatives of its
// orders.
func expandPerms(n *node) *node {
	for i, it := range n.items {
		n.items[i] = expandPerms(it)
	}
	if n.kind != perm {
		return n
	}
	out := &node{kind: alt}
	var walk func(chosen []*node, rest []*node)
	walk = func(chosen, rest []*node) {
		if len(rest) == 0 {
			out.items = append(out.items, &node{kind: seq, items: slices.Clone(chosen)})
			return
		}
		for i := range rest {
			others := append(slices.Clone(rest[:i]), rest[i+1:]...)
			walk(append(chosen, rest[i]), others)
		}
	}
	walk(nil, n.items)
	return out
}

// prepared is a parsed template made ready to match: permutations
// expanded, first bytes computed.
func prepared(n *node) *node {
	n = expandPerms(n)
	starts(n)
	return n
}

//go:embed data/*.json.gz
var data embed.FS

var (
	loadMu sync.Mutex
	loaded = map[string]*Language{}
)

// Languages lists the languages whose templates Hark carries.
func Languages() []string {
	entries, _ := data.ReadDir("data")
	var out []string
	for _, e := range entries {
		code, ok := strings.CutPrefix(e.Name(), "ha-")
		if !ok {
			continue
		}
		out = append(out, strings.TrimSuffix(code, ".json.gz"))
	}
	return out
}

// Load returns the compiled templates of a language (an ISO 639-1 code):
// Home Assistant's and Hark's own, merged. It is compiled once and shared.
func Load(code string) (*Language, error) {
	loadMu.Lock()
	defer loadMu.Unlock()
	if l, ok := loaded[code]; ok {
		return l, nil
	}
	src, err := Embedded(code)
	if err != nil {
		return nil, err
	}
	l, err := Compile(src)
	if err != nil {
		return nil, err
	}
	loaded[code] = l
	return l, nil
}

// ErrNoLanguage reports a language Hark carries no templates for.
var ErrNoLanguage = errors.New("intent: no templates for this language")

// Embedded returns the source of a language as embedded: Home
// Assistant's templates with Hark's own merged in.
func Embedded(code string) (Source, error) {
	var src Source
	found := false
	for _, part := range []string{"ha-", "hark-"} {
		f, err := data.Open("data/" + part + code + ".json.gz")
		if err != nil {
			continue
		}
		s, err := DecodeSource(f)
		f.Close()
		if err != nil {
			return Source{}, fmt.Errorf("intent: %s%s: %w", part, code, err)
		}
		if !found {
			src, found = s, true
			continue
		}
		src.Merge(s)
	}
	if !found {
		return Source{}, fmt.Errorf("%w: %q", ErrNoLanguage, code)
	}
	return src, nil
}

// NameContexts lists the contexts a {name} must have for some template
// of the language: every domain and device class its conditions ask for.
func (l *Language) NameContexts() []map[string]any {
	seen := map[string]bool{}
	var out []map[string]any
	add := func(c map[string]any) {
		key := fmt.Sprint(c)
		if !seen[key] {
			seen[key] = true
			out = append(out, c)
		}
	}
	for _, ci := range l.intents {
		for _, b := range ci.data {
			domains, classes := values(b.requires["domain"]), values(b.requires["device_class"])
			for _, d := range domains {
				if len(classes) == 0 {
					add(map[string]any{"domain": d})
				}
				for _, c := range classes {
					add(map[string]any{"domain": d, "device_class": c})
				}
			}
		}
	}
	return out
}

// values are the values a condition accepts.
func values(v any) []any {
	want, _ := condition("", v)
	switch w := want.(type) {
	case nil:
		return nil
	case []any:
		return w
	}
	return []any{want}
}

// Words are the words an intent's templates say in the language: their
// literal text, and the plain values of the lists they name (wildcards,
// ranges and the lists filled at run time say none), lowercased, each
// once, whole: a word written in pieces ("enc[i]end(a|e|er|é)") is each
// word its pieces join into ("enciende", "encender"). Core are those some template says outside an optional part
// ("louder" in "[a (bit|little)] louder"); the rest are in extra. The
// tool router reads requests by them.
func (l *Language) Words(intentName string) (core, extra []string) {
	if w, ok := l.words.Load(intentName); ok {
		p := w.([2][]string)
		return p[0], p[1]
	}
	core, extra = l.words0(intentName)
	l.words.Store(intentName, [2][]string{core, extra})
	return core, extra
}

func (l *Language) words0(intentName string) (core, extra []string) {
	w := &wordWalk{l: l, memo: map[pieceKey]memoPieces{}}
	for _, ci := range l.intents {
		if ci.name != intentName {
			continue
		}
		for _, b := range ci.data {
			for _, s := range b.sentences {
				w.sentence(b, s)
			}
		}
	}
	var all wordSet
	for i, x := range w.inner.words {
		if x = strings.Trim(x, "'"); x != "" {
			all.add(x, w.inner.opt[i])
		}
	}
	for i, w := range all.words {
		if all.opt[i] {
			extra = append(extra, w)
		} else {
			core = append(core, w)
		}
	}
	return core, extra
}

// sentence adds the whole words a sentence says to the walk's inner
// words, before their quotes are trimmed.
func (w *wordWalk) sentence(b *block, s *sentence) {
	p := w.pieces(b, s.root, false, 0)
	for _, ws := range []wordSet{p.atoms, p.heads, p.tails} {
		for i, x := range ws.words {
			w.addInner(x, ws.opt[i])
		}
	}
}

// addInner adds a whole word to the walk's inner words; a walk for some
// words only notes whether it is one of them, quotes trimmed.
func (w *wordWalk) addInner(x string, optional bool) {
	if w.keep == nil {
		w.inner.add(x, optional)
		return
	}
	if w.keep.words[strings.Trim(x, "'")] {
		w.found = true
	}
}

// saying reports which intents' templates say one of the words of keep,
// as Words reads them. It walks the templates as Words does, but keeps
// only the pieces that may be part of one of those words, so it costs
// little where Words joins every piece with every other; it reads each
// rule and list once for all intents, and stops an intent's walk at the
// first sentence that says one. (Words stops joining pieces at
// mostPieces words, which this walk, with fewer pieces, may not reach;
// no template Hark carries comes near it: TestSkippedAsWordsSay.)
func (l *Language) saying(keep *partsOf) map[string]bool {
	w := &wordWalk{l: l, memo: map[pieceKey]memoPieces{}, keep: keep}
	out := map[string]bool{}
	for _, ci := range l.intents {
		w.found = false
	walk:
		for _, b := range ci.data {
			for _, s := range b.sentences {
				if w.sentence(b, s); w.found {
					break walk
				}
			}
		}
		out[ci.name] = w.found
	}
	return out
}

// place is where a piece stands in the word it is part of.
type place uint8

const (
	inside  place = 1 << iota // anywhere: an atom
	ending                    // at its end: a head
	opening                   // at its start: a tail
	whole                     // the word itself
)

// partsOf holds some words and every part of them, by where in the word
// the part stands.
type partsOf struct {
	words map[string]bool
	parts map[string]place
}

// newPartsOf indexes the parts of words; partsOf keeps words, not a copy.
func newPartsOf(words map[string]bool) *partsOf {
	p := &partsOf{words: words, parts: map[string]place{"": inside | ending | opening}}
	for w := range words {
		for i := range len(w) + 1 {
			for j := i; j <= len(w); j++ {
				at := inside
				if i == 0 {
					at |= opening
				}
				if j == len(w) {
					at |= ending
				}
				p.parts[w[i:j]] |= at
			}
		}
	}
	return p
}

// keeps reports whether x may be part of one of the words at place at:
// quotes around a word are not part of it (Words trims them), so neither
// are they of a piece. A nil partsOf keeps every piece.
func (p *partsOf) keeps(x string, at place) bool {
	if p == nil {
		return true
	}
	x = strings.Trim(x, "'")
	if at == whole {
		return x == "" || p.words[x]
	}
	return p.parts[x]&at != 0
}

// pieces are what a part of a template can say, as parts of words: a
// template writes a word in pieces ("enc[i]end(a|e)", "light[s]"), so a
// word is only whole once the parts around it are joined to it. Atoms
// are the texts the part can say without a space; the others have one:
// heads are what they say before their first space (the end of the word
// before the part), tails after their last (the start of the next). The
// whole words between go to the walk's inner words at once.
type pieces struct{ atoms, heads, tails wordSet }

// wordWalk reads the words of one intent's templates.
type wordWalk struct {
	l *Language
	// memo holds what the rules and lists already read say; inner the
	// whole words found (left empty by a walk for some words only).
	memo  map[pieceKey]memoPieces
	inner wordSet
	// found is set when a whole word of keep is found.
	found bool
	// keep, when set, holds the only words the walk looks for: a piece
	// that can be part of none of them is left out.
	keep *partsOf
}

// wordSet is a set of words in the order first added, each optional
// when it is said only in optional parts of its template.
type wordSet struct {
	words []string
	opt   []bool
	index map[string]int
}

// mostPieces bounds the words joined into a set, as a template's
// alternatives multiply.
const mostPieces = 1024

func (s *wordSet) add(w string, optional bool) {
	i, ok := s.find(w)
	if ok {
		s.opt[i] = s.opt[i] && optional
		return
	}
	if s.index != nil {
		s.index[w] = len(s.words)
	} else if len(s.words) == smallSet {
		s.index = make(map[string]int, 2*smallSet)
		for i, x := range s.words {
			s.index[x] = i
		}
		s.index[w] = len(s.words)
	}
	s.words = append(s.words, w)
	s.opt = append(s.opt, optional)
}

// smallSet is the size up to which a set is searched word by word.
const smallSet = 16

func (s *wordSet) find(w string) (int, bool) {
	if s.index != nil {
		i, ok := s.index[w]
		return i, ok
	}
	i := slices.Index(s.words, w)
	return i, i >= 0
}

func (s *wordSet) union(o wordSet) {
	for i, w := range o.words {
		s.add(w, o.opt[i])
	}
}

// join adds every word of a followed by one of b that keep keeps at place
// at; an empty piece does not make a word optional or not.
func (s *wordSet) join(a, b wordSet, keep *partsOf, at place) {
	for i, x := range a.words {
		for j, y := range b.words {
			if len(s.words) >= mostPieces {
				return
			}
			if xy := x + y; keep.keeps(xy, at) {
				s.add(xy, (x == "" || a.opt[i]) && (y == "" || b.opt[j]))
			}
		}
	}
}

// nothingSaid is the atoms of an empty sequence: the empty text. Sets of
// pieces are only read once made, so every walk shares it.
var nothingSaid = wordSet{words: []string{""}, opt: []bool{true}}

// boundary is a part that says no word of the template's own but stands
// apart from the words around it: a value filled at run time, a number, a
// wildcard.
func boundary() pieces {
	var p pieces
	p.heads.add("", true)
	p.tails.add("", true)
	return p
}

// memoPieces are what a rule or list says, and whether reading it found
// a word the walk looks for.
type memoPieces struct {
	pieces
	found bool
}

// joinInner adds the whole words a's tails and b's heads join into, as
// join does.
func (w *wordWalk) joinInner(a, b wordSet) {
	for i, x := range a.words {
		for j, y := range b.words {
			if len(w.inner.words) >= mostPieces {
				return
			}
			if xy := x + y; w.keep.keeps(xy, whole) {
				w.addInner(xy, (x == "" || a.opt[i]) && (y == "" || b.opt[j]))
			}
		}
	}
}

// pieceKey names what a rule or list says, in an optional part or not:
// the same wherever templates name it in one scope, a block's when it has
// rules or lists of its own, else the language's (nil).
type pieceKey struct {
	scope    *block
	kind     kind
	name     string
	optional bool
}

// pieces are what n says, optional when it is inside an optional part;
// what a rule or list says is read once, and the caller must not change
// it.
func (w *wordWalk) pieces(b *block, n *node, optional bool, depth int) pieces {
	if w.keep != nil {
		optional = false // a walk for some words only reads them once
	}
	if n.kind == rule || n.kind == list {
		k := pieceKey{kind: n.kind, name: n.text, optional: optional}
		if len(b.rules) > 0 || len(b.lists) > 0 {
			k.scope = b
		}
		if m, ok := w.memo[k]; ok {
			w.found = w.found || m.found
			return m.pieces
		}
		was := w.found
		w.found = false
		p := w.pieces0(b, n, optional, depth)
		w.memo[k] = memoPieces{p, w.found}
		w.found = was || w.found
		return p
	}
	return w.pieces0(b, n, optional, depth)
}

func (w *wordWalk) pieces0(b *block, n *node, optional bool, depth int) pieces {
	l := w.l
	var p pieces
	if depth > 50 {
		return p
	}
	switch n.kind {
	case text:
		t := filterText(n.text)
		if !strings.Contains(t, " ") {
			if w.keep.keeps(t, inside) {
				p.atoms.add(t, optional)
			}
			return p
		}
		ws := strings.Split(t, " ")
		if w.keep.keeps(ws[0], ending) {
			p.heads.add(ws[0], optional)
		}
		if w.keep.keeps(ws[len(ws)-1], opening) {
			p.tails.add(ws[len(ws)-1], optional)
		}
		for _, x := range ws[1 : len(ws)-1] {
			if x != "" && w.keep.keeps(x, whole) {
				w.addInner(x, optional)
			}
		}
	case seq, perm:
		p.atoms = nothingSaid
		for _, it := range n.items {
			q := w.pieces(b, it, optional, depth+1)
			var next pieces
			next.atoms.join(p.atoms, q.atoms, w.keep, inside)
			if len(p.atoms.words) == 0 {
				next.heads = p.heads // read, never changed
			} else {
				next.heads.union(p.heads)
				next.heads.join(p.atoms, q.heads, w.keep, ending)
			}
			if len(q.atoms.words) == 0 {
				next.tails = q.tails
			} else {
				next.tails.union(q.tails)
				next.tails.join(p.tails, q.atoms, w.keep, opening)
			}
			w.joinInner(p.tails, q.heads)
			p = next
		}
	case alt:
		for _, it := range n.items {
			q := w.pieces(b, it, optional || n.nullable, depth+1)
			p.atoms.union(q.atoms)
			p.heads.union(q.heads)
			p.tails.union(q.tails)
		}
	case rule:
		if r := b.rules[n.text]; r != nil {
			return w.pieces(b, r, optional, depth+1)
		}
		if r := l.rules[n.text]; r != nil {
			return w.pieces(b, r, optional, depth+1)
		}
	case list:
		lst := b.lists[n.text]
		if lst == nil {
			lst = l.lists[n.text]
		}
		if lst == nil || len(lst.values) == 0 {
			return boundary()
		}
		vals := &node{kind: alt}
		for _, v := range lst.values {
			if v.in != nil {
				vals.items = append(vals.items, v.in)
			} else {
				vals.items = append(vals.items, &node{kind: text, text: v.text})
			}
		}
		return w.pieces(b, vals, optional, depth+1)
	}
	return p
}

// index builds the prefilter's index once every sentence is compiled: each
// sentence is filed under the atoms of the clause of it that is rarest
// across the language (any clause would do; a rare one tries fewest).
func (l *Language) index(skipWords []string) {
	l.finder = newFinder(l.literals)
	l.byLiteral = make([][]int32, len(l.literals))
	freq := make([]int, len(l.literals))
	for _, ci := range l.intents {
		for _, b := range ci.data {
			for _, s := range b.sentences {
				l.all = append(l.all, s)
				for _, c := range s.need {
					for _, a := range c {
						if a >= 0 {
							freq[a]++
						}
					}
				}
			}
		}
	}
	cost := func(c clause) int {
		n := 0
		for _, a := range c {
			if a < 0 {
				n += len(l.all) / 4 // a name said is common
			} else {
				n += freq[a]
			}
		}
		return n
	}
	skips := map[string]bool{}
	for _, w := range skipWords {
		for _, f := range strings.Fields(normText(w)) {
			skips[f] = true
		}
	}
	keep := newPartsOf(skips)
	saysSkip := l.saying(keep)
	for i, s := range l.all {
		id := int32(i)
		if saysSkip[s.blk.intent] {
			l.skipped = append(l.skipped, id)
		}
		if len(s.need) == 0 {
			l.anchorless = append(l.anchorless, id)
			continue
		}
		anchor := s.need[0]
		for _, c := range s.need[1:] {
			if cost(c) < cost(anchor) {
				anchor = c
			}
		}
		for _, a := range anchor {
			if a < 0 {
				l.byRuntime[-a] = append(l.byRuntime[-a], id)
			} else {
				l.byLiteral[a] = append(l.byLiteral[a], id)
			}
		}
	}
}
