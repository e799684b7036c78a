package wyoming

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// ttsServer is a Wyoming text-to-speech server in process, speaking the
// real framing; how answers how it answers a synthesize event.
type ttsServer struct {
	addr string
	mu   sync.Mutex
	got  []map[string]any // the synthesize events' data
}

func newTTSServer(t testing.TB, how string) *ttsServer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	s := &ttsServer{addr: l.Addr().String()}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go s.serve(c, how)
		}
	}()
	return s
}

func (s *ttsServer) serve(c net.Conn, how string) {
	defer c.Close()
	e, err := Read(bufio.NewReader(c))
	if err != nil || e.Type != "synthesize" {
		return
	}
	s.mu.Lock()
	s.got = append(s.got, e.Data)
	s.mu.Unlock()
	format := map[string]any{"rate": 22050, "width": 2, "channels": 1}
	tone := make([]float32, 2205) // 100 ms
	for i := range tone {
		tone[i] = 0.25
	}
	w := bufio.NewWriter(c)
	defer w.Flush()
	switch how {
	case "stall":
		time.Sleep(time.Minute)
	case "garbage":
		w.WriteString("this is not JSON\n")
	case "wide":
		Write(w, Event{Type: "audio-start", Data: map[string]any{"rate": 22050, "width": 4, "channels": 1}})
	case "hangup":
		Write(w, Event{Type: "audio-start", Data: format})
		Write(w, Event{Type: "audio-chunk", Data: format, Payload: pcm.Encode(nil, tone, pcm.S16LE)})
	default:
		Write(w, Event{Type: "audio-start", Data: format})
		for range 3 {
			Write(w, Event{Type: "audio-chunk", Data: format, Payload: pcm.Encode(nil, tone, pcm.S16LE)})
		}
		Write(w, Event{Type: "audio-stop"})
	}
}

func TestVoiceSpeaksASentence(t *testing.T) {
	s := newTTSServer(t, "good")
	v := &Voice{Addr: s.addr, Voices: map[string]string{"de": "de_DE-thorsten-medium", "": "en_GB-alba-medium"}}
	b, err := v.Synthesize(voice.WithLanguage(context.Background(), "de-CH"), "Der Timer läuft.")
	if err != nil {
		t.Fatal(err)
	}
	if b.Rate != 22050 || b.Channels != 1 || len(b.Samples) != 3*2205 || b.Samples[10] < 0.24 || b.Samples[10] > 0.26 {
		t.Errorf("audio: rate %d, channels %d, %d samples", b.Rate, b.Channels, len(b.Samples))
	}
	if _, err := v.Synthesize(context.Background(), "Hello."); err != nil {
		t.Fatal(err)
	}
	v2 := &Voice{Addr: s.addr}
	v2.Synthesize(voice.WithLanguage(context.Background(), "fr"), "Bonjour.")
	s.mu.Lock()
	defer s.mu.Unlock()
	name := func(i int) map[string]any { vo, _ := s.got[i]["voice"].(map[string]any); return vo }
	if s.got[0]["text"] != "Der Timer läuft." || name(0)["name"] != "de_DE-thorsten-medium" || name(1)["name"] != "en_GB-alba-medium" || name(2)["language"] != "fr" {
		t.Errorf("the server got %v", s.got)
	}
}

func TestVoiceFailsCleanly(t *testing.T) {
	for how, want := range map[string]string{
		"stall":   "no audio within the sentence's time",
		"garbage": "malformed header",
		"wide":    "width 4 bytes",
		"hangup":  "wyoming: read",
	} {
		s := newTTSServer(t, how)
		v := &Voice{Addr: s.addr, Timeout: 300 * time.Millisecond}
		_, err := v.Synthesize(context.Background(), "Hello.")
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", how, err, want)
		}
		if how == "wide" && !errors.Is(err, ErrFormat) {
			t.Errorf("wide: %v is not ErrFormat", err)
		}
	}
	if _, err := (&Voice{Addr: "127.0.0.1:1"}).Synthesize(context.Background(), "Hello."); err == nil {
		t.Error("no server: no error")
	}
}
