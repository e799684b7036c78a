package main

import (
	"bufio"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/wyoming"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// piper is a Wyoming text-to-speech server in process, speaking the real
// framing: a steady tone for every sentence; with stall set, it answers
// nothing.
type piper struct {
	addr  string
	mu    sync.Mutex
	texts []string
	stall bool
}

func newPiper(t *testing.T) *piper {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	p := &piper{addr: l.Addr().String()}
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go p.serve(c)
		}
	}()
	return p
}

func (p *piper) serve(c net.Conn) {
	defer c.Close()
	e, err := wyoming.Read(bufio.NewReader(c))
	if err != nil || e.Type != "synthesize" {
		return
	}
	text, _ := e.Data["text"].(string)
	p.mu.Lock()
	p.texts = append(p.texts, text)
	stall := p.stall
	p.mu.Unlock()
	if stall {
		time.Sleep(30 * time.Second)
		return
	}
	format := map[string]any{"rate": 22050, "width": 2, "channels": 1}
	tone := make([]float32, 22050/2)
	for i := range tone {
		tone[i] = 0.3
		if i%50 < 25 {
			tone[i] = -0.3
		}
	}
	w := bufio.NewWriter(c)
	wyoming.Write(w, wyoming.Event{Type: "audio-start", Data: format})
	wyoming.Write(w, wyoming.Event{Type: "audio-chunk", Data: format, Payload: pcm.Encode(nil, tone, pcm.S16LE)})
	wyoming.Write(w, wyoming.Event{Type: "audio-stop"})
	w.Flush()
}

// TestTurnSpokenByAWyomingVoice: a whole simulated turn whose reply the
// Wyoming voice speaks, sentence by sentence; with the voice stalled,
// espeak-ng says the reply instead, and the box is never silent.
func TestTurnSpokenByAWyomingVoice(t *testing.T) {
	needEspeak(t)
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "It is Paris. Have a nice day."}, ollamatest.Reply{Content: "Still Paris."})
	p := newPiper(t)
	dir := t.TempDir()
	cfg := writeConfig(t, fmt.Sprintf("[sim]\nrealtime = false\n[tts]\nwyoming = \"tcp://%s\"\ndeadline = \"1s\"\n", p.addr))
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": dir}), "--sim", "--data", dir, "--config", cfg)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "")
	s.out.waitFor(t, "[leds] ● listening", 1)
	s.typeLine(t, "what is the capital of France")
	s.out.waitFor(t, "hark: Have a nice day.", 1)
	s.out.waitFor(t, "[leds] ○ idle", 2)
	p.mu.Lock()
	texts := strings.Join(p.texts, "|")
	p.stall = true
	p.mu.Unlock()
	if texts != "It is Paris.|Have a nice day." {
		t.Errorf("the voice was asked for %q", texts)
	}
	files := replies(t, dir)
	if len(files) != 1 || !loud(files[0]) || files[0].Duration() < 900*time.Millisecond {
		t.Fatalf("reply files %d: want one with both sentences spoken", len(files))
	}

	// the voice stalls: espeak-ng speaks, after the deadline
	s.typeLine(t, "")
	s.out.waitFor(t, "[leds] ● listening", 2)
	s.typeLine(t, "and now")
	s.out.waitFor(t, "hark: Still Paris.", 1)
	s.out.waitFor(t, "[leds] ○ idle", 3)
	if files := replies(t, dir); len(files) != 2 || !loud(files[1]) {
		t.Errorf("with the voice stalled: %d reply files, want the fallback's speech", len(files))
	}
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
