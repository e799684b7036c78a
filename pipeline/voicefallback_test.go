package pipeline

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/pcm"
)

// stallSynth answers after a while, or fails, as told.
type stallSynth struct {
	after time.Duration
	err   error
	rate  int
}

func (s *stallSynth) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	select {
	case <-time.After(s.after):
	case <-ctx.Done():
		return pcm.Buffer{}, ctx.Err()
	}
	if s.err != nil {
		return pcm.Buffer{}, s.err
	}
	return pcm.Buffer{Rate: s.rate, Channels: 1, Samples: make([]float32, 10)}, nil
}

// TestVoiceFallbackIsNeverSilent: a voice that stalls past the deadline
// or fails is replaced by the fallback for that sentence, with one log
// line for the outage and one when the voice answers again.
func TestVoiceFallbackIsNeverSilent(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var log bytes.Buffer
		primary := &stallSynth{after: 10 * time.Second, rate: 22050}
		f := &VoiceFallback{Primary: primary, Backup: &stallSynth{rate: 16000}, Deadline: 2 * time.Second,
			Log: slog.New(slog.NewTextHandler(&log, nil))}
		for range 3 {
			b, err := f.Synthesize(t.Context(), "Hello.")
			if err != nil || b.Rate != 16000 {
				t.Fatalf("a stalled voice: %+v %v, want the fallback's audio", b, err)
			}
		}
		primary.after, primary.err = 0, errors.New("connection refused")
		if b, _ := f.Synthesize(t.Context(), "Hello."); b.Rate != 16000 {
			t.Errorf("a failing voice: rate %d", b.Rate)
		}
		primary.err = nil
		if b, _ := f.Synthesize(t.Context(), "Hello."); b.Rate != 22050 {
			t.Errorf("the voice back: rate %d", b.Rate)
		}
		if n := strings.Count(log.String(), "the voice failed"); n != 1 || !strings.Contains(log.String(), "the voice answers again") {
			t.Errorf("log:\n%s", log.String())
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := f.Synthesize(ctx, "Hello."); !errors.Is(err, context.Canceled) {
			t.Errorf("a barge-in: %v, want no fallback", err)
		}
	})
}

// noGerman is a voice server without a German voice.
type noGerman struct{}

func (noGerman) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	if locale.LanguageOf(ctx) == "de" {
		return pcm.Buffer{}, errors.New(`wyoming: the server says: voice "de" not found`)
	}
	return pcm.Buffer{Rate: 16000, Channels: 1, Samples: make([]float32, 10)}, nil
}

// TestVoiceFallbackPerLanguage: a voice the server lacks falls back for
// its language only, logged once however the languages alternate.
func TestVoiceFallbackPerLanguage(t *testing.T) {
	var log bytes.Buffer
	f := &VoiceFallback{Primary: noGerman{}, Backup: &stallSynth{rate: 22050}, Log: slog.New(slog.NewTextHandler(&log, nil))}
	for range 3 {
		if b, err := f.Synthesize(locale.WithLanguage(t.Context(), "de"), "Hallo."); err != nil || b.Rate != 22050 {
			t.Fatalf("German: rate %d, err %v; want the fallback", b.Rate, err)
		}
		if b, err := f.Synthesize(locale.WithLanguage(t.Context(), "en"), "Hello."); err != nil || b.Rate != 16000 {
			t.Fatalf("English: rate %d, err %v; want the voice", b.Rate, err)
		}
	}
	if n := strings.Count(log.String(), "level=WARN"); n != 1 || strings.Contains(log.String(), "msg=\"the voice answers again\"") {
		t.Errorf("want one warning and no recovery:\n%s", log.String())
	}
}
