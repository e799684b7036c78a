package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/wyoming/wyomingtest"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// TestTurnSpokenByAWyomingVoice: a whole simulated turn whose reply the
// Wyoming voice speaks, sentence by sentence; with the voice stalled,
// espeak-ng says the reply instead, and the box is never silent.
func TestTurnSpokenByAWyomingVoice(t *testing.T) {
	needEspeak(t)
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "It is Paris. Have a nice day."}, ollamatest.Reply{Content: "Still Paris."})
	p := wyomingtest.NewTTS(t, wyomingtest.Good)
	dir := t.TempDir()
	cfg := writeConfig(t, fmt.Sprintf("[sim]\nrealtime = false\n[tts]\nwyoming = \"tcp://%s\"\ndeadline = \"1s\"\n", p.Addr))
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": dir}), "--sim", "--data", dir, "--config", cfg)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "")
	s.out.waitFor(t, "[leds] ● listening", 1)
	s.typeLine(t, "what is the capital of France")
	s.out.waitFor(t, "hark: Have a nice day.", 1)
	s.out.waitFor(t, "[leds] ○ idle", 2)
	texts := strings.Join(p.Texts(), "|")
	p.Answer(wyomingtest.Stall)
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
