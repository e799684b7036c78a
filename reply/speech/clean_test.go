package speech

import (
	"slices"
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	tests := []struct{ in, want string }{
		{"It is **very** warm and *sunny* today.", "It is very warm and sunny today."},
		{"Use the `timer` command, or ~~not~~.", "Use the timer command, or not."},
		{"# Weather\nIt is sunny.", "Weather It is sunny."},
		{"Title\n=====\nBody text.", "Title Body text."},
		{"> A quote here.\nDone.", "A quote here. Done."},
		{"- Milk\n- Eggs\n* Bread", "Milk Eggs Bread"},
		{"1. Milk\n2. Eggs", "Milk Eggs"},
		{"2024. The year it all began.", "2024. The year it all began."},
		{"1. Lonely line of prose.", "1. Lonely line of prose."},
		{"Steps:\n1. Open it.\n2. Close it.\n3. Done.", "Steps: Open it. Close it. Done."},
		{"See [the docs](https://example.com/x) now.", "See the docs now."},
		{"Visit https://example.com for more.", "Visit a link for more."},
		{"Some <b>bold</b> and <br/> breaks.", "Some bold and breaks."},
		{"Here:\n```go\nfmt.Println(1)\n```\nThat prints one.", "Here: That prints one."},
		{"Let me check.\n```tool_call\n{\"name\":\"x\"}\n```", "Let me check."},
		{"tool_calls: []\nActually, it is noon.", "Actually, it is noon."},
		{"---\nAfter the rule.", "After the rule."},
		{"snake_case_name stays.", "snake_case_name stays."},
		{"100 * 3 is 300.", "100 3 is 300."},
		{"![a cat](cat.png) is here.", "a cat is here."},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q)\n  = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// Small models add emoji despite the prompt; the voice would read their
// names ("smiling face with smiling eyes"). Letters of every script,
// digits, currency, °, % and × stay.
func TestCleanDropsEmoji(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Sure! 😊", "Sure!"},
		{"Have fun 🙂", "Have fun"},
		{"Sunny today ☀️ and rain tomorrow 🌧️.", "Sunny today and rain tomorrow."},
		{"Your timer is set ✅", "Your timer is set"},
		{"👍", ""},
		{"Great job 👏🏽👏🏽!", "Great job!"},
		{"The chef 👩‍🍳 says hi, and so does the family 👨‍👩‍👧‍👦.", "The chef says hi, and so does the family."},
		{"Off to 🇫🇷 France, then 🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scotland.", "Off to France, then Scotland."},
		{"Five stars ★★★★★ from me ❤️", "Five stars from me"},
		{"Wake up ⏰ at seven ⭐", "Wake up at seven"},
		{"Press 1️⃣ to start.", "Press 1 to start."},
		{"I love🙂you.", "I love you."},
		{"**Done** 🎉", "Done"},
		{"It is 20 °C, 80 % humid and 3 × faster, for €5, £4 or ¥600.", "It is 20 °C, 80 % humid and 3 × faster, for €5, £4 or ¥600."},
		{"Привет, こんにちは, مرحبا, 你好, नमस्ते.", "Привет, こんにちは, مرحبا, 你好, नमस्ते."},
		{"क्\u200dष stays joined.", "क्\u200dष stays joined."},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q)\n  = %q\nwant %q", tt.in, got, tt.want)
		}
		for size := 1; size < 8; size++ {
			if got := chunked(tt.in, size); got != tt.want {
				t.Errorf("%q in chunks of %d: said %q, want %q", tt.in, size, got, tt.want)
			}
		}
	}
}

