package speech

import (
	"slices"
	"strings"
	"testing"
)

func split(pieces ...string) []string {
	var s Splitter
	var out []string
	for _, p := range pieces {
		out = append(out, s.Write(p)...)
	}
	if rest := s.Flush(); rest != "" {
		out = append(out, rest)
	}
	return out
}

func TestSplitter(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"two sentences", []string{"Hello there. How are you?"}, []string{"Hello there.", "How are you?"}},
		{"token stream", []string{"It", " is", " ten", " o'clock", ".", " Anything", " else", "?"}, []string{"It is ten o'clock.", "Anything else?"}},
		{"decimal", []string{"Pi is 3.14 roughly. Yes."}, []string{"Pi is 3.14 roughly.", "Yes."}},
		{"abbreviation", []string{"Dr. Smith is in. Mr. Jones is out."}, []string{"Dr. Smith is in.", "Mr. Jones is out."}},
		{"initials", []string{"J. R. R. Tolkien wrote it. Read it."}, []string{"J. R. R. Tolkien wrote it.", "Read it."}},
		{"e.g.", []string{"Fruit, e.g. apples, is good. Eat some."}, []string{"Fruit, e.g. apples, is good.", "Eat some."}},
		{"closing quote", []string{`He said "stop." Then left.`}, []string{`He said "stop."`, "Then left."}},
		{"exclamation and ellipsis", []string{"Wow! Well… maybe."}, []string{"Wow!", "Well…", "maybe."}},
		{"newlines", []string{"First line\nSecond line"}, []string{"First line", "Second line"}},
		{"numbered list", []string{"1. Milk\n2. Eggs"}, []string{"1. Milk", "2. Eggs"}},
		{"chinese", []string{"你好。今天很好！"}, []string{"你好。", "今天很好！"}},
		{"unfinished tail", []string{"Done. And then"}, []string{"Done.", "And then"}},
		{"blank", []string{"  \n\n "}, nil},
	}
	for _, tt := range tests {
		if got := split(tt.in...); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestSplitterEmitsAsSoonAsComplete(t *testing.T) {
	var s Splitter
	if got := s.Write("Sure."); len(got) != 0 {
		t.Errorf("emitted %q before seeing what follows the period", got)
	}
	if got := s.Write(" The"); !slices.Equal(got, []string{"Sure."}) {
		t.Errorf("after the space: %q, want [Sure.]", got)
	}
}

func TestSplitterKeepsEveryCharacter(t *testing.T) {
	// Whatever the cut points, no text is lost or reordered.
	text := "Good morning. It's 7.5 degrees outside! Dr. Who? Yes… and that's it.\nBye"
	for size := 1; size < 9; size++ {
		var pieces []string
		for i := 0; i < len(text); i += size {
			pieces = append(pieces, text[i:min(i+size, len(text))])
		}
		got := strings.Join(split(pieces...), " ")
		want := strings.Join(strings.Fields(text), " ")
		if strings.Join(strings.Fields(got), " ") != want {
			t.Errorf("piece size %d: got %q", size, got)
		}
	}
}

func FuzzSplitter(f *testing.F) {
	f.Add("Hello. World! 3.5 e.g. this", 3)
	f.Add("你好。\n1. a", 1)
	f.Fuzz(func(t *testing.T, text string, size int) {
		if size < 1 || size > 64 {
			return
		}
		var s Splitter
		var out []string
		for i := 0; i < len(text); i += size {
			out = append(out, s.Write(text[i:min(i+size, len(text))])...)
		}
		out = append(out, s.Flush())
		// Sentences are trimmed, and a cut after "。" adds no space, so compare
		// the text without any white space.
		got := strings.Join(strings.Fields(strings.Join(out, "")), "")
		if want := strings.Join(strings.Fields(text), ""); got != want {
			t.Errorf("text changed: got %q want %q", got, want)
		}
	})
}
