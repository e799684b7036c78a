package speech

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// Stream turns a model's streamed answer into sentences fit to be spoken:
// inline reasoning (<think>…</think>, see Reasoning), code blocks,
// tool-protocol lines, headings marks, quote marks, bullets, list numbers
// and emoji go; emphasis, inline code, HTML tags and links give up their
// text; units written with a slash are said in words (see Language). It
// works as the text arrives: only a line's first few characters, and a
// numbered line until the next one shows whether it is a list, are held
// back. The zero value is ready to use, for an answer in English.
type Stream struct {
	// Language is the answer's language code ("en", "de-AT"); empty is
	// English. Units written with a slash ("20 km/h", "12 m/s") are said
	// in its words in the languages Hark speaks (locale.All), and left as
	// written in others.
	Language string

	reasoning Reasoning
	blocks    blocks
	split     Splitter
}

// Write adds streamed text and returns the sentences it completed.
func (s *Stream) Write(text string) []string {
	return s.sentences(s.split.Write(s.blocks.write(s.reasoning.Write(text))))
}

// Flush returns what is left at the end of the answer.
func (s *Stream) Flush() []string {
	tail := s.blocks.write(s.reasoning.Flush()) + s.blocks.flush()
	s.reasoning = Reasoning{}
	out := s.sentences(s.split.Write(tail))
	if rest := s.split.Flush(); rest != "" {
		out = append(out, s.sentences([]string{rest})...)
	}
	return out
}

func (s *Stream) sentences(in []string) []string {
	var out []string
	for _, raw := range in {
		if c := unitWords(Inline(raw), s.Language); c != "" {
			out = append(out, c)
		}
	}
	return out
}

// Clean returns a whole English text as it should be spoken, sentences
// joined by spaces.
func Clean(text string) string {
	var s Stream
	out := s.Write(text)
	return strings.Join(append(out, s.Flush()...), " ")
}

// blocks removes block-level markup from streamed text, line by line.
type blocks struct {
	partial string          // the bytes of a character split between writes
	start   strings.Builder // the current line's first characters, until its kind is known
	kind    lineKind
	fence   bool // inside a fenced block
	held    *heldLine
	listing bool // the previous line was an item of a numbered list
}

type lineKind int

const (
	undecided lineKind = iota
	textLine
	dropLine
	numberedLine // streaming as a list item, or held while held != nil
)

// heldLine is a numbered line waiting for the next: only two adjacent
// numbered lines make a list whose numbers are dropped.
type heldLine struct {
	raw, stripped string
	complete      bool
}

// classifyAt is how many characters of a line decide its kind.
const classifyAt = 12

var (
	fenceRE    = regexp.MustCompile("^\\s*(```|~~~)")
	headingRE  = regexp.MustCompile(`^\s{0,3}#{1,6}\s+`)
	quoteRE    = regexp.MustCompile(`^\s{0,3}(>\s?)+`)
	bulletRE   = regexp.MustCompile(`^\s*[-*+•]\s+`)
	numberedRE = regexp.MustCompile(`^\s*(\d{1,2})[.)]\s+`)
	ruleRE     = regexp.MustCompile(`^\s*([-*_=])(\s*[-*_=]){2,}\s*$`)
	protocolRE = regexp.MustCompile(`(?i)^\s*(tool_calls?\s*[:=]|function_call\s*[:=]|\[tool result|</?tool_call>)`)
)

func (b *blocks) write(text string) string {
	text = b.partial + text
	b.partial = ""
	// Hold back a character cut in two by the stream until its rest comes.
	for i := len(text) - 1; i >= 0 && i >= len(text)-utf8.UTFMax; i-- {
		if utf8.RuneStart(text[i]) {
			if !utf8.FullRuneInString(text[i:]) {
				text, b.partial = text[:i], text[i:]
			}
			break
		}
	}
	return b.runes(text)
}

// runes feeds whole characters through the line classifier.
func (b *blocks) runes(text string) string {
	var out strings.Builder
	for _, r := range text {
		switch {
		case r == '\n':
			out.WriteString(b.endLine())
		case b.kind == undecided:
			b.start.WriteRune(r)
			if b.start.Len() >= classifyAt {
				out.WriteString(b.decide(false))
			}
		case b.kind == numberedLine && b.held != nil && !b.held.complete:
			b.held.raw += string(r)
			b.held.stripped += string(r)
		case b.kind == textLine || b.kind == numberedLine:
			out.WriteRune(r)
		}
	}
	return out.String()
}

