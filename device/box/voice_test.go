package box

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/pipeline/pcm"
)

type flatVoice struct{}

func (flatVoice) Synthesize(_ context.Context, text string) (pcm.Buffer, error) {
	return pcm.Buffer{Rate: 16000, Channels: 1, Samples: make([]float32, 160*len(text))}, nil
}

func TestVoiceWAV(t *testing.T) {
	wav, err := voiceResource{flatVoice{}}.WAV(t.Context(), "Hello.", "")
	if err != nil {
		t.Fatal(err)
	}
	b, err := pcm.ReadWAV(bytes.NewReader(wav))
	if err != nil || b.Rate != 16000 || len(b.Samples) != 960 {
		t.Errorf("the WAV reads back as %d Hz, %d samples (%v)", b.Rate, len(b.Samples), err)
	}
	if _, err := (voiceResource{}).WAV(t.Context(), "Hello.", ""); !errors.Is(err, control.ErrUnavailable) {
		t.Errorf("without a voice: %v", err)
	}
}

// TestEnglishOnlyModel: a model that knows only English under another
// language is said to lose it; English, "auto" and a multilingual model
// lose nothing.
func TestEnglishOnlyModel(t *testing.T) {
	if got := englishOnly("de", false); !strings.Contains(got, `"de"`) || !strings.Contains(got, "multilingual") {
		t.Errorf("German on an English-only model: %q", got)
	}
	for _, tt := range []struct {
		lang  string
		multi bool
	}{{"en", false}, {"auto", false}, {"", false}, {"de", true}, {"fr", true}} {
		if got := englishOnly(tt.lang, tt.multi); got != "" {
			t.Errorf("%q, multilingual %v: %q, want nothing lost", tt.lang, tt.multi, got)
		}
	}
}
