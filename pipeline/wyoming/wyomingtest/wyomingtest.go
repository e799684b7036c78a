// Package wyomingtest is a Wyoming text-to-speech server in process,
// speaking the real framing (a JSON header line, then the optional data
// and payload) and answering as wyoming-piper does: describe with an info
// event listing its voices, a connection kept for many sentences, audio
// in chunks, streamed synthesis when it says it supports it. It serves the
// tests of the Wyoming voice and of whole turns spoken by it.
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

// How the server answers a sentence.
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
	// Refuse sends an error event with a code, as wyoming-piper does when
	// synthesis raises.
	Refuse = "refuse"
)

// The audio Good sends: Chunks chunks of ChunkSamples samples at Rate, a
// square wave of amplitude Level whose first half-period is positive.
const (
	Rate         = 22050
	ChunkSamples = 2205 // 100 ms
	Chunks       = 5
	Level        = 0.25
)

// Options shape a server beyond how it answers.
type Options struct {
	// Voices are the voices its info lists; nil lists none (the server
	// then takes any voice name, as older servers do).
	Voices []wyoming.VoiceInfo
	// Streaming makes the info say the server takes streamed text, and
	// the server answer it.
	Streaming bool
	// FirstChunk delays the first audio of each sentence, Gap each next
	// chunk: a slow server.
	FirstChunk, Gap time.Duration
	// OneShot closes the connection after each sentence, as servers that
	// serve one request per connection do.
	OneShot bool
}

// TTS is a running server.
type TTS struct {
	Addr string
	o    Options
	done chan struct{}

	mu        sync.Mutex
	how       string
	got       []map[string]any
	describes int
	conns     int
}

// NewTTS starts a server answering as how, listing no voices and not
// streaming; it stops when the test ends.
func NewTTS(t testing.TB, how string) *TTS { return New(t, how, Options{}) }

// New starts a server answering as how, shaped by o; it stops when the
// test ends.
func New(t testing.TB, how string, o Options) *TTS {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &TTS{Addr: l.Addr().String(), o: o, done: make(chan struct{}), how: how}
	t.Cleanup(func() { close(s.done); l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s.mu.Lock()
			s.conns++
			s.mu.Unlock()
			go s.serve(c)
		}
	}()
	return s
}

// Pace changes the delays of the next sentences' audio: before the first
// chunk and between the next.
func (s *TTS) Pace(first, gap time.Duration) {
	s.mu.Lock()
	s.o.FirstChunk, s.o.Gap = first, gap
	s.mu.Unlock()
}

// Answer changes how the server answers the next sentences.
func (s *TTS) Answer(how string) {
	s.mu.Lock()
	s.how = how
	s.mu.Unlock()
}

// Got returns the sentences asked for so far: the text and the voice, as
// the synthesize event, or the streamed events together, carried them.
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

// Describes counts the describe events received; Conns the connections.
func (s *TTS) Describes() int { s.mu.Lock(); defer s.mu.Unlock(); return s.describes }

// Conns counts the connections accepted.
func (s *TTS) Conns() int { s.mu.Lock(); defer s.mu.Unlock(); return s.conns }

func (s *TTS) info() wyoming.Event {
	var voices []any
	for _, v := range s.o.Voices {
		langs := []any{}
		for _, l := range v.Languages {
			langs = append(langs, l)
		}
		voices = append(voices, map[string]any{"name": v.Name, "languages": langs, "installed": v.Installed,
			"attribution": map[string]any{"name": "test", "url": ""}, "description": v.Name, "version": nil})
	}
	prog := map[string]any{"name": "wyomingtest", "installed": true, "voices": voices, "supports_synthesize_streaming": s.o.Streaming,
		"attribution": map[string]any{"name": "test", "url": ""}, "description": "a test voice", "version": "1"}
	return wyoming.Event{Type: "info", Data: map[string]any{"asr": []any{}, "tts": []any{prog}, "handle": []any{}, "intent": []any{}, "wake": []any{}}}
}

func (s *TTS) serve(c net.Conn) {
	defer c.Close()
	r, w := bufio.NewReader(c), bufio.NewWriter(c)
	var stream map[string]any // the sentence being streamed
	for {
		e, err := wyoming.Read(r)
		if err != nil {
			return
		}
		var ask map[string]any
		switch e.Type {
		case "describe":
			s.mu.Lock()
			s.describes++
			s.mu.Unlock()
			wyoming.Write(w, s.info())
			w.Flush()
			continue
		case "synthesize":
			if stream != nil {
				continue // sent beside a stream for older servers
			}
			ask = e.Data
		case "synthesize-start":
			if !s.o.Streaming {
				continue
			}
			stream = map[string]any{"text": ""}
			if v, ok := e.Data["voice"]; ok {
				stream["voice"] = v
			}
			continue
		case "synthesize-chunk":
			if stream != nil {
				text, _ := e.Data["text"].(string)
				stream["text"] = stream["text"].(string) + text
			}
			continue
		case "synthesize-stop":
			if stream == nil {
				continue
			}
			ask, stream = stream, nil
		default:
			continue
		}
		streamed := e.Type == "synthesize-stop"
		s.mu.Lock()
		s.got = append(s.got, ask)
		how, first, gap := s.how, s.o.FirstChunk, s.o.Gap
		s.mu.Unlock()
		if !s.answer(w, how, streamed, first, gap) || s.o.OneShot {
			return
		}
	}
}

// answer speaks one sentence; false ends the connection.
func (s *TTS) answer(w *bufio.Writer, how string, streamed bool, first, gap time.Duration) bool {
	format := map[string]any{"rate": Rate, "width": 2, "channels": 1, "timestamp": nil}
	tone := make([]float32, ChunkSamples)
	for i := range tone {
		tone[i] = Level
		if i%50 >= 25 {
			tone[i] = -Level
		}
	}
	chunk := wyoming.Event{Type: "audio-chunk", Data: format, Payload: pcm.Encode(nil, tone, pcm.S16LE)}
	defer w.Flush()
	switch how {
	case Stall:
		select {
		case <-s.done:
		case <-time.After(time.Minute):
		}
		return false
	case Garbage:
		w.WriteString("this is not JSON\n")
		return false
	case Wide:
		wyoming.Write(w, wyoming.Event{Type: "audio-start", Data: map[string]any{"rate": Rate, "width": 4, "channels": 1}})
		return true
	case Hangup:
		wyoming.Write(w, wyoming.Event{Type: "audio-start", Data: format})
		wyoming.Write(w, chunk)
		return false
	case Refuse:
		wyoming.Write(w, wyoming.Event{Type: "error", Data: map[string]any{"text": "Unable to find voice: xx_XX", "code": "ValueError"}})
		return false
	}
	wyoming.Write(w, wyoming.Event{Type: "audio-start", Data: format})
	for i := range Chunks {
		d := gap
		if i == 0 {
			d = first
		}
		if d > 0 {
			w.Flush()
			select {
			case <-time.After(d):
			case <-s.done:
				return false
			}
		}
		wyoming.Write(w, chunk)
	}
	wyoming.Write(w, wyoming.Event{Type: "audio-stop", Data: map[string]any{"timestamp": nil}})
	if streamed {
		wyoming.Write(w, wyoming.Event{Type: "synthesize-stopped"})
	}
	return true
}
