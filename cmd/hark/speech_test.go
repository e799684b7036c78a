package main

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/pipeline/whisper"
	"github.com/harkbox/hark/pipeline/wyoming"
)

// sharedFile is a file in ../shared beside the repository, or a skip.
func sharedFile(t *testing.T, rel string) string { return sharedtest.Path(t, rel) }

// wyomingServer answers every transcription with text and reports how many
// bytes of audio it was sent.
func wyomingServer(t *testing.T, text string) (addr string, got <-chan int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	sizes := make(chan int, 8)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				r, n := bufio.NewReader(conn), 0
				for {
					e, err := wyoming.Read(r)
					if err != nil {
						return
					}
					n += len(e.Payload)
					if e.Type == "audio-stop" {
						sizes <- n
						wyoming.Write(conn, wyoming.Event{Type: "transcript", Data: map[string]any{"text": text, "language": "en"}})
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), sizes
}

// A box with a Wyoming server configured sends the microphone's audio there
// and answers what it heard.
func TestRemoteSpeechToText(t *testing.T) {
	needEspeak(t)
	clip := sharedFile(t, "testdata/speech/wyoming-faster-whisper-tests/turn_on_the_living_room_lamp.wav")
	addr, sent := wyomingServer(t, " What's 12 times 4?")
	dir := t.TempDir()
	cfg := writeConfig(t, "[sim]\nrealtime = false\n[whisper]\nremote = \""+addr+"\"\n")
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": dir}), "--sim", "--data", dir, "--config", cfg, "--mic-wav", clip)
	s.out.waitFor(t, "speech-to-text: Wyoming server "+addr, 1)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "") // the press: the file is "spoken"
	s.out.waitFor(t, "you:  What's 12 times 4?", 1)
	s.out.waitFor(t, "48", 1)
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	b, err := readSpeech(clip)
	if err != nil {
		t.Fatal(err)
	}
	if n, want := <-sent, 2*b.Frames(); n != want {
		t.Errorf("the server got %d bytes of audio, want the clip's %d as 16 kHz mono S16", n, want)
	}
}

// A model that cannot be used is reported, and typed and offline commands
// still work.
func TestBadSpeechModelKeepsTypedInput(t *testing.T) {
	needEspeak(t)
	dir := t.TempDir()
	missing := filepath.Join(dir, "ggml-base.en.bin")
	cfg := writeConfig(t, "[sim]\nrealtime = false\n[whisper]\nmodel = \""+missing+"\"\n")
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": dir}), "--sim", "--data", dir, "--config", cfg)
	if whisper.Built() {
		s.out.waitFor(t, "speech-to-text is off: whisper: model file "+missing+" does not exist", 1)
	} else {
		s.out.waitFor(t, "this build has no whisper.cpp", 1)
	}
	s.out.waitFor(t, "type what you would say", 1)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "what's 12 times 4")
	s.out.waitFor(t, "48", 1)
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestTranscribeCommand(t *testing.T) {
	getenv := vars(map[string]string{"HOME": t.TempDir()})
	code, _, errOut := ask(t, getenv, "transcribe")
	if code != 2 {
		t.Errorf("no file: exit %d, %q", code, errOut)
	}
	bad := filepath.Join(t.TempDir(), "noise.wav")
	os.WriteFile(bad, []byte("RIFF\x10\x00\x00\x00WAVEjunkjunkjunk"), 0o644)
	code, _, errOut = ask(t, getenv, "transcribe", "--model", "x.bin", bad)
	if code != 1 || !strings.Contains(errOut, bad+": ") {
		t.Errorf("a corrupt WAV: exit %d, %q", code, errOut)
	}
	jfk := sharedFile(t, "testdata/speech/jfk.wav")
	if !whisper.Built() {
		code, _, errOut = ask(t, getenv, "transcribe", jfk)
		if code != 1 || !strings.Contains(errOut, "-tags whisper") {
			t.Errorf("without whisper.cpp: exit %d, %q", code, errOut)
		}
		return
	}
	model := sharedFile(t, "models/for-tests-ggml-tiny.en.bin")
	code, out, errOut := ask(t, getenv, "transcribe", "--model", model, "--threads", "2", jfk)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"\ntext:", "\nlanguage: en\n", "\naudio:    11.0 s\n", "\nload:", "\nencode:", "(audio context 640 of 1500)", "\ndecode:", "\ntotal:"} {
		if !strings.Contains("\n"+out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, _, errOut = ask(t, getenv, "transcribe", "--model", jfk, jfk)
	if code != 1 || !strings.Contains(errOut, "not a whisper.cpp ggml model") {
		t.Errorf("a WAV as the model: exit %d, %q", code, errOut)
	}
}

// A model with one corrupted header byte (a crash loop on a board, where
// whisper.cpp aborted at start) is refused with the reason, and the box
// keeps working with typed and offline commands.
func TestCorruptSpeechModelKeepsTheBoxWorking(t *testing.T) {
	if !whisper.Built() {
		t.Skip("built without whisper.cpp (-tags whisper)")
	}
	needEspeak(t)
	data, err := os.ReadFile(sharedFile(t, "models/for-tests-ggml-tiny.en.bin"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bad := filepath.Join(dir, "ggml-tiny.en.bin")
	data[12] ^= 0x7f // n_audio_state
	os.WriteFile(bad, data, 0o644)
	cfg := writeConfig(t, "[sim]\nrealtime = false\n[whisper]\nmodel = \""+bad+"\"\n")
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": dir}), "--sim", "--data", dir, "--config", cfg)
	s.out.waitFor(t, "speech-to-text is off: whisper: model "+bad+" is corrupt", 1)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "what's 12 times 4")
	s.out.waitFor(t, "48", 1)
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
