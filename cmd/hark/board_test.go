//go:build alsa && cgo && linux

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/pipeline/pcm"
)

// pacedMic feeds a FIFO that alsa-lib's file plugin reads as its capture
// input: 20 ms of audio every 20 ms, the way a sound card delivers it, room
// tone until speech is asked for.
type pacedMic struct {
	f      *os.File
	speech chan []float32
	done   chan struct{}
}

func newPacedMic(t *testing.T, path string) *pacedMic {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0) // read-write: opening does not wait for the reader
	if err != nil {
		t.Fatal(err)
	}
	m := &pacedMic{f: f, speech: make(chan []float32, 1), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	go m.run(ctx)
	t.Cleanup(func() { cancel(); <-m.done; f.Close() })
	return m
}

func (m *pacedMic) run(ctx context.Context) {
	defer close(m.done)
	const chunk = 320 // 20 ms at 16 kHz mono
	var queue []float32
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case s := <-m.speech:
			queue = append(queue, s...)
		case <-tick.C:
			out := make([]float32, chunk)
			n := copy(out, queue)
			queue = queue[n:]
			for i := range out {
				out[i] += float32((i*7919)%13-6) / 32768 // faint hiss
			}
			m.f.Write(pcm.Encode(nil, out, pcm.S16LE))
		}
	}
}

// The hardware path end to end on a machine without hardware: the usb
// board profile, a microphone and a speaker through alsa-lib's file plugin,
// speech recognition on a Wyoming server, and the offline calculator.
func TestUSBBoardTurnThroughALSA(t *testing.T) {
	needEspeak(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "speaker.raw")
	mic := newPacedMic(t, filepath.Join(dir, "mic.fifo"))
	conf := filepath.Join(dir, "asound.conf")
	os.WriteFile(conf, []byte(`pcm.null { type null }
pcm.test_mic { type file; slave.pcm "null"; file "/dev/null"; infile "`+filepath.Join(dir, "mic.fifo")+`"; format "raw" }
pcm.test_speaker { type file; slave.pcm "null"; file "`+out+`"; format "raw" }
`), 0o644)
	t.Setenv("ALSA_CONFIG_PATH", conf)

	wav, err := exec.Command("espeak-ng", "--stdout", "what is twelve times four").Output()
	if err != nil {
		t.Fatal(err)
	}
	said, err := pcm.ReadWAV(bytes.NewReader(wav))
	if err != nil {
		t.Fatal(err)
	}
	addr, sent := wyomingServer(t, " What's 12 times 4?")
	cfg := writeConfig(t, `board = "usb"
[audio]
capture = "test_mic"
playback = "test_speaker"
earcons = false
[whisper]
remote = "`+addr+`"
`)
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": dir}), "--data", filepath.Join(dir, "data"), "--config", cfg)
	s.out.waitFor(t, "press Enter instead", 1)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "") // the press
	s.out.waitFor(t, "[leds] ● listening", 1)
	mic.speech <- pcm.ToSpeech(said).Samples
	s.out.waitFor(t, "you:  What's 12 times 4?", 1)
	s.out.waitFor(t, "48", 1)
	s.out.waitFor(t, "[leds] ○ idle", 2)
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	// The server got the utterance: the speech (espeak-ng's output less
	// the silence it starts and ends with) and a margin around it, ended
	// by the silence after it, not by the 15 s cap.
	got := time.Duration(<-sent/2) * time.Second / 16000
	if speech := said.Duration(); got < speech-500*time.Millisecond || got > speech+2*time.Second {
		t.Errorf("the utterance sent was %v long; the speech is %v", got, speech)
	}
	// The answer went out through alsa-lib to the speaker file, at the
	// board's 48 kHz stereo.
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	played, _ := pcm.Decode(nil, data, pcm.S16LE)
	b := pcm.Buffer{Rate: 48000, Channels: 2, Samples: played}
	if b.Duration() < 500*time.Millisecond || !loud(b) {
		t.Errorf("the speaker got %v of audio, loud %v", b.Duration(), loud(b))
	}
}

// The smoke test on this machine: the microphone and the speaker through
// alsa-lib's file plugin; no GPIO here, so the button and LEDs are skipped.
func TestSmoketest(t *testing.T) {
	dir := t.TempDir()
	jfk := pcm.ToSpeech(sharedtest.WAV(t, "testdata/speech/jfk.wav"))
	speech := filepath.Join(dir, "speech.raw")
	os.WriteFile(speech, pcm.Encode(nil, jfk.Samples, pcm.S16LE), 0o644)
	silent := filepath.Join(dir, "silent.raw")
	os.WriteFile(silent, make([]byte, 2*16000*4), 0o644)
	out := filepath.Join(dir, "speaker.raw")
	conf := filepath.Join(dir, "asound.conf")
	os.WriteFile(conf, []byte(`pcm.null { type null }
pcm.speech_mic { type file; slave.pcm "null"; file "/dev/null"; infile "`+speech+`"; format "raw" }
pcm.dead_mic { type file; slave.pcm "null"; file "/dev/null"; infile "`+silent+`"; format "raw" }
pcm.test_speaker { type file; slave.pcm "null"; file "`+out+`"; format "raw" }
`), 0o644)
	t.Setenv("ALSA_CONFIG_PATH", conf)
	getenv := vars(map[string]string{"HOME": dir})

	cfg := writeConfig(t, "board = \"usb\"\n[audio]\ncapture = \"speech_mic\"\nplayback = \"test_speaker\"\n")
	code, stdout, stderr := ask(t, getenv, "smoketest", "--config", cfg, "--listen", "2s")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	for _, want := range []string{"PASS mic", "dBFS |#", "PASS speaker", "SKIP button", "SKIP leds"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	data, _ := os.ReadFile(out)
	if tone, _ := pcm.Decode(nil, data, pcm.S16LE); len(tone) != 2*48000 {
		t.Errorf("the speaker got %d samples, want a second of 48 kHz stereo", len(tone))
	}

	dead := writeConfig(t, "board = \"usb\"\n[audio]\ncapture = \"dead_mic\"\nplayback = \"test_speaker\"\n")
	code, stdout, stderr = ask(t, getenv, "smoketest", "--config", dead, "--listen", "1s", "--skip", "speaker")
	if code != 1 || !strings.Contains(stdout, "FAIL mic") || !strings.Contains(stdout, "digital silence") || !strings.Contains(stderr, "1 check(s) failed") {
		t.Errorf("a dead microphone: exit %d\n%s%s", code, stdout, stderr)
	}
}
