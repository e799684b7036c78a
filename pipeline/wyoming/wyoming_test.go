package wyoming

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"math"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/pipeline/guard"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

func TestEventRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	in := Event{Type: "audio-chunk", Data: map[string]any{"rate": 16000.0, "width": 2.0}, Payload: []byte{1, 2, 3, 4}}
	if err := Write(&buf, in); err != nil {
		t.Fatal(err)
	}
	line, _, _ := bufio.NewReader(bytes.NewReader(buf.Bytes())).ReadLine()
	if !strings.Contains(string(line), `"data_length":`) || !strings.Contains(string(line), `"payload_length":4`) {
		t.Errorf("header %s", line)
	}
	out, err := Read(bufio.NewReader(&buf))
	if err != nil {
		t.Fatal(err)
	}
	if out.Type != in.Type || out.Data["rate"] != 16000.0 || !bytes.Equal(out.Payload, in.Payload) {
		t.Errorf("read %+v", out)
	}
	// Older peers put the data inline in the header.
	out, err = Read(bufio.NewReader(strings.NewReader(`{"type":"transcript","data":{"text":"hi"}}` + "\n")))
	if err != nil || out.Data["text"] != "hi" {
		t.Errorf("inline data: %+v %v", out, err)
	}
	for _, bad := range []string{"not json\n", `{"type":""}` + "\n", `{"type":"x","payload_length":5}` + "\nab", `{"type":"x","data_length":99999999}` + "\n"} {
		if _, err := Read(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("Read(%q) accepted it", bad)
		}
	}
}

// server is a Wyoming speech-to-text peer for the tests: it checks the
// event sequence and answers with the transcript for the audio it got.
type server struct {
	ln     net.Listener
	got    chan []byte
	answer func(audio []byte) []Event
}

func newServer(t *testing.T, answer func(audio []byte) []Event) *server {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{ln: ln, got: make(chan []byte, 4), answer: answer}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go s.serve(t, conn)
		}
	}()
	return s
}

func (s *server) serve(t *testing.T, conn net.Conn) {
	defer conn.Close()
	r := bufio.NewReader(conn)
	var audio []byte
	var seq []string
	for {
		e, err := Read(r)
		if err != nil {
			return
		}
		seq = append(seq, e.Type)
		switch e.Type {
		case "audio-chunk":
			if e.Data["rate"] != 16000.0 || e.Data["width"] != 2.0 || e.Data["channels"] != 1.0 {
				t.Errorf("chunk format %v", e.Data)
			}
			audio = append(audio, e.Payload...)
		case "audio-stop":
			if seq[0] != "transcribe" || seq[1] != "audio-start" {
				t.Errorf("event order %v", seq)
			}
			s.got <- audio
			for _, ev := range s.answer(audio) {
				Write(conn, ev)
			}
			return
		}
	}
}

func clip(t *testing.T) pcm.Buffer {
	return sharedtest.WAV(t, "testdata/speech/wyoming-faster-whisper-tests/turn_on_the_living_room_lamp.wav")
}

func TestTranscribeSendsTheAudio(t *testing.T) {
	speech := clip(t) // 44.1 kHz stereo: converted before sending
	s := newServer(t, func(audio []byte) []Event {
		return []Event{{Type: "transcript-start"}, {Type: "transcript", Data: map[string]any{"text": " turn on the living room lamp ", "language": "en"}}}
	})
	c := &Client{Addr: s.ln.Addr().String(), Language: "en"}
	tr, err := c.Transcribe(t.Context(), voice.Utterance{Audio: speech})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Text != "turn on the living room lamp" || tr.Language != "en" {
		t.Errorf("transcript %+v", tr)
	}
	sent := <-s.got
	want := pcm.ToSpeech(speech)
	if len(sent) != 2*want.Frames() {
		t.Fatalf("sent %d bytes, want %d (16 kHz mono S16_LE)", len(sent), 2*want.Frames())
	}
	got, _ := pcm.Decode(nil, sent, pcm.S16LE)
	for i := 0; i < len(got); i += 997 {
		if math.Abs(float64(got[i]-want.Samples[i])) > 1.0/16000 {
			t.Fatalf("sample %d: sent %v, want %v", i, got[i], want.Samples[i])
		}
	}
}

func TestGuard(t *testing.T) {
	speech := pcm.Buffer{Rate: 16000, Channels: 1, Samples: make([]float32, 16000)}
	s := newServer(t, func([]byte) []Event {
		return []Event{{Type: "transcript", Data: map[string]any{"text": "[BLANK_AUDIO]"}}}
	})
	// The client hands on what the server said; the guard, wrapped around
	// it as around any engine, keeps the marker from the reply.
	c := &Client{Addr: s.ln.Addr().String()}
	if tr, err := c.Transcribe(t.Context(), voice.Utterance{Audio: speech}); err != nil || tr.Text != "[BLANK_AUDIO]" {
		t.Errorf("client: %+v, %v", tr, err)
	}
	if _, err := (guard.Transcriber{Engine: c}).Transcribe(t.Context(), voice.Utterance{Audio: speech}); !errors.Is(err, voice.ErrNoSpeech) {
		t.Errorf("a blank-audio marker passed the guard: %v", err)
	}
}

func TestTranscribeErrors(t *testing.T) {
	speech := pcm.Buffer{Rate: 16000, Channels: 1, Samples: make([]float32, 16000)}
	for name, answer := range map[string][]Event{
		"empty":        {{Type: "transcript", Data: map[string]any{"text": "  "}}},
		"server error": {{Type: "error", Data: map[string]any{"text": "model not loaded", "code": "ModelError"}}},
		"hang up":      nil,
	} {
		s := newServer(t, func([]byte) []Event { return answer })
		_, err := (&Client{Addr: s.ln.Addr().String()}).Transcribe(t.Context(), voice.Utterance{Audio: speech})
		switch name {
		case "empty":
			if !errors.Is(err, voice.ErrNoSpeech) {
				t.Errorf("%s: %v", name, err)
			}
		case "server error":
			if err == nil || !strings.Contains(err.Error(), "model not loaded (code ModelError)") {
				t.Errorf("%s: %v", name, err)
			}
		default:
			if err == nil {
				t.Errorf("%s: no error", name)
			}
		}
	}
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	if _, err := (&Client{Addr: addr}).Transcribe(t.Context(), voice.Utterance{Audio: speech}); err == nil {
		t.Error("no error from a dead server")
	}
}

func TestTranscribeCancel(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	s := newServer(t, func([]byte) []Event { <-release; return nil })
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := (&Client{Addr: s.ln.Addr().String()}).Transcribe(ctx, voice.Utterance{Audio: pcm.Buffer{Rate: 16000, Channels: 1, Samples: make([]float32, 1600)}})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("err %v after %v", err, time.Since(start))
	}
}
