package intent

// finder finds which of many words occur in a text, anywhere: a trie of
// the words walked from each byte of the text, which for what people say
// to a speaker (tens of bytes) is a few hundred steps. It is the
// prefilter's test of the templates' literal words against what was said.
type finder struct {
	nodes []trieNode
}

type trieNode struct {
	edges []trieEdge
	word  int32 // the word ending here, or -1
}

type trieEdge struct {
	c  byte
	to int32
}

func newFinder(words []string) *finder {
	f := &finder{nodes: []trieNode{{word: -1}}}
	for id, w := range words {
		n := int32(0)
		for i := 0; i < len(w); i++ {
			next := f.child(n, w[i])
			if next < 0 {
				f.nodes = append(f.nodes, trieNode{word: -1})
				next = int32(len(f.nodes) - 1)
				f.nodes[n].edges = append(f.nodes[n].edges, trieEdge{w[i], next})
			}
			n = next
		}
		f.nodes[n].word = int32(id)
	}
	return f
}

func (f *finder) child(n int32, c byte) int32 {
	for _, e := range f.nodes[n].edges {
		if e.c == c {
			return e.to
		}
	}
	return -1
}

// find sets found[id] for every word that occurs in text.
func (f *finder) find(text string, found []bool) {
	for i := 0; i < len(text); i++ {
		n := int32(0)
		for j := i; j < len(text); j++ {
			if n = f.child(n, text[j]); n < 0 {
				break
			}
			if w := f.nodes[n].word; w >= 0 {
				found[w] = true
			}
		}
	}
}
