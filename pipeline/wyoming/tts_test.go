package wyoming_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
	"github.com/harkbox/hark/pipeline/wyoming"
	"github.com/harkbox/hark/pipeline/wyoming/wyomingtest"
)

// piperVoices are voices as wyoming-piper lists them.
var piperVoices = []wyoming.VoiceInfo{
	{Name: "de_DE-thorsten-medium", Languages: []string{"de_DE"}, Installed: true},
	{Name: "en_GB-alba-medium", Languages: []string{"en_GB"}, Installed: true},
	{Name: "fr_FR-siwis-low", Languages: []string{"fr_FR"}, Installed: true},
	{Name: "fr_FR-siwis-medium", Languages: []string{"fr_FR"}, Installed: true},
}

func voiceOf(d map[string]any) map[string]any { v, _ := d["voice"].(map[string]any); return v }

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
	// a server that lists no voices picks its own: a language alone is
	// never sent (the reference library takes it for a voice's name)
	if _, err := v.Synthesize(locale.WithLanguage(context.Background(), "fr"), "Bonjour."); err != nil {
		t.Fatal(err)
	}
	got := s.Got()
	if got[0]["text"] != "Der Timer läuft." || voiceOf(got[0])["name"] != "de_DE-thorsten-medium" || voiceOf(got[1])["name"] != "en_GB-alba-medium" || got[2]["voice"] != nil {
		t.Errorf("the server got %v", got)
	}
	if s.Describes() != 1 || s.Conns() != 1 {
		t.Errorf("three sentences: %d describes on %d connections, want one of each", s.Describes(), s.Conns())
	}
}

// TestVoicePicksFromTheServer: a voice per language from the server's
// info; a configured voice it lacks is warned about once and replaced by
// its own for the language; a language it has no voice for is
// voice.ErrNoVoice, without the server being asked to speak.
func TestVoicePicksFromTheServer(t *testing.T) {
	s := wyomingtest.New(t, wyomingtest.Good, wyomingtest.Options{Voices: piperVoices})
	var log bytes.Buffer
	v := &wyoming.Voice{Addr: s.Addr, Voices: map[string]string{"de": "de_DE-karlsson-low"}, Log: slog.New(slog.NewTextHandler(&log, nil))}
	if err := v.Probe(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "voice=de_DE-karlsson-low") {
		t.Errorf("no warning at start about the missing voice:\n%s", log.String())
	}
	for lang, want := range map[string]string{"de": "de_DE-thorsten-medium", "fr-CA": "fr_FR-siwis-medium", "en": "en_GB-alba-medium"} {
		if _, err := v.Synthesize(locale.WithLanguage(context.Background(), lang), "Hi."); err != nil {
			t.Fatalf("%s: %v", lang, err)
		}
		got := s.Got()
		if name := voiceOf(got[len(got)-1])["name"]; name != want {
			t.Errorf("%s: voice %v, want %s", lang, name, want)
		}
	}
	asked := len(s.Got())
	if _, err := v.Synthesize(locale.WithLanguage(context.Background(), "it"), "Ciao."); !errors.Is(err, voice.ErrNoVoice) {
		t.Errorf("Italian: %v, want ErrNoVoice", err)
	}
	if len(s.Got()) != asked {
		t.Error("the server was asked for a language it has no voice for")
	}
	if n := strings.Count(log.String(), "karlsson"); n != 1 {
		t.Errorf("the missing voice was warned about %d times", n)
	}
	if s.Describes() != 1 {
		t.Errorf("%d describes on one connection", s.Describes())
	}
	// the connection drops: the next sentence connects and describes again
	s.Answer(wyomingtest.Hangup)
	v.Synthesize(context.Background(), "Hello.")
	s.Answer(wyomingtest.Good)
	if _, err := v.Synthesize(context.Background(), "Hello."); err != nil || s.Describes() != 2 {
		t.Errorf("after a hang-up: %v, %d describes", err, s.Describes())
	}
}

// TestVoiceStreams: a server whose info says it streams gets the sentence
// as synthesize-start, -chunk and -stop; the audio is handed over chunk by
// chunk, the first before the server has sent the rest.
func TestVoiceStreams(t *testing.T) {
	s := wyomingtest.New(t, wyomingtest.Good, wyomingtest.Options{Voices: piperVoices, Streaming: true, Gap: 30 * time.Millisecond})
	v := &wyoming.Voice{Addr: s.Addr}
	var chunks []time.Duration
	began := time.Now()
	err := v.Stream(locale.WithLanguage(context.Background(), "en"), "It is ten past four.", func(b pcm.Buffer) error {
		chunks = append(chunks, time.Since(began))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != wyomingtest.Chunks {
		t.Fatalf("%d pieces of audio, want %d", len(chunks), wyomingtest.Chunks)
	}
	if got := s.Got(); len(got) != 1 || got[0]["text"] != "It is ten past four." || voiceOf(got[0])["name"] != "en_GB-alba-medium" {
		t.Errorf("the server got %v", got)
	}
	if _, err := v.Synthesize(context.Background(), "Again."); err != nil {
		t.Errorf("a second streamed sentence on the connection: %v", err)
	}
}

func TestVoiceFailsCleanly(t *testing.T) {
	for how, want := range map[string]string{
		wyomingtest.Stall:   "no audio from the server within",
		wyomingtest.Garbage: "malformed header",
		wyomingtest.Wide:    "width 4 bytes",
		wyomingtest.Hangup:  "wyoming: read",
		wyomingtest.Refuse:  "Unable to find voice: xx_XX (code ValueError)",
	} {
		s := wyomingtest.NewTTS(t, how)
		var log bytes.Buffer
		v := &wyoming.Voice{Addr: s.Addr, Timeout: 300 * time.Millisecond, Log: slog.New(slog.NewTextHandler(&log, nil))}
		_, err := v.Synthesize(context.Background(), "Hello.")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", how, err, want)
		}
		if how == wyomingtest.Wide && !errors.Is(err, wyoming.ErrFormat) {
			t.Errorf("wide: %v is not ErrFormat", err)
		}
		if how == wyomingtest.Refuse && !strings.Contains(log.String(), "code=ValueError") {
			t.Errorf("the error's code is not logged:\n%s", log.String())
		}
	}
	if _, err := (&wyoming.Voice{Addr: "127.0.0.1:1"}).Synthesize(context.Background(), "Hello."); err == nil {
		t.Error("no server: no error")
	}
}

// TestVoiceReconnectsToAOneShotServer: a server that closes the
// connection after each sentence is connected to again, without a failed
// sentence.
func TestVoiceReconnectsToAOneShotServer(t *testing.T) {
	s := wyomingtest.New(t, wyomingtest.Good, wyomingtest.Options{OneShot: true})
	v := &wyoming.Voice{Addr: s.Addr}
	for i := range 3 {
		if _, err := v.Synthesize(context.Background(), "Hello."); err != nil {
			t.Fatalf("sentence %d: %v", i, err)
		}
	}
}
