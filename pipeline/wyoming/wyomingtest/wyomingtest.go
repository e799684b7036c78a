// Package wyomingtest is a Wyoming text-to-speech server in process,
// speaking the real framing (a JSON header line, then the optional data
// and payload), for the tests of the Wyoming voice and of whole turns
// spoken by it.
package wyomingtest

import (
	"bufio"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/wyoming"
)

// How the server answers a synthesize event.
const (
	// Good sends Chunks chunks of a square-wave tone, then audio-stop.
	Good = "good"
	// Stall answers nothing until the test ends.
	Stall = "stall"
	// Garbage sends a line that is not an event.
	Garbage = "garbage"
	// Wide announces 32-bit samples, which Hark does not play.
	Wide = "wide"
	// Hangup sends one chunk and closes the connection mid-sentence.
	Hangup = "hangup"
)

// The audio Good sends: Chunks chunks of ChunkSamples samples at Rate, a
// square wave of amplitude Level whose first half-period is positive.
const (
	Rate         = 22050
	ChunkSamples = 2205 // 100 ms
	Chunks       = 5
	Level        = 0.25
)

// TTS is a running server.
type TTS struct {
	Addr string
	done chan struct{}

	mu  sync.Mutex
	how string
	got []map[string]any
}

// NewTTS starts a server answering as how; it stops when the test ends.
func NewTTS(t testing.TB, how string) *TTS {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &TTS{Addr: l.Addr().String(), done: make(chan struct{}), how: how}
	t.Cleanup(func() { close(s.done); l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go s.serve(c)
		}
	}()
	return s
}

// Answer changes how the server answers the next sentences.
func (s *TTS) Answer(how string) {
	s.mu.Lock()
	s.how = how
	s.mu.Unlock()
}

// Got returns the data of the synthesize events received so far.
func (s *TTS) Got() []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]map[string]any(nil), s.got...)
}

// Texts returns the sentences asked for so far.
func (s *TTS) Texts() []string {
	var out []string
	for _, d := range s.Got() {
		text, _ := d["text"].(string)
		out = append(out, text)
	}
	return out
}

func (s *TTS) serve(c net.Conn) {
	defer c.Close()
	e, err := wyoming.Read(bufio.NewReader(c))
	if err != nil || e.Type != "synthesize" {
		return
	}
	s.mu.Lock()
	s.got = append(s.got, e.Data)
	how := s.how
	s.mu.Unlock()
	format := map[string]any{"rate": Rate, "width": 2, "channels": 1}
	tone := make([]float32, ChunkSamples)
	for i := range tone {
		tone[i] = Level
		if i%50 >= 25 {
			tone[i] = -Level
		}
	}
	chunk := wyoming.Event{Type: "audio-chunk", Data: format, Payload: pcm.Encode(nil, tone, pcm.S16LE)}
	w := bufio.NewWriter(c)
	defer w.Flush()
	switch how {
	case Stall:
		select {
		case <-s.done:
		case <-time.After(time.Minute):
		}
	case Garbage:
		w.WriteString("this is not JSON\n")
	case Wide:
		wyoming.Write(w, wyoming.Event{Type: "audio-start", Data: map[string]any{"rate": Rate, "width": 4, "channels": 1}})
	case Hangup:
		wyoming.Write(w, wyoming.Event{Type: "audio-start", Data: format})
		wyoming.Write(w, chunk)
	default:
		wyoming.Write(w, wyoming.Event{Type: "audio-start", Data: format})
		for range Chunks {
			wyoming.Write(w, chunk)
		}
		wyoming.Write(w, wyoming.Event{Type: "audio-stop"})
	}
}
