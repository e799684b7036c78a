package espeak

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
)

func engine(t *testing.T, o Options) *Engine {
	t.Helper()
	e, err := New(o)
	if errors.Is(err, ErrNotInstalled) {
		t.Skip("espeak-ng is not installed (apt-get install espeak-ng)")
	}
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestSynthesizeMakesSpeech(t *testing.T) {
	e := engine(t, Options{})
	b, err := e.Synthesize(t.Context(), "The timer is set for five minutes.")
	if err != nil {
		t.Fatal(err)
	}
	if b.Rate != 22050 || b.Channels != 1 {
		t.Errorf("format %d Hz %dch, want 22050 Hz mono", b.Rate, b.Channels)
	}
	if d := b.Duration(); d < time.Second || d > 5*time.Second {
		t.Errorf("a seven-word sentence lasts %v", d)
	}
	var sum float64
	for _, v := range b.Samples {
		sum += float64(v) * float64(v)
	}
	if rms := math.Sqrt(sum / float64(len(b.Samples))); rms < 0.01 {
		t.Errorf("RMS %.4f: the audio is silent", rms)
	}
}

func TestTextIsNotReadAsOptions(t *testing.T) {
	e := engine(t, Options{})
	b, err := e.Synthesize(t.Context(), "--version -5 degrees")
	if err != nil {
		t.Fatal(err)
	}
	if b.Duration() < 500*time.Millisecond {
		t.Errorf("got %v of audio; the text was not spoken", b.Duration())
	}
}

func TestRateChangesLength(t *testing.T) {
	slow, fast := engine(t, Options{Rate: 100}), engine(t, Options{Rate: 300})
	text := "This sentence is spoken twice at different speeds."
	a, err := slow.Synthesize(t.Context(), text)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fast.Synthesize(t.Context(), text)
	if err != nil {
		t.Fatal(err)
	}
	if a.Duration() < 2*b.Duration() {
		t.Errorf("100 wpm gave %v, 300 wpm gave %v; want the slow one at least twice as long", a.Duration(), b.Duration())
	}
}

// TestSetVoiceAppliesToTheNextSentence: a voice and rate set while the
// engine runs speak the next sentence: the slower rate makes it at least
// twice as long, another voice makes other sound; zero values keep what
// is set.
func TestSetVoiceAppliesToTheNextSentence(t *testing.T) {
	e := engine(t, Options{Voice: "en", Rate: 300})
	text := "This sentence is spoken again after the settings change."
	before, err := e.Synthesize(t.Context(), text)
	if err != nil {
		t.Fatal(err)
	}
	e.SetVoice("", 100)
	slower, err := e.Synthesize(t.Context(), text)
	if err != nil {
		t.Fatal(err)
	}
	if slower.Duration() < 2*before.Duration() {
		t.Errorf("got %v at 100 wpm after SetVoice, %v at 300 before; want at least twice as long", slower.Duration(), before.Duration())
	}
	e.SetVoice("en-gb-scotland", 0)
	if v, r := e.current(); v != "en-gb-scotland" || r != 100 {
		t.Errorf("got voice %q rate %d, want en-gb-scotland at 100 (the rate kept)", v, r)
	}
	other, err := e.Synthesize(t.Context(), text)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(other.Samples, slower.Samples) {
		t.Error("the new voice sounds exactly like the old one")
	}
}

func TestBadVoiceIsAnError(t *testing.T) {
	e := engine(t, Options{Voice: "xx-nonexistent"})
	if _, err := e.Synthesize(t.Context(), "hello"); err == nil {
		t.Error("an unknown voice gave no error")
	}
}

func TestCancel(t *testing.T) {
	e := engine(t, Options{})
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := e.Synthesize(ctx, "hello"); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestMissingProgram(t *testing.T) {
	if _, err := New(Options{Program: "espeak-ng-not-here"}); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("err = %v, want ErrNotInstalled", err)
	}
}

func TestSpeaksTheHeardLanguage(t *testing.T) {
	e := engine(t, Options{Voice: "en"})
	text := "Es ist zwanzig Grad und sonnig."
	english, err := e.Synthesize(t.Context(), text)
	if err != nil {
		t.Fatal(err)
	}
	german, err := e.Synthesize(locale.WithLanguage(t.Context(), "de"), text)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(english.Samples, german.Samples) {
		t.Error("a turn heard in German was spoken in the English voice")
	}
	// espeak-ng has no voice "zz": the configured voice speaks instead.
	fallback, err := e.Synthesize(locale.WithLanguage(t.Context(), "zz"), text)
	if err != nil {
		t.Fatalf("unknown language: %v", err)
	}
	if !slices.Equal(english.Samples, fallback.Samples) {
		t.Error("an unknown language did not fall back to the configured voice")
	}
}

// A voice configured for a language that espeak-ng does not have: the
// configured voice speaks, and the missing voice is logged once.
func TestMissingVoiceLoggedOnce(t *testing.T) {
	var log strings.Builder
	e := engine(t, Options{Voice: "en", Voices: map[string]string{"fr": "xx-nonexistent"}, Log: slog.New(slog.NewTextHandler(&log, nil))})
	english, err := e.Synthesize(t.Context(), "Bonjour.")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		b, err := e.Synthesize(locale.WithLanguage(t.Context(), "fr-FR"), "Bonjour.")
		if err != nil || !slices.Equal(b.Samples, english.Samples) {
			t.Fatalf("a missing voice did not fall back to the configured one: %v", err)
		}
	}
	if n := strings.Count(log.String(), "voice=xx-nonexistent"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, log.String())
	}
	// The built-in map gives French its own voice.
	e2 := engine(t, Options{Voice: "en"})
	if v := e2.voiceFor(locale.WithLanguage(t.Context(), "fr"), "en"); v != "fr-fr" {
		t.Errorf("French voice %q, want fr-fr", v)
	}
}
