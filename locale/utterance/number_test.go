package utterance

import (
	"strings"
	"testing"
)

func TestNumber(t *testing.T) {
	tests := []struct {
		in   string
		want float64
		n    int
	}{
		{"twelve", 12, 1},
		{"twenty one apples", 21, 2},
		{"a hundred and five", 105, 4},
		{"one hundred twenty three", 123, 4},
		{"two thousand three hundred and ten", 2310, 6},
		{"1,500 people", 1500, 1},
		{"2.5", 2.5, 1},
		{"two point five", 2.5, 3},
		{"three point one four", 3.14, 4},
		{"one and a half hours", 1.5, 4},
		{"two and a half", 2.5, 4},
		{"a half", 0.5, 2},
		{"half an hour", 0.5, 1},
		{"a quarter", 0.25, 2},
		{"minus four", -4, 2},
		{"-3", -3, 1},
		{"15%", 15, 1},
		{"an hour", 1, 1},
		{"one two", 1, 1},
		{"twenty 5", 20, 1},
		{"5 hundred", 500, 2},
		{"a dozen eggs", 12, 2},
		{"two dozen", 24, 2},
		{"a million", 1e6, 2},
		{"five and three", 5, 1},
		{"21st", 21, 1},
		{"fourty", 40, 1},
	}
	for _, tt := range tests {
		v, n, ok := Number(strings.Fields(tt.in))
		if !ok || v != tt.want || n != tt.n {
			t.Errorf("Number(%q) = %v, %d, %v; want %v, %d", tt.in, v, n, ok, tt.want, tt.n)
		}
	}
	for _, in := range []string{"", "hello", "and five", "minus a"} {
		if v, n, ok := Number(strings.Fields(in)); ok {
			t.Errorf("Number(%q) = %v, %d; want no number", in, v, n)
		}
	}
}

func TestFindNumber(t *testing.T) {
	v, at, n, ok := FindNumber(Words("set a timer for five minutes"))
	if !ok || v != 5 || at != 4 || n != 1 {
		t.Errorf("FindNumber = %v at %d (%d words), %v", v, at, n, ok)
	}
}

func TestFormatNumber(t *testing.T) {
	for v, want := range map[float64]string{48: "48", 2.5: "2.5", 1.0 / 3: "0.3333", -7: "-7", 0.00001: "1e-05", 1e6: "1000000"} {
		if got := FormatNumber(v); got != want {
			t.Errorf("FormatNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

// TestSpokenNumber: a result is said as a person would say it: whole above
// a hundred, one decimal from ten, two from one, three significant figures
// below; exact results (up to three decimals) as they are, and a rounded
// one is reported so the sentence can say "about".
func TestSpokenNumber(t *testing.T) {
	for _, tt := range []struct {
		v       float64
		want    string
		rounded bool
	}{
		{12, "12", false},
		{0.5, "0.5", false},
		{2.25, "2.25", false},
		{12.5, "12.5", false},
		{0.125, "0.125", false},
		{-7, "-7", false},
		{1e6, "1000000", false},
		{453.59237, "454", true},
		{37.77777777777778, "37.8", true},
		{70.54792389916082, "70.5", true},
		{10.0 / 3, "3.33", true},
		{-10.0 / 3, "-3.33", true},
		{1.0 / 3, "0.333", true},
		{0.0123456, "0.0123", true},
		{0.00001, "0.00001", false},
		{2.2046226218, "2.2", true},
		{99.9612, "100", true},
		{9.9991, "10", true},
		{1234.5678, "1235", true},
	} {
		got, rounded := SpokenNumber(tt.v)
		if got != tt.want || rounded != tt.rounded {
			t.Errorf("SpokenNumber(%v) = %q, %v; want %q, %v", tt.v, got, rounded, tt.want, tt.rounded)
		}
	}
}

func TestNormalize(t *testing.T) {
	for in, want := range map[string]string{
		"What's 12 times 4?":       "what's 12 times 4",
		"Set a timer for 7:30 PM.": "set a timer for 7:30 pm",
		"It’s 2.5 degrees, right?": "it's 2.5 degrees right",
		"1,500 + 20":               "1,500 + 20",
		"what is -5 minus -3":      "what is -5 minus -3",
		"well-known   spaces":      "well known spaces",
		"it is 20°C":               "it is 20 degrees c",
	} {
		if got := Normalize(in); got != want {
			t.Errorf("Normalize(%q) = %q, want %q", in, got, want)
		}
	}
	if got := Expand("What's the time?"); got != "what is the time" {
		t.Errorf("Expand = %q", got)
	}
}