// A unit written with a slash is said in words in the answer's language;
// a voice would spell it out, slash and all ("kay em slash aitch").
func TestStreamSaysUnitsInWords(t *testing.T) {
	tests := []struct{ lang, in, want string }{
		{"", "Wind from the west at 20 km/h.", "Wind from the west at 20 kilometers per hour."},
		{"en", "Gusts up to 12 m/s this afternoon.", "Gusts up to 12 meters per second this afternoon."},
		{"en-GB", "It drifts at 1 km/h.", "It drifts at 1 kilometer per hour."},
		{"en", "Speeds are in km/h, 20km/h or 30 KM/H.", "Speeds are in kilometers per hour, 20 kilometers per hour or 30 kilometers per hour."},
		{"en", "At 3 ft/s or 40 mi/h.", "At 3 feet per second or 40 miles per hour."},
		{"en", "It falls at 9.8 m/s² and yes/no, and/or, 3/4 stay.", "It falls at 9.8 m/s² and yes/no, and/or, 3/4 stay."},
		{"de", "Wind aus West mit 20 km/h.", "Wind aus West mit 20 Kilometer pro Stunde."},
		{"fr", "Vent d'ouest à 20 km/h.", "Vent d'ouest à 20 kilomètres par heure."},
		{"es", "Rachas de 12,5 m/s.", "Rachas de 12,5 metros por segundo."},
		// No unit names in Italian: left as they were.
		{"it", "Vento a 20 km/h.", "Vento a 20 km/h."},
	}
	for _, tt := range tests {
		s := Stream{Language: tt.lang}
		got := strings.Join(append(s.Write(tt.in), s.Flush()...), " ")
		if got != tt.want {
			t.Errorf("in %q: %q\n  said %q\n  want %q", tt.lang, tt.in, got, tt.want)
		}
	}
}

func TestStreamSpeaksBeforeTheLineEnds(t *testing.T) {
	var s Stream
	var got []string
	for _, tok := range []string{"It", " is", " **sunny**", ".", " Highs", " of", " 12", "."} {
		got = append(got, s.Write(tok)...)
		if tok == " Highs" && !slices.Equal(got, []string{"It is sunny."}) {
			t.Fatalf("after the first sentence's end and a space: %q", got)
		}
	}
	got = append(got, s.Flush()...)
	if !slices.Equal(got, []string{"It is sunny.", "Highs of 12."}) {
		t.Errorf("got %q", got)
	}
}

// chunked streams text in pieces of size and joins what it said.
func chunked(text string, size int) string {
	var s Stream
	var out []string
	for i := 0; i < len(text); i += size {
		out = append(out, s.Write(text[i:min(i+size, len(text))])...)
	}
	return strings.Join(append(out, s.Flush()...), " ")
}

func TestStreamMatchesWholeText(t *testing.T) {
	text := "# Plan\nHere is **what** I found.\n1. First *item*.\n2. Second `item`.\n\n```\ncode\n```\n2024. A year.\n> quoted [link](http://x)\nThe end"
	want := Clean(text)
	for size := 1; size < 20; size++ {
		if got := chunked(text, size); got != want {
			t.Errorf("chunks of %d: %q, want %q", size, got, want)
		}
	}
}

func TestMalformed(t *testing.T) {
	for _, s := range []string{
		`{"name": "get_weather", "arguments": {"city": "Paris"`,
		`{"temperature": 12, "unit": "C"}`,
		`[{"a": 1}]`,
		`tool_calls: []`,
		`TOOL_CALLS: [{"function": {}}]`,
		`The answer: {"openapi": "3.0.0", "paths": {"/x": {}}}`,
		`{"latitude": 52.5, "longitude": 13.4, "current": {"temperature_2m": 7}}`,
		`HTTP/1.1 200 OK Content-Type: application/json`,
		`"temp": 5, "wind": 10, "humidity": 80, "code": 3, "time": "10:00"`,
	} {
		if !Malformed(s) {
			t.Errorf("Malformed(%q) = false", s)
		}
	}
	for _, s := range []string{
		"It is 12 degrees in Paris.", "Sure! Your timer is set.", "The ratio is 3:2, roughly.",
		`He said "hello" and left.`, "", "[laughs] That's funny.",
	} {
		if Malformed(s) {
			t.Errorf("Malformed(%q) = true", s)
		}
	}
}

