package wyoming_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/wyoming"
)

// The transcripts in testdata are byte streams the reference Python
// library (wyoming 1.9.0, the release wyoming-piper 2.4.0 requires) wrote
// with testdata/transcripts.py: the events a client sends and those a
// server shaped like wyoming-piper answers.

func transcript(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func events(t *testing.T, b []byte) []wyoming.Event {
	t.Helper()
	var out []wyoming.Event
	r := bufio.NewReader(bytes.NewReader(b))
	for {
		e, err := wyoming.Read(r)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%v after %d events", err, len(out))
		}
		out = append(out, e)
	}
}

// replay is a server that answers each event Hark sends with a recorded
// transcript, and keeps what Hark sent.
type replay struct {
	addr    string
	answers map[string][]byte // by the type of the event answered
	mu      sync.Mutex
	sent    bytes.Buffer
}

func newReplay(t *testing.T, answers map[string][]byte) *replay {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	r := &replay{addr: l.Addr().String(), answers: answers}
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		var tee bytes.Buffer
		in := bufio.NewReader(io.TeeReader(c, &tee))
		for {
			e, err := wyoming.Read(in)
			r.mu.Lock()
			r.sent.Write(tee.Bytes())
			r.mu.Unlock()
			tee.Reset()
			if err != nil {
				return
			}
			if a, ok := r.answers[e.Type]; ok {
				c.Write(a)
			}
		}
	}()
	return r
}

func (r *replay) got(t *testing.T) []wyoming.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return events(t, r.sent.Bytes())
}

func sameEvents(t *testing.T, what string, got, want []wyoming.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d events, want %d: %+v", what, len(got), len(want), got)
	}
	for i := range got {
		if got[i].Type != want[i].Type || !reflect.DeepEqual(got[i].Data, want[i].Data) || !bytes.Equal(got[i].Payload, want[i].Payload) {
			t.Errorf("%s: event %d is %s %v, the reference library's %s %v", what, i, got[i].Type, got[i].Data, want[i].Type, want[i].Data)
		}
	}
}

// TestSynthesizeAsTheReferenceLibrary: against a server that describes
// itself without streaming, Hark sends describe, then synthesize with the
// voice's name, event for event as the reference library does, and
// plays the audio it answers.
func TestSynthesizeAsTheReferenceLibrary(t *testing.T) {
	r := newReplay(t, map[string][]byte{"describe": transcript(t, "server_info_nostream.wyo"), "synthesize": transcript(t, "server_audio.wyo")})
	v := &wyoming.Voice{Addr: r.addr, Voices: map[string]string{"de": "de_DE-thorsten-medium"}}
	b, err := v.Synthesize(locale.WithLanguage(context.Background(), "de"), "Der Timer läuft.")
	if err != nil {
		t.Fatal(err)
	}
	want := append(events(t, transcript(t, "client_describe.wyo")), events(t, transcript(t, "client_synthesize.wyo"))...)
	sameEvents(t, "synthesize", r.got(t), want)
	if b.Rate != 22050 || len(b.Samples) != 8 || b.Samples[0] != 8000.0/32768 || b.Samples[5] != -4000.0/32768 {
		t.Errorf("audio: %d Hz, samples %v", b.Rate, b.Samples)
	}
}

// TestStreamAsTheReferenceLibrary: against a server whose info says it
// streams, Hark picks the English voice from the info and sends
// synthesize-start, -chunk and -stop as the reference library does; the
// server's two sentences of audio arrive chunk by chunk until
// synthesize-stopped.
func TestStreamAsTheReferenceLibrary(t *testing.T) {
	r := newReplay(t, map[string][]byte{"describe": transcript(t, "server_info.wyo"), "synthesize-stop": transcript(t, "server_stream.wyo")})
	v := &wyoming.Voice{Addr: r.addr}
	var pieces []int
	err := v.Stream(locale.WithLanguage(context.Background(), "en"), "It is ten past four.", func(b pcm.Buffer) error {
		pieces = append(pieces, len(b.Samples))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := append(events(t, transcript(t, "client_describe.wyo")), events(t, transcript(t, "client_stream.wyo"))...)
	sameEvents(t, "stream", r.got(t), want)
	if !reflect.DeepEqual(pieces, []int{4, 4, 2, 2}) {
		t.Errorf("audio pieces %v, want the four chunks as they came", pieces)
	}
	info, _ := v.Info(context.Background())
	if !info.Streaming || len(info.Voices) != 5 || info.Voices[0].Name != "de_DE-thorsten-medium" || info.Voices[0].Languages[0] != "de_DE" {
		t.Errorf("info read as %+v", info)
	}
}

// TestServerErrorAsTheReferenceLibrary: wyoming-piper's error event, text
// and code, becomes a ServerError carrying both.
func TestServerErrorAsTheReferenceLibrary(t *testing.T) {
	r := newReplay(t, map[string][]byte{"describe": transcript(t, "server_info_nostream.wyo"), "synthesize": transcript(t, "server_error.wyo")})
	_, err := (&wyoming.Voice{Addr: r.addr}).Synthesize(context.Background(), "Hello.")
	var se *wyoming.ServerError
	if !errors.As(err, &se) || se.Code != "ValueError" || se.Text != "Unable to find voice: xx_XX" {
		t.Errorf("error %v", err)
	}
}

// TestHeaderVersion: Hark's header names the protocol release it speaks.
func TestHeaderVersion(t *testing.T) {
	var b bytes.Buffer
	wyoming.Write(&b, wyoming.Event{Type: "describe"})
	if line, _, _ := strings.Cut(b.String(), "\n"); line != `{"type":"describe","version":"1.7.0"}` {
		t.Errorf("header %s", line)
	}
}
