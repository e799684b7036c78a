package speech

import "strings"

// Reasoning takes a model's inline reasoning out of its streamed answer:
// what it writes between <think> and </think> (or <thinking> and
// </thinking>), which a server that does not parse reasoning out for the
// model leaves in the answer's content. Nothing of a block is returned,
// and nothing after it until it closes; a block left open (the answer cut
// at the token limit) is dropped whole. A stray closing tag is dropped.
// The zero value is ready to use.
type Reasoning struct {
	held    string // the start of what may be a tag, cut by the stream
	in      bool   // inside a block
	cut     bool   // a tag was taken out
	thought strings.Builder
}

// The tags, lower case; a tag is matched in either case.
var (
	closeTags = []string{"</think>", "</thinking>"}
	anyTags   = []string{"<think>", "<thinking>", "</think>", "</thinking>"}
)

// Write adds streamed text and returns what of it is the answer, as soon
// as it is known not to start a tag.
func (r *Reasoning) Write(text string) string {
	text, r.held = r.held+text, ""
	var out strings.Builder
	for text != "" {
		i := strings.IndexByte(text, '<')
		if i < 0 {
			r.emit(&out, text)
			break
		}
		r.emit(&out, text[:i])
		text = text[i:]
		n, partial := r.tagAt(text)
		switch {
		case partial:
			r.held = text
			return out.String()
		case n == 0:
			r.emit(&out, text[:1])
			text = text[1:]
		default:
			r.in = !hasTag(text, closeTags) // a stray closing tag leaves none open
			r.cut = true
			text = text[n:]
		}
	}
	return out.String()
}

// Flush ends the answer and returns what was held back of it: the start
// of a tag that never came. Reasoning left open is dropped.
func (r *Reasoning) Flush() string {
	rest := r.held
	if r.in {
		r.thought.WriteString(rest)
		rest = ""
	}
	r.held, r.in = "", false
	return rest
}

func (r *Reasoning) emit(out *strings.Builder, s string) {
	if r.in {
		r.thought.WriteString(s)
	} else {
		out.WriteString(s)
	}
}

// tagAt is the length of the tag that starts s, if it is one that
// matters here (an opening tag outside a block, a closing tag anywhere),
// or whether s is too short to tell.
func (r *Reasoning) tagAt(s string) (n int, partial bool) {
	tags := closeTags
	if !r.in {
		tags = anyTags
	}
	for _, tag := range tags {
		switch {
		case len(s) >= len(tag) && strings.EqualFold(s[:len(tag)], tag):
			return len(tag), false
		case len(s) < len(tag) && strings.EqualFold(s, tag[:len(s)]):
			partial = true
		}
	}
	return 0, partial
}

// hasTag reports whether s starts with one of tags, in either case.
func hasTag(s string, tags []string) bool {
	for _, tag := range tags {
		if len(s) >= len(tag) && strings.EqualFold(s[:len(tag)], tag) {
			return true
		}
	}
	return false
}

// SplitReasoning parts a whole answer into what is said and the inline
// reasoning taken out of it, as Reasoning does as it streams. With a
// block taken out, the answer is trimmed of the space around it.
func SplitReasoning(text string) (answer, reasoning string) {
	var r Reasoning
	answer = r.Write(text) + r.Flush()
	if r.cut {
		answer = strings.TrimSpace(answer)
	}
	return answer, strings.TrimSpace(r.thought.String())
}
