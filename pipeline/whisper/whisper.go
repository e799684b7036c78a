// Package whisper is Hark's speech-to-text engine: whisper.cpp, linked in
// through cgo and run in the Hark process. It is the only package with
// whisper cgo, and it is built only with the "whisper" build tag; without
// the tag (or without cgo) New returns ErrNotBuilt and Hark falls back to
// typed input in simulation.
//
// The model loads once and stays warm. Transcriptions run one at a time on
// one goroutine that owns the whisper.cpp context. A cancelled context
// aborts a transcription through whisper.cpp's abort callback. Results
// that look like whisper's habits on noise (blank-audio markers, bracketed
// sound descriptions, captions from video subtitles, low confidence,
// repeated loops) are ErrNoSpeech.
package whisper

import (
	"context"
	"errors"
	"fmt"
	"github.com/harkbox/hark/pipeline/guard"
	"log/slog"
	"strings"
	"time"
)

// ErrNotBuilt reports a Hark built without whisper.cpp (no "whisper" build
// tag, or CGO_ENABLED=0).
var ErrNotBuilt = errors.New("whisper: this build has no speech-to-text engine (build with -tags whisper and libwhisper)")

// Options configure an Engine.
type Options struct {
	// Model is the ggml model file (ggml-tiny.en.bin, ggml-base.bin, ...).
	Model string
	// Threads for encoding and decoding; 0 uses every core.
	Threads int
	// Language is a language code ("en", "de"; see CheckLanguage), or
	// "auto" to detect it on a multilingual model; default "auto"
	// (English-only models are "en").
	Language string
	// Prompt biases recognition towards these words: command names, the
	// assistant's name, the user's vocabulary.
	Prompt string
	// FullWindow makes the encoder always process whisper's 30 s window;
	// by default the audio context is sized to the utterance.
	FullWindow bool
	// BeamSize above 1 uses beam search instead of greedy decoding.
	BeamSize int
	// FlashAttention turns on whisper.cpp's flash attention.
	FlashAttention bool
	// VADModel, when set, is a Silero VAD model used to trim silence
	// before the encoder.
	VADModel string
	// NoSpeech is the no-speech probability above which a segment is
	// dropped; default 0.6.
	NoSpeech float32
	// MinConfidence is the mean token probability below which a result is
	// taken for noise; default 0.35.
	MinConfidence float32
	// Probe, when set, loads the model somewhere an abort or a hang cannot
	// hurt (ProbeCommand.Probe: a child process) before New loads it in
	// this process.
	Probe func(ctx context.Context, model string) error
	Log   *slog.Logger
}

// Timings of one transcription.
type Timings struct {
	Encode, Decode, Total time.Duration
}

// Result is a transcription with what the guards need.
type Result struct {
	Text     string
	Language string
	Segments []Segment
	Timings  Timings
	// AudioContext is the encoder positions used: 1500 for whisper's full
	// 30 s window, fewer when sized to the utterance.
	AudioContext int
	// Speech is how much audio went to the encoder: all of it, or what
	// voice activity detection kept (zero when it found no speech).
	Speech time.Duration
}

// Segment is one piece of a transcription.
type Segment struct {
	Text       string
	NoSpeech   float32 // whisper's probability that the segment is not speech
	Confidence float32 // mean probability of its text tokens
}

// Filter applies the hallucination guards to a result and returns the text
// to use, or ErrNoSpeech (from the caller's pipeline package, passed in as
// noSpeech) when the audio held nothing to answer.
func (o Options) Filter(r Result, noSpeech error) (string, error) {
	var kept []string
	var conf, n float32
	for _, s := range r.Segments {
		text := strings.TrimSpace(s.Text)
		switch {
		case guard.Blank(text):
			continue
		case s.NoSpeech > o.noSpeech() && s.Confidence < 0.6:
			continue
		}
		kept = append(kept, text)
		conf += s.Confidence
		n++
	}
	text := strings.TrimSpace(strings.Join(kept, " "))
	switch {
	case text == "":
		return "", fmt.Errorf("whisper: %w: only silence or sound markers", noSpeech)
	case n > 0 && conf/n < o.minConfidence():
		return "", fmt.Errorf("whisper: %w: confidence %.2f too low", noSpeech, conf/n)
	case guard.Caption(text):
		return "", fmt.Errorf("whisper: %w: only a caption learned from video subtitles", noSpeech)
	case guard.Looping(text):
		return "", fmt.Errorf("whisper: %w: repeated loop", noSpeech)
	}
	return text, nil
}

func (o Options) noSpeech() float32 {
	if o.NoSpeech == 0 {
		return 0.6
	}
	return o.NoSpeech
}

func (o Options) minConfidence() float32 {
	if o.MinConfidence == 0 {
		return 0.35
	}
	return o.MinConfidence
}

// AudioContext is the encoder context for samples of 16 kHz audio: whisper
// uses 1500 positions for its 30 s window, 50 a second; a short utterance
// needs fewer. It rounds up to a multiple of 64 with a margin, and never
// exceeds the full window.
func AudioContext(samples int) int {
	n := samples*50/16000 + 64
	n = (n + 63) / 64 * 64
	return min(n, 1500)
}

// promptMax bounds the initial prompt: whisper keeps at most half its text
// context (224 tokens) of it, and a long prompt slows every decode.
const promptMax = 400

// Prompt is an initial prompt from the words recognition should favour,
// most important first: each kept once, comma-separated, within promptMax
// characters.
func Prompt(words ...string) string {
	var b strings.Builder
	seen := map[string]bool{}
	for _, w := range words {
		w = strings.Join(strings.Fields(w), " ")
		key := strings.ToLower(w)
		if w == "" || seen[key] {
			continue
		}
		if b.Len()+len(w)+2 > promptMax {
			break
		}
		seen[key] = true
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		b.WriteString(w)
	}
	if b.Len() > 0 {
		b.WriteString(".")
	}
	return b.String()
}

// features lists what whisper_print_system_info reports as built in
// ("AVX2 = 1", "NEON = 1", "OPENMP = 1"), in its order.
func features(info string) []string {
	var on []string
	for _, part := range strings.Split(info, "|") {
		// A part may start with a section name: "CPU : SSE3 = 1".
		if i := strings.LastIndex(part, ":"); i >= 0 {
			part = part[i+1:]
		}
		name, val, ok := strings.Cut(part, "=")
		if ok && strings.TrimSpace(val) == "1" {
			on = append(on, strings.TrimSpace(name))
		}
	}
	return on
}

// describe is Version's text for a whisper.cpp version and system info.
func describe(version, info string) string {
	f := features(info)
	if len(f) == 0 {
		return "whisper.cpp " + version + " (no SIMD or threading features: a generic build, slow)"
	}
	return "whisper.cpp " + version + " (" + strings.Join(f, " ") + ")"
}
