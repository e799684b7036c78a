package intent

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The prefilter: before a sentence template is matched, what was said must
// contain what every match of the template contains. That is written as
// clauses, each a choice of atoms of which one must be there: a word of
// the template's text (found anywhere in what was said, as part of a word
// or not), or a value of a list filled at run time.

// clause is a set of atoms, one of which must hold: an index into the
// language's literals, or a negative runtime list (see runtimeAtoms).
type clause []int

// runtimeAtoms number the run-time lists as atoms.
var runtimeAtoms = map[string]int{"name": -1, "area": -2, "floor": -3}

// need is a clause before the atoms are numbered: words, or "{name}" for
// a run-time list.
type need []string

// needKey names what a rule or list says where a block's templates name
// it: in the block's own scope when it has rules or lists of its own
// (which the language's rules may name too), else in the language's.
type needKey struct {
	scope *block
	kind  kind
	name  string
}

// needs returns the clauses every match of n meets, and checks that the
// rules and lists n names exist. The clauses of a rule or list are read
// once per scope, and those of a text once, in l.needMemo while
// compiling: callers must not change what it returns, nor its clauses.
func (l *Language) needs(b *block, n *node, depth int) ([]need, error) {
	if depth > 50 {
		return nil, errors.New("expansion rules refer to each other in a loop")
	}
	if (n.kind == rule || n.kind == list || n.kind == text) && l.needMemo != nil {
		k := needKey{kind: n.kind, name: n.text}
		if n.kind != text && (len(b.rules) > 0 || len(b.lists) > 0) {
			k.scope = b
		}
		if w, ok := l.needMemo[k]; ok {
			return w, nil
		}
		w, err := l.needs0(b, n, depth)
		if err == nil {
			l.needMemo[k] = w
		}
		return w, err
	}
	return l.needs0(b, n, depth)
}

func (l *Language) needs0(b *block, n *node, depth int) ([]need, error) {
	switch n.kind {
	case text:
		words := strings.Fields(filterText(n.text))
		out := make([]need, len(words))
		for i := range words {
			out[i] = words[i : i+1 : i+1]
		}
		return out, nil
	case seq:
		var out []need
		for _, it := range n.items {
			w, err := l.needs(b, it, depth+1)
			if err != nil {
				return nil, err
			}
			if len(out) == 0 {
				out = w[:len(w):len(w)] // copied before it grows
			} else if len(w) > 0 {
				out = append(out, w...)
			}
		}
		return out, nil
	case alt:
		return l.altNeeds(b, n.items, depth)
	case rule:
		r := b.rules[n.text]
		if r == nil {
			r = l.rules[n.text]
		}
		if r == nil {
			return nil, fmt.Errorf("no expansion rule <%s>", n.text)
		}
		return l.needs(b, r, depth+1)
	case list:
		lst := b.lists[n.text]
		if lst == nil {
			if _, ok := runtimeAtoms[n.text]; ok {
				return []need{{"{" + n.text + "}"}}, nil
			}
			lst = l.lists[n.text]
		}
		if lst == nil {
			return nil, fmt.Errorf("no list {%s}", n.text)
		}
		var items []*node
		for _, v := range lst.values {
			if v.in != nil {
				items = append(items, v.in)
				continue
			}
			items = append(items, &node{kind: text, text: v.text})
		}
		if len(items) == 0 {
			return nil, nil // a range or a wildcard
		}
		return l.altNeeds(b, items, depth)
	}
	return nil, nil
}

// altNeeds are the clauses of one of several alternatives: those they all
// have, and one choice of the first atom of each.
func (l *Language) altNeeds(b *block, items []*node, depth int) ([]need, error) {
	var common []need
	firsts := make(need, 0, len(items))
	some := true
	for i, it := range items {
		w, err := l.needs(b, it, depth+1)
		if err != nil {
			return nil, err
		}
		if len(w) == 0 {
			some = false
		} else {
			firsts = append(firsts, w[0]...)
		}
		if i == 0 {
			common = w[:len(w):len(w)] // copied before it changes
			continue
		}
		common = within(common, w)
	}
	if some {
		slices.Sort(firsts)
		common = append(common, slices.Compact(firsts))
	}
	return common, nil
}

// within returns the clauses of common that w has too, in order: common
// itself when w has them all, else a copy.
func within(common, w []need) []need {
	has := func(c need) bool {
		return slices.ContainsFunc(w, func(x need) bool { return slices.Equal(x, c) })
	}
	for i, c := range common {
		if has(c) {
			continue
		}
		out := slices.Clone(common[:i])
		for _, c := range common[i+1:] {
			if has(c) {
				out = append(out, c)
			}
		}
		return out
	}
	return common
}

// clauses numbers the atoms of needs, adding new words to the literals.
func (l *Language) clauses(needs []need, lits map[string]int) []clause {
	var out []clause
	for _, nd := range needs {
		var c clause
		for _, w := range nd {
			if strings.HasPrefix(w, "{") {
				c = append(c, runtimeAtoms[strings.Trim(w, "{}")])
				continue
			}
			id, ok := lits[w]
			if !ok {
				id = len(l.literals)
				lits[w] = id
				l.literals = append(l.literals, w)
			}
			c = append(c, id)
		}
		slices.Sort(c)
		if !slices.ContainsFunc(out, func(x clause) bool { return slices.Equal(x, c) }) {
			out = append(out, slices.Compact(c))
		}
	}
	return out
}

// said is what the prefilter knows of what was said: which literals and
// which run-time lists' values are in it.
type said struct {
	lits    []bool
	runtime [4]bool // by -atom
}

func (l *Language) prefilter(in string, o *Options) said {
	f := " " + filterText(in)
	s := said{lits: make([]bool, len(l.literals))}
	l.finder.find(f, s.lits)
	for name, atom := range runtimeAtoms {
		if lst := o.Lists[name]; lst != nil {
			s.runtime[-atom] = lst.anyIn(f)
		}
	}
	return s
}

// holds reports whether every clause has an atom that was said.
func (s said) holds(cs []clause) bool {
	for _, c := range cs {
		ok := false
		for _, a := range c {
			if a < 0 && s.runtime[-a] || a >= 0 && s.lits[a] {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// anyIn reports whether some value of the list may be in what was said:
// a plain value's words are there, or the value is a template.
func (l *List) anyIn(f string) bool {
	if len(l.templates) > 0 || l.wildcard || l.rng != nil {
		return true
	}
	for _, v := range l.values {
		if strings.Contains(f, v.filtered) {
			return true
		}
	}
	return false
}

// candidates are the sentences, in order, that may match what the
// prefilter saw: those filed under an atom that was said, and those with
// nothing to file them under; only among them when only is set.
func (l *Language) candidates(s said, only []int32) []int32 {
	pick := make([]bool, len(l.all))
	for _, id := range l.anchorless {
		pick[id] = true
	}
	for lit, found := range s.lits {
		if found {
			for _, id := range l.byLiteral[lit] {
				pick[id] = true
			}
		}
	}
	for a, found := range s.runtime {
		if found {
			for _, id := range l.byRuntime[a] {
				pick[id] = true
			}
		}
	}
	var out []int32
	if only != nil {
		for _, id := range only {
			if pick[id] {
				out = append(out, id)
			}
		}
		return out
	}
	for id, ok := range pick {
		if ok {
			out = append(out, int32(id))
		}
	}
	return out
}