func TestSuspicious(t *testing.T) {
	for s, want := range map[string]bool{`{"a"`: true, " [": true, "tool_calls": true, "It is": false, "Today": false} {
		if Suspicious(s) != want {
			t.Errorf("Suspicious(%q) != %v", s, want)
		}
	}
}

func FuzzStream(f *testing.F) {
	f.Add("# Title\n**bold** 1. a\n2. b\n```x\ny\n```\nEnd.", 3)
	f.Add("2024. The year\n- item\n> q", 1)
	f.Add("<think>a\n# b</THINK>Yes. </think> 1 < 2 <thi", 2)
	f.Fuzz(func(t *testing.T, text string, size int) {
		if size < 1 || size > 50 {
			return
		}
		if got, want := chunked(text, size), Clean(text); got != want {
			t.Errorf("chunking changed the speech: %q vs %q", got, want)
		}
		if strings.Contains(Clean(text), "```") {
			t.Errorf("a fence survived: %q", Clean(text))
		}
	})
}

func FuzzMalformed(f *testing.F) {
	f.Add(`{"a": [1, 2`)
	f.Add("It is sunny.")
	f.Add(`{"reply": ["It is sunny", "and warm"]`)
	f.Fuzz(func(t *testing.T, s string) {
		Malformed(s) // must not panic
		if trimmed := strings.TrimSpace(s); strings.HasPrefix(trimmed, `{"`) && !strings.HasSuffix(trimmed, "}") && !Malformed(s) {
			t.Errorf("truncated JSON %q passed the guard", s)
		}
	})
}

// A model's inline reasoning is never said, however the stream cuts its
// tags; one left open is dropped whole.
func TestReasoningIsNotSaid(t *testing.T) {
	tests := []struct{ in, want, reasoning string }{
		{"<think>The user wants the capital. Be brief.</think>Paris is the capital of France.", "Paris is the capital of France.", "The user wants the capital. Be brief."},
		{"<think>\n\n</think>\n\nParis.", "Paris.", ""}, // reasoning turned off: an empty block
		{"<THINKING>Hmm.</THINKING> It is noon.", "It is noon.", "Hmm."},
		{"<think>Let me reason about this at length before I answer and", "", "Let me reason about this at length before I answer and"},
		{"<think>cut in the tag </thi", "", "cut in the tag </thi"},
		{"Noon. </think>", "Noon.", ""},
		{"Three < four, and <b>bold</b> <th", "Three < four, and bold <th", ""},
	}
	for _, tt := range tests {
		if got := Clean(tt.in); got != tt.want {
			t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
		}
		for size := 1; size < 12; size++ {
			if got := chunked(tt.in, size); got != tt.want {
				t.Errorf("%q in chunks of %d: said %q, want %q", tt.in, size, got, tt.want)
			}
		}
		if _, reasoning := SplitReasoning(tt.in); reasoning != tt.reasoning {
			t.Errorf("SplitReasoning(%q) reasoning = %q, want %q", tt.in, reasoning, tt.reasoning)
		}
	}
}

// Nothing after a block is said before the block closes.
func TestReasoningHoldsTheAnswer(t *testing.T) {
	var r Reasoning
	var said strings.Builder
	for _, chunk := range []string{"<th", "ink>The user", " greets me.", "</th", "ink>", "Hello", " <", "3 there."} {
		got := r.Write(chunk)
		if said.Len() == 0 && got != "" && chunk != "Hello" {
			t.Fatalf("%q said on %q, before the answer began", got, chunk)
		}
		said.WriteString(got)
	}
	said.WriteString(r.Flush())
	if got, want := said.String(), "Hello <3 there."; got != want {
		t.Errorf("said %q, want %q", got, want)
	}
}