// decide classifies the current line from its start and returns what can
// be said now.
func (b *blocks) decide(complete bool) string {
	s := b.start.String()
	b.start.Reset()
	switch {
	case fenceRE.MatchString(s):
		b.fence = !b.fence
		b.kind = dropLine
		return b.release()
	case b.fence, protocolRE.MatchString(s), complete && ruleRE.MatchString(s):
		b.kind = dropLine
		return ""
	}
	if m := numberedRE.FindStringSubmatch(s); m != nil {
		b.kind = numberedLine
		rest := s[len(m[0]):]
		switch {
		case b.listing:
			return rest
		case b.held != nil && b.held.complete:
			prev := b.held.stripped + "\n"
			b.held, b.listing = nil, true
			return prev + rest
		}
		b.held = &heldLine{raw: s, stripped: rest}
		return ""
	}
	b.kind, b.listing = textLine, false
	s = headingRE.ReplaceAllString(s, "")
	s = quoteRE.ReplaceAllString(s, "")
	return b.release() + bulletRE.ReplaceAllString(s, "")
}

// release returns a held numbered line as it was: the line after it was
// not numbered, so it is prose ("2024. The year ...").
func (b *blocks) release() string {
	if b.held == nil {
		return ""
	}
	raw := b.held.raw
	b.held = nil
	return raw + "\n"
}

func (b *blocks) endLine() string {
	var out string
	if b.kind == undecided {
		out = b.decide(true)
	}
	switch {
	case b.kind == numberedLine && b.held != nil:
		b.held.complete = true // wait for the next line
	case b.kind == textLine || b.kind == numberedLine:
		out += "\n"
	}
	b.kind = undecided
	return out
}

func (b *blocks) flush() string {
	var out string
	if b.partial != "" { // a cut character whose rest never came
		p := b.partial
		b.partial = ""
		out = b.runes(p)
	}
	if b.start.Len() > 0 {
		out += b.decide(true)
	}
	out += b.release()
	*b = blocks{}
	return out
}

var (
	imageRE    = regexp.MustCompile(`!\[([^\]]*)\]\([^)]*\)`)
	linkRE     = regexp.MustCompile(`\[([^\]]+)\]\([^)]*\)`)
	refLinkRE  = regexp.MustCompile(`\[([^\]]+)\]\[[^\]]*\]`)
	codeRE     = regexp.MustCompile("`+([^`]*)`+")
	boldRE     = regexp.MustCompile(`(\*\*|__)(\S(?:.*?\S)?)(\*\*|__)`)
	italicRE   = regexp.MustCompile(`(^|[\s(])[*_](\S(?:[^*_]*?\S)?)[*_]([\s).,;:!?]|$)`)
	strikeRE   = regexp.MustCompile(`~~(.+?)~~`)
	htmlRE     = regexp.MustCompile(`</?[a-zA-Z][a-zA-Z0-9]*(\s[^<>]*)?/?>`)
	urlRE      = regexp.MustCompile(`https?://\S+`)
	strayRE    = regexp.MustCompile(`\*{1,3}|#{2,}`)
	spacesRE   = regexp.MustCompile(`\s{2,}`)
	hrefTextRE = regexp.MustCompile(`(?i)<a\s[^>]*>(.*?)</a>`)
)

// Inline removes inline markup from one sentence: emphasis, strikethrough
// and code keep their text, links their text, HTML tags and emoji go, bare
// URLs are called "a link".
func Inline(s string) string {
	s = withoutEmoji(s)
	s = hrefTextRE.ReplaceAllString(s, "$1")
	s = imageRE.ReplaceAllString(s, "$1")
	s = linkRE.ReplaceAllString(s, "$1")
	s = refLinkRE.ReplaceAllString(s, "$1")
	s = codeRE.ReplaceAllString(s, "$1")
	s = boldRE.ReplaceAllString(s, "$2")
	s = strikeRE.ReplaceAllString(s, "$1")
	for i := 0; i < 2; i++ { // adjacent italics share a space
		s = italicRE.ReplaceAllString(s, "$1$2$3")
	}
	s = htmlRE.ReplaceAllString(s, "")
	s = urlRE.ReplaceAllString(s, "a link")
	s = strayRE.ReplaceAllString(s, "")
	return strings.TrimSpace(spacesRE.ReplaceAllString(s, " "))
}
