package wyoming_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/wyoming"
	"github.com/harkbox/hark/pipeline/wyoming/wyomingtest"
)

func TestVoiceSpeaksASentence(t *testing.T) {
	s := wyomingtest.NewTTS(t, wyomingtest.Good)
	v := &wyoming.Voice{Addr: s.Addr, Voices: map[string]string{"de": "de_DE-thorsten-medium", "": "en_GB-alba-medium"}}
	b, err := v.Synthesize(locale.WithLanguage(context.Background(), "de-CH"), "Der Timer läuft.")
	if err != nil {
		t.Fatal(err)
	}
	if b.Rate != 22050 || b.Channels != 1 || len(b.Samples) != wyomingtest.Chunks*wyomingtest.ChunkSamples || b.Samples[10] < 0.24 || b.Samples[10] > 0.26 {
		t.Errorf("audio: rate %d, channels %d, %d samples", b.Rate, b.Channels, len(b.Samples))
	}
	if _, err := v.Synthesize(context.Background(), "Hello."); err != nil {
		t.Fatal(err)
	}
	v2 := &wyoming.Voice{Addr: s.Addr}
	v2.Synthesize(locale.WithLanguage(context.Background(), "fr"), "Bonjour.")
	got := s.Got()
	name := func(i int) map[string]any { vo, _ := got[i]["voice"].(map[string]any); return vo }
	if got[0]["text"] != "Der Timer läuft." || name(0)["name"] != "de_DE-thorsten-medium" || name(1)["name"] != "en_GB-alba-medium" || name(2)["language"] != "fr" {
		t.Errorf("the server got %v", got)
	}
}

func TestVoiceFailsCleanly(t *testing.T) {
	for how, want := range map[string]string{
		wyomingtest.Stall:   "no audio within the sentence's time",
		wyomingtest.Garbage: "malformed header",
		wyomingtest.Wide:    "width 4 bytes",
		wyomingtest.Hangup:  "wyoming: read",
	} {
		s := wyomingtest.NewTTS(t, how)
		v := &wyoming.Voice{Addr: s.Addr, Timeout: 300 * time.Millisecond}
		_, err := v.Synthesize(context.Background(), "Hello.")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", how, err, want)
		}
		if how == wyomingtest.Wide && !errors.Is(err, wyoming.ErrFormat) {
			t.Errorf("wide: %v is not ErrFormat", err)
		}
	}
	if _, err := (&wyoming.Voice{Addr: "127.0.0.1:1"}).Synthesize(context.Background(), "Hello."); err == nil {
		t.Error("no server: no error")
	}
}
