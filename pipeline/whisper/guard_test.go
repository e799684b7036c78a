package whisper

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/harkbox/hark/pipeline/voice"
)

func seg(text string, noSpeech, conf float32) Segment {
	return Segment{Text: text, NoSpeech: noSpeech, Confidence: conf}
}

func TestFilterCraftedOutputs(t *testing.T) {
	var o Options
	tests := []struct {
		name string
		segs []Segment
		want string // "" means ErrNoSpeech
	}{
		{"speech", []Segment{seg(" And so my fellow Americans,", 0.01, 0.9), seg(" ask not.", 0.02, 0.85)}, "And so my fellow Americans, ask not."},
		{"blank marker", []Segment{seg(" [BLANK_AUDIO]", 0.1, 0.9)}, ""},
		{"blank in parens", []Segment{seg("(blank audio)", 0.1, 0.9)}, ""},
		{"silence marker", []Segment{seg("[ Silence ]", 0.1, 0.9)}, ""},
		{"bracketed only", []Segment{seg(" [laughs] (wind blowing)", 0.2, 0.9)}, ""},
		{"music notes", []Segment{seg("♪♪♪", 0.3, 0.9)}, ""},
		{"starred", []Segment{seg("*music plays*", 0.3, 0.9)}, ""},
		{"marker beside speech", []Segment{seg("[BLANK_AUDIO]", 0.1, 0.9), seg(" Set a timer.", 0.05, 0.8)}, "Set a timer."},
		{"no-speech segment", []Segment{seg(" Thank you for watching.", 0.85, 0.4)}, ""},
		{"high no-speech but confident", []Segment{seg(" Stop.", 0.7, 0.9)}, "Stop."},
		{"low confidence", []Segment{seg(" The the.", 0.2, 0.15)}, ""},
		{"loop", []Segment{seg(" Thank you. Thank you. Thank you. Thank you. Thank you. Thank you.", 0.3, 0.7)}, ""},
		{"phrase loop", []Segment{seg(" I'm going to go. I'm going to go. I'm going to go. I'm going to go.", 0.2, 0.7)}, ""},
		// Decoding has no temperature fallback: a confident sentence loop
		// on noise is for the guard to catch.
		{"sentence loop", []Segment{seg(strings.Repeat(" We'll be right back after the break.", 5), 0.3, 0.8)}, ""},
		{"sentence said twice", []Segment{seg(" Is it going to rain tomorrow? Is it going to rain tomorrow?", 0.05, 0.8)}, "Is it going to rain tomorrow? Is it going to rain tomorrow?"},
		{"caption, confident", []Segment{seg(" Thanks for watching!", 0.3, 0.9)}, ""},
		{"thanks", []Segment{seg(" Thank you.", 0.1, 0.9)}, "Thank you."},
		{"natural repetition", []Segment{seg(" No, no, no, I said the blue one, not the red one.", 0.05, 0.8)}, "No, no, no, I said the blue one, not the red one."},
		{"nothing", nil, ""},
	}
	for _, tt := range tests {
		got, err := o.Filter(Result{Segments: tt.segs}, voice.ErrNoSpeech)
		if tt.want == "" {
			if !errors.Is(err, voice.ErrNoSpeech) {
				t.Errorf("%s: got %q, %v; want ErrNoSpeech", tt.name, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: got %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
}

func TestAudioContext(t *testing.T) {
	for samples, want := range map[int]int{16000 * 3: 256, 16000: 128, 16000 * 30: 1500, 16000 * 60: 1500, 0: 64} {
		if got := AudioContext(samples); got != want {
			t.Errorf("AudioContext(%d) = %d, want %d", samples, got, want)
		}
	}
}

func TestPrompt(t *testing.T) {
	if got, want := Prompt("Hark", " timer ", "Timer", "", "wake  me", "weather"), "Hark, timer, wake me, weather."; got != want {
		t.Errorf("Prompt = %q, want %q", got, want)
	}
	if Prompt() != "" {
		t.Error("no words gave a prompt")
	}
	var many []string
	for i := range 200 {
		many = append(many, fmt.Sprintf("word%d", i))
	}
	p := Prompt(many...)
	if len(p) > promptMax+1 || !strings.HasPrefix(p, "word0, word1,") {
		t.Errorf("long prompt: %d chars, starts %q", len(p), p[:20])
	}
}

func TestDescribeFeatures(t *testing.T) {
	info := "WHISPER : COREML = 0 | OPENVINO = 0 | CPU : NEON = 1 | ARM_FMA = 1 | FP16_VA = 1 | DOTPROD = 1 | SVE = 0 | OPENMP = 1 | REPACK = 1 | "
	if got, want := describe("1.8.3", info), "whisper.cpp 1.8.3 (NEON ARM_FMA FP16_VA DOTPROD OPENMP REPACK)"; got != want {
		t.Errorf("describe = %q, want %q", got, want)
	}
	if got := describe("1.8.3", "WHISPER : COREML = 0 | CPU : NEON = 0 |"); !strings.Contains(got, "generic build") {
		t.Errorf("a build without features: %q", got)
	}
}
