package intent

import (
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

// kind is what a node of a parsed template is.
type kind uint8

const (
	text kind = iota // literal text, spaces as written
	seq              // all items in order
	alt              // one of the items; optional when one item is empty text
	perm             // all items in any order
	list             // a value of a list: {list} or {list:slot}
	rule             // an expansion rule: <rule>
)

// node is one part of a parsed sentence template.
type node struct {
	kind  kind
	text  string // text: the words, lowercased; list and rule: the name
	slot  string // list: the slot the value goes in
	items []*node
	// wordEnd is set on a list followed by white space in its template: a
	// wildcard there ends where a word ends.
	wordEnd bool

	// What the node can start with, for pruning: the bytes its first word
	// may begin with, or any byte (lists, rules), or nothing at all.
	first    [4]uint64
	anyFirst bool
	nullable bool
}

// mayStart reports whether n can match at a byte c of what was said
// (white space, hyphens and underscores never rule anything out).
func (n *node) mayStart(c byte) bool {
	if n.nullable || n.anyFirst || c == ' ' || c == '-' || c == '_' {
		return true
	}
	return n.first[c>>6]&(1<<(c&63)) != 0
}

// starts computes first, anyFirst and nullable of n and its items.
func starts(n *node) {
	for _, it := range n.items {
		starts(it)
	}
	n.first, n.anyFirst, n.nullable = [4]uint64{}, false, false
	switch n.kind {
	case text:
		t := strings.TrimLeft(n.text, " ")
		if t == "" {
			n.nullable = true
			return
		}
		n.first[t[0]>>6] |= 1 << (t[0] & 63)
	case list, rule:
		n.anyFirst = true
	case alt:
		for _, it := range n.items {
			n.add(it)
			n.nullable = n.nullable || it.nullable
		}
	case seq, perm:
		n.nullable = true
		for _, it := range n.items {
			n.add(it)
			if !it.nullable {
				n.nullable = false
				break
			}
		}
	}
}

func (n *node) add(o *node) {
	n.anyFirst = n.anyFirst || o.anyFirst
	for i := range n.first {
		n.first[i] |= o.first[i]
	}
}

// parseTemplate reads a sentence template: words, alternatives (a|b),
// optionals [a], permutations (a;b), lists {name} or {name:slot} and
// expansion rules <name>; a backslash escapes the next character.
func parseTemplate(s string) (*node, error) { return parse(s, false, nil) }

// parse reads a template; keepCase leaves the text's case as written. Its
// nodes come from a when it is not nil.
func parse(s string, keepCase bool, a *nodes) (*node, error) {
	p := &parser{src: []rune(strings.TrimSpace(s)), keepCase: keepCase, nodes: a}
	n, err := p.group(0)
	if err != nil {
		return nil, fmt.Errorf("intent: template %q: %w", s, err)
	}
	if p.pos < len(p.src) {
		return nil, fmt.Errorf("intent: template %q: unexpected %q at %d", s, string(p.src[p.pos]), p.pos)
	}
	return n, nil
}

type parser struct {
	src      []rune
	pos      int
	keepCase bool
	nodes    *nodes
	// stack holds the items of the groups being read, innermost last.
	stack []*node
}

// nodes hands out nodes from blocks made together: a language's
// templates have tens of thousands, all kept as long as the language.
type nodes struct{ free []node }

// nodeBlock is how many nodes a block holds: as many as fill 32 KiB, a
// size the allocator gives with no room to spare.
const nodeBlock = 32 << 10 / unsafe.Sizeof(node{})

// new returns a node holding n, from a block when a is not nil.
func (a *nodes) new(n node) *node {
	if a == nil {
		m := new(node) // not &n, which would move every n to the heap
		*m = n
		return m
	}
	if len(a.free) == 0 {
		a.free = make([]node, nodeBlock)
	}
	m := &a.free[0]
	*m = n
	a.free = a.free[1:]
	return m
}

// take pops the items of a group pushed since mark, into a slice of
// their own (nil when there are none).
func (p *parser) take(mark int) []*node {
	if len(p.stack) == mark {
		return nil
	}
	out := slices.Clone(p.stack[mark:])
	p.stack = p.stack[:mark]
	return out
}

// group reads items until the closing delimiter end (0 for the end of the
// template) and returns their sequence, or the alternatives or permutation
// they are separated into.
func (p *parser) group(end rune) (*node, error) {
	var branches [][]*node
	mark := len(p.stack) // the items of the current branch are stack[mark:]
	sep := rune(0)
	for {
		if p.pos >= len(p.src) {
			if end != 0 {
				return nil, fmt.Errorf("missing %q", string(end))
			}
			break
		}
		c := p.src[p.pos]
		if c == end && end != 0 {
			p.pos++
			break
		}
		switch c {
		case '|', ';':
			if sep != 0 && sep != c {
				return nil, fmt.Errorf("'|' and ';' mixed in one group at %d", p.pos)
			}
			sep = c
			branches = append(branches, p.take(mark))
			p.pos++
			continue
		case ')', ']', '}', '>':
			return nil, fmt.Errorf("unexpected %q at %d", string(c), p.pos)
		}
		n, err := p.item()
		if err != nil {
			return nil, err
		}
		p.stack = append(p.stack, n)
	}
	if sep == 0 {
		return p.nodes.new(node{kind: seq, items: p.take(mark)}), nil
	}
	branches = append(branches, p.take(mark))
	out := p.nodes.new(node{kind: alt, items: make([]*node, 0, len(branches))})
	if sep == ';' {
		out.kind = perm
	}
	for _, b := range branches {
		if sep == ';' { // the parts of a permutation are words apart
			b = append(append([]*node{p.nodes.new(node{kind: text, text: " "})}, b...), p.nodes.new(node{kind: text, text: " "}))
		}
		out.items = append(out.items, p.nodes.new(node{kind: seq, items: b}))
	}
	return out, nil
}

// item reads one word (with the spaces around it as written), group,
// optional, list or rule.
func (p *parser) item() (*node, error) {
	switch c := p.src[p.pos]; c {
	case '(':
		p.pos++
		return p.group(')')
	case '[':
		p.pos++
		g, err := p.group(']')
		if err != nil {
			return nil, err
		}
		if g.kind != alt {
			g = p.nodes.new(node{kind: alt, items: []*node{g}})
		}
		g.items = append(g.items, p.nodes.new(node{kind: text}))
		return g, nil
	case '{', '<':
		closing := '}'
		if c == '<' {
			closing = '>'
		}
		start := p.pos + 1
		name, err := p.until(closing)
		if err != nil {
			return nil, fmt.Errorf("%q opened at %d: %w", string(c), start-1, err)
		}
		if name == "" {
			return nil, fmt.Errorf("empty name at %d", start)
		}
		if c == '<' {
			return p.nodes.new(node{kind: rule, text: name}), nil
		}
		n := p.nodes.new(node{kind: list, text: name, slot: name})
		if l, s, ok := strings.Cut(name, ":"); ok {
			n.text, n.slot = l, s
		}
		n.wordEnd = p.pos < len(p.src) && isSpace(p.src[p.pos])
		return n, nil
	}
	return p.word(), nil
}

// until reads the name up to the closing delimiter and steps past it.
func (p *parser) until(closing rune) (string, error) {
	p.pos++
	var b strings.Builder
	for ; p.pos < len(p.src); p.pos++ {
		c := p.src[p.pos]
		if c == '\\' && p.pos+1 < len(p.src) {
			p.pos++
			b.WriteRune(p.src[p.pos])
			continue
		}
		if c == closing {
			p.pos++
			return b.String(), nil
		}
		b.WriteRune(c)
	}
	return "", fmt.Errorf("missing %q", string(closing))
}

// word reads literal text up to the next delimiter or the next word: a
// word keeps the spaces before and after it, which matter when matching
// ("light[s]" is one word, "light [s]" two).
func (p *parser) word() *node {
	start := p.pos
	// b holds the word once it differs from its source (an escape, a
	// tab); until then the word is src[start:pos].
	var b strings.Builder
	edited := false
	edit := func() {
		if !edited {
			edited = true
			for _, r := range p.src[start:p.pos] {
				b.WriteRune(r)
			}
		}
	}
	spaceSeen := false
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		if c == '\\' && p.pos+1 < len(p.src) {
			if spaceSeen {
				break
			}
			edit()
			b.WriteRune(p.src[p.pos+1])
			p.pos += 2
			continue
		}
		if isSpace(c) && p.pos > start { // the word has begun
			spaceSeen = true
			if c != ' ' {
				edit()
			}
			if edited {
				b.WriteRune(' ')
			}
			p.pos++
			continue
		}
		if spaceSeen && !isSpace(c) {
			break
		}
		if strings.ContainsRune("|;()[]{}<>", c) {
			break
		}
		if isSpace(c) && c != ' ' {
			edit()
			c = ' '
		}
		if edited {
			b.WriteRune(c)
		}
		p.pos++
	}
	t := b.String()
	if !edited {
		t = string(p.src[start:p.pos])
	}
	if !p.keepCase {
		t = normText(t)
	}
	return p.nodes.new(node{kind: text, text: t})
}

func isSpace(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }

// normText is literal template text as it is compared: lowercased, in
// Unicode's composed form, runs of spaces as one, the typographic
// apostrophe as the plain one.
func normText(s string) string {
	s = strings.ToLower(norm.NFC.String(s)) // each s itself when it changes nothing
	s = strings.ReplaceAll(s, "’", "'")
	if !strings.ContainsAny(s, "\t\n\r") && !strings.Contains(s, "  ") {
		return s
	}
	var b strings.Builder
	space := false
	for _, r := range s {
		if isSpace(r) {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

// isTemplate reports whether a list value is written in template syntax.
func isTemplate(s string) bool { return strings.ContainsAny(s, "()[]{}<>|") }
