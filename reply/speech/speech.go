// Package speech prepares a model's written answer for the ear: it cuts the
// streamed text into sentences as soon as each is complete, so the first can
// be spoken while the model is still writing the rest.
package speech

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/harkbox/hark/locale/utterance"
)

// Splitter cuts a stream of text into sentences. Feed it pieces in order with
// Write; take the unfinished tail with Flush at the end. The zero value is
// ready to use.
type Splitter struct {
	buf []byte
}

// Write adds text and returns the sentences it completed, trimmed.
func (s *Splitter) Write(text string) []string {
	s.buf = append(s.buf, text...)
	var out []string
	start := 0
	for i := 0; i < len(s.buf); {
		r, size := utf8.DecodeRune(s.buf[i:])
		end, ok := s.boundary(start, i, r, size)
		if !ok {
			i += size
			continue
		}
		if end < 0 { // need to see more text to decide
			break
		}
		if sentence := strings.TrimSpace(string(s.buf[start:end])); sentence != "" {
			out = append(out, sentence)
		}
		start, i = end, end
	}
	s.buf = s.buf[:copy(s.buf, s.buf[start:])]
	return out
}

// Flush returns what is left, trimmed, and empties the splitter.
func (s *Splitter) Flush() string {
	rest := strings.TrimSpace(string(s.buf))
	s.buf = s.buf[:0]
	return rest
}

// boundary decides whether the rune r at i ends a sentence that began at
// start. It returns the end offset of the sentence, or -1 when the text after
// i is needed to decide, and whether r is a candidate at all.
func (s *Splitter) boundary(start, i int, r rune, size int) (int, bool) {
	switch r {
	case '\n':
		return i + size, true
	case '。', '！', '？':
		return closers(s.buf, i+size), true
	case '.', '!', '?', '…':
	default:
		return 0, false
	}
	end := closers(s.buf, i+size)
	if end >= len(s.buf) {
		return -1, true
	}
	if next, _ := utf8.DecodeRune(s.buf[end:]); !unicode.IsSpace(next) {
		return 0, false // "3.5", "e.g", "...)" mid-word
	}
	if r == '.' && !endsSentence(string(s.buf[start:i])) {
		return 0, false
	}
	return end, true
}

// closers skips closing quotes and brackets after a terminator.
func closers(b []byte, i int) int {
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if !strings.ContainsRune(`"')]”’»`, r) {
			break
		}
		i += size
	}
	return i
}

// abbreviations end with a period but rarely end a sentence.
var abbreviations = map[string]bool{
	"mr": true, "mrs": true, "ms": true, "dr": true, "prof": true, "st": true, "vs": true,
	"etc": true, "e.g": true, "i.e": true, "approx": true, "jr": true, "sr": true,
	"mt": true, "ft": true, "u.s": true,
}

// endsSentence reports whether a period after text ends a sentence: not after
// an abbreviation, a single initial ("J. R. R."), or a bare list number ("1.").
func endsSentence(text string) bool {
	text = strings.TrimSpace(text)
	word := text
	if i := strings.LastIndexFunc(text, unicode.IsSpace); i >= 0 {
		word = text[i+1:]
	}
	word = strings.TrimLeft(word, `"'(`)
	if abbreviations[strings.ToLower(word)] {
		return false
	}
	if first, _ := utf8.DecodeRuneInString(word); utf8.RuneCountInString(word) == 1 && unicode.IsUpper(first) {
		return false
	}
	if word == text && utterance.IsDigits(word) { // "1." opening a numbered list
		return false
	}
	return true
}
