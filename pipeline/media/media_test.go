package media_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/memfile"
	"github.com/harkbox/hark/pipeline/espeak"
	"github.com/harkbox/hark/pipeline/media"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/center"
	"github.com/harkbox/hark/storage"
)

var (
	_ center.Transcriber = media.Transcriber{}
	_ center.Voice       = media.Voice{}
	_ media.Center       = (*center.Client)(nil)
)

// centerWith is a running center with m's media, and one enrolled node's
// client, the center's URL and the node's credential.
func centerWith(t testing.TB, m center.Media) (*center.Client, string, string) {
	t.Helper()
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	keys := center.NewKeys(db.Settings())
	srv, err := center.NewServer(center.Options{Keys: keys, Media: m,
		Engine: func(center.Conversation) (*reply.Engine, error) { return nil, errors.New("no replies here") }})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	cred, err := keys.Add(t.Context(), "kitchen")
	if err != nil {
		t.Fatal(err)
	}
	c, err := center.NewClient(center.ClientOptions{URL: hs.URL, Credential: cred, Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	return c, hs.URL, cred
}

// TestVoiceThroughTheCenter: the box's own espeak-ng speaks for a node,
// through the center's /media/tts/speak, as a WAV file of speech.
func TestVoiceThroughTheCenter(t *testing.T) {
	e, err := espeak.New(espeak.Options{})
	if err != nil {
		t.Skipf("espeak-ng is not installed (%v): test skipped", err)
	}
	v := media.Voice{Synth: e, Rate: 16000}
	var raw bytes.Buffer
	rate, ch, err := v.Speak(t.Context(), "The kettle has boiled.", &raw)
	if err != nil || rate != 16000 || ch != 1 {
		t.Fatalf("speak: %d Hz %d ch, %v", rate, ch, err)
	}
	samples, _ := pcm.Decode(nil, raw.Bytes(), pcm.S16LE)
	b := pcm.Buffer{Rate: rate, Channels: 1, Samples: samples}
	if d := b.Duration(); d < 500*time.Millisecond || d > 5*time.Second || level(b) < 0.01 {
		t.Errorf("the spoken sentence: %v long, level %.3f", d, level(b))
	}
	_, url, cred := centerWith(t, center.Media{Voice: v})
	req, _ := http.NewRequest("POST", url+center.PathSpeak, strings.NewReader(`{"text": "The kettle has boiled."}`))
	req.Header.Set("X-API-Key", cred)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	w, err := pcm.ReadWAV(bytes.NewReader(body))
	if resp.StatusCode != 200 || err != nil || w.Rate != 16000 || w.Frames() != b.Frames() {
		t.Errorf("/media/tts/speak: %d, %v, %d Hz, %d frames; want the %d frames spoken", resp.StatusCode, err, w.Rate, w.Frames(), b.Frames())
	}
}

// wavBytes is a WAV file of n silent 16 kHz samples.
func wavBytes(t testing.TB, n int) []byte {
	var f memfile.File
	if err := pcm.WriteWAV(&f, pcm.Buffer{Rate: 16000, Channels: 1, Samples: make([]float32, n)}, 16); err != nil {
		t.Fatal(err)
	}
	return f.Bytes()
}

// level is the RMS of b.
func level(b pcm.Buffer) float64 {
	var sum float64
	for _, s := range b.Samples {
		sum += float64(s) * float64(s)
	}
	return math.Sqrt(sum / float64(max(1, len(b.Samples))))
}

// heard is an engine that hears how long the utterance was.
type heard struct{ got voice.Utterance }

func (h *heard) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	h.got = u
	if u.Audio.Duration() < time.Second {
		return voice.Transcript{}, voice.ErrNoSpeech
	}
	return voice.Transcript{Text: "set a timer", Language: "en"}, nil
}

// TestRemoteTranscription: a node without speech-to-text sends its
// utterance to the center, which reads the WAV file and hands the same
// 16 kHz samples to its engine; silence comes back as no speech.
func TestRemoteTranscription(t *testing.T) {
	engine := &heard{}
	c, _, _ := centerWith(t, center.Media{Transcriber: media.Transcriber{Engine: engine}})
	remote := media.Remote{Center: c}
	// 1.5 s at 48 kHz stereo, as a microphone might give it.
	u := voice.Utterance{Audio: pcm.Buffer{Rate: 48000, Channels: 2, Samples: make([]float32, 2*72000)}}
	for i := range u.Audio.Samples {
		u.Audio.Samples[i] = float32(0.3 * math.Sin(float64(i/2)*2*math.Pi*440/48000))
	}
	got, err := remote.Transcribe(t.Context(), u)
	if err != nil || got.Text != "set a timer" || got.Language != "en" {
		t.Fatalf("got %+v, %v", got, err)
	}
	if a := engine.got.Audio; a.Rate != 16000 || a.Channels != 1 || a.Frames() != 24000 {
		t.Errorf("the engine got %d Hz %d ch %d frames, want 16 kHz mono 24000", a.Rate, a.Channels, a.Frames())
	}
	short := voice.Utterance{Audio: pcm.Buffer{Rate: 16000, Channels: 1, Samples: make([]float32, 8000)}}
	if _, err := remote.Transcribe(t.Context(), short); !errors.Is(err, voice.ErrNoSpeech) {
		t.Errorf("silence: %v, want ErrNoSpeech", err)
	}
	long := media.Transcriber{Engine: engine, MaxAudio: time.Second}
	if _, _, err := long.Transcribe(t.Context(), wavBytes(t, 32000), ""); !errors.Is(err, media.ErrTooLong) {
		t.Errorf("a recording over the bound: %v", err)
	}
}
