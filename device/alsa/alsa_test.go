//go:build alsa && cgo && linux

package alsa

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/pipeline/pcm"
)

// fileDevices points alsa-lib at a configuration that defines the test's
// devices (alsa-lib's file plugin over the null device, so no sound
// hardware is needed) and returns the directory the files live in.
func fileDevices(t testing.TB, defs string) string {
	t.Helper()
	dir := t.TempDir()
	conf := filepath.Join(dir, "asound.conf")
	if err := os.WriteFile(conf, []byte("pcm.null { type null }\n"+defs), 0o644); err != nil {
		t.Fatal(err)
	}
	// Only this file: the system's configuration may name plugins that
	// are not installed for this architecture (under qemu).
	t.Setenv("ALSA_CONFIG_PATH", conf)
	return dir
}

// speechClip is the JFK clip, or a skip.
func speechClip(t testing.TB) pcm.Buffer { return sharedtest.WAV(t, "testdata/speech/jfk.wav") }

// readAll captures until n samples have come.
func readAll(t testing.TB, p *PCM, n int) []float32 {
	t.Helper()
	buf := make([]float32, 4096)
	var got []float32
	for len(got) < n {
		k, err := p.Read(t.Context(), buf)
		if err != nil {
			t.Fatalf("read after %d samples: %v", len(got), err)
		}
		got = append(got, buf[:k]...)
	}
	return got[:n]
}

// The INMP441 case: the hardware only gives 48 kHz stereo S32_LE, and the
// pipeline gets 16 kHz mono from it.
func TestCaptureMEMSFormatThroughFilePlugin(t *testing.T) {
	clip := speechClip(t)
	src := pcm.Convert(clip, 48000, 2)
	dir := t.TempDir()
	in := filepath.Join(dir, "mic.raw")
	os.WriteFile(in, pcm.Encode(nil, src.Samples, pcm.S32LE), 0o644)
	fileDevices(t, `pcm.mems { type file; slave.pcm "null"; file "/dev/null"; infile "`+in+`"; format "raw" }`)

	p, err := Open(Capture, Config{Device: "mems", Format: pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S32LE}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	if got := p.Format(); got != (pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S32LE}) {
		t.Fatalf("granted %v", got)
	}
	raw := readAll(t, p, len(src.Samples))
	// Exactly the samples of the file, to S32 precision.
	for i := 0; i < len(raw); i += 997 {
		if math.Abs(float64(raw[i]-src.Samples[i])) > 1e-6 {
			t.Fatalf("sample %d: captured %v, file has %v", i, raw[i], src.Samples[i])
		}
	}
	conv := pcm.NewConverter(p.Format(), pcm.SpeechRate, pcm.SpeechChannels)
	var speech []float32
	for i := 0; i < len(raw); i += 2 * p.Period() {
		speech = append(speech, conv.Process(raw[i:min(i+2*p.Period(), len(raw))])...)
	}
	want := pcm.ToSpeech(src)
	if len(speech) < want.Frames()-64 {
		t.Fatalf("converted %d samples, want about %d", len(speech), want.Frames())
	}
	for i := 0; i < len(speech); i += 991 {
		if math.Abs(float64(speech[i]-want.Samples[i])) > 1e-5 {
			t.Fatalf("16 kHz sample %d: %v, want %v", i, speech[i], want.Samples[i])
		}
	}
}

func TestPlaybackToFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "speaker.raw")
	fileDevices(t, `pcm.speaker { type file; slave.pcm "null"; file "`+out+`"; format "raw" }`)
	p, err := Open(Playback, Config{Device: "speaker", Format: pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S16LE}})
	if err != nil {
		t.Fatal(err)
	}
	tone := make([]float32, 2*48000)
	for i := range tone {
		tone[i] = float32(0.5 * math.Sin(2*math.Pi*440*float64(i/2)/48000))
	}
	if err := p.Write(t.Context(), tone); err != nil {
		t.Fatal(err)
	}
	if err := p.Drain(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pcm.Decode(nil, data, pcm.S16LE)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(tone) {
		t.Fatalf("the file holds %d samples, wrote %d", len(got), len(tone))
	}
	for i := range got {
		if math.Abs(float64(got[i]-tone[i])) > 1.0/32768 {
			t.Fatalf("sample %d: %v in the file, wrote %v", i, got[i], tone[i])
		}
	}
}

func TestCancelledWriteDrops(t *testing.T) {
	fileDevices(t, `pcm.speaker { type file; slave.pcm "null"; file "/dev/null"; format "raw" }`)
	p, err := Open(Playback, Config{Device: "speaker", Format: pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S16LE}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := p.Write(ctx, make([]float32, 4800)); !errors.Is(err, context.Canceled) {
		t.Errorf("Write with a cancelled context = %v", err)
	}
}

func TestOpenErrorsNameTheDevice(t *testing.T) {
	fileDevices(t, "")
	_, err := Open(Capture, Config{Device: "no_such_device"})
	if err == nil || !strings.Contains(err.Error(), `capture "no_such_device"`) {
		t.Errorf("err = %v", err)
	}
	_, err = Open(Playback, Config{Device: "null", Format: pcm.Format{Rate: 1, Channels: 2, Encoding: pcm.S16LE}})
	if err == nil || !strings.Contains(err.Error(), "sample rate") {
		t.Errorf("bad format: %v", err)
	}
}

// The boards' asound.conf files parse, and define what Hark opens.
func TestBoardConfigs(t *testing.T) {
	for _, board := range []string{"respeaker-2mic", "generic-i2s"} {
		path := filepath.Join("..", "..", "buildroot", "board", board, "asound.conf")
		if err := CheckConfig(path, "hark_capture", "hark_playback", "default"); err != nil {
			t.Errorf("%s: %v", board, err)
		}
	}
	broken := filepath.Join(t.TempDir(), "asound.conf")
	os.WriteFile(broken, []byte("pcm.hark_capture { type plug; slave.pcm \"x\"\n"), 0o644)
	if err := CheckConfig(broken, "hark_capture"); err == nil {
		t.Error("an unclosed brace parsed")
	}
	good := filepath.Join(t.TempDir(), "asound.conf")
	os.WriteFile(good, []byte("pcm.hark_capture { type plug; slave.pcm \"x\" }\n"), 0o644)
	if err := CheckConfig(good, "hark_capture", "hark_playback"); err == nil || !strings.Contains(err.Error(), `"hark_playback"`) {
		t.Errorf("a missing PCM: %v", err)
	}
}
