//go:build alsa && cgo && linux

package alsa

import (
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
)

func TestMicDeliversSpeechFormat(t *testing.T) {
	clip := speechClip(t)
	src := pcm.Convert(clip.Slice(0, 4*clip.Rate), 48000, 2)
	in := filepath.Join(t.TempDir(), "mic.raw")
	os.WriteFile(in, pcm.Encode(nil, src.Samples, pcm.S32LE), 0o644)
	fileDevices(t, `pcm.mems { type file; slave.pcm "null"; file "/dev/null"; infile "`+in+`"; format "raw" }`)
	m, err := OpenMic(Config{Device: "mems", Format: pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S32LE}})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	want := pcm.ToSpeech(src)
	got := make([]float32, 0, want.Frames())
	buf := make([]float32, 333) // not a multiple of anything
	for len(got) < want.Frames()-100 {
		n, err := m.Read(t.Context(), buf)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, buf[:n]...)
	}
	for i := 0; i < len(got); i += 101 {
		if math.Abs(float64(got[i]-want.Samples[i])) > 1e-5 {
			t.Fatalf("sample %d: %v, want %v", i, got[i], want.Samples[i])
		}
	}
	if m.Xruns() != 0 {
		t.Errorf("%d overruns", m.Xruns())
	}
}

func TestSpeakerPlaysAtTheVolume(t *testing.T) {
	out := filepath.Join(t.TempDir(), "speaker.raw")
	fileDevices(t, `pcm.speaker { type file; slave.pcm "null"; file "`+out+`"; format "raw" }`)
	s := NewSpeaker(Config{Device: "speaker", Format: pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S16LE}}, func() float32 { return 0.5 })
	pb, err := s.Open(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if r, c := pb.Format(); r != 48000 || c != 2 {
		t.Fatalf("format %d Hz %dch", r, c)
	}
	b := pcm.Buffer{Rate: 48000, Channels: 2, Samples: make([]float32, 9600)}
	for i := range b.Samples {
		b.Samples[i] = 0.8
	}
	if err := pb.Write(t.Context(), b); err != nil {
		t.Fatal(err)
	}
	if err := pb.Close(t.Context()); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(out)
	got, _ := pcm.Decode(nil, data, pcm.S16LE)
	if len(got) != len(b.Samples) {
		t.Fatalf("%d samples played, want %d", len(got), len(b.Samples))
	}
	for i, v := range got {
		if math.Abs(float64(v)-0.4) > 1.0/32768 {
			t.Fatalf("sample %d played at %v, want 0.4 (0.8 at half volume)", i, v)
		}
	}
}

// pulse starts a private PulseAudio server with a null sink, a real-time
// clocked output with no sound card, and defines the ALSA device "paced"
// on it. It skips when PulseAudio is not installed.
func pulse(t testing.TB) {
	t.Helper()
	bin, err := exec.LookPath("pulseaudio")
	if err != nil {
		t.Skip("pulseaudio is not installed (apt-get install pulseaudio): no paced output to test against")
	}
	dir, err := os.MkdirTemp("", "pa")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "native")
	cmd := exec.Command(bin, "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit", "--use-pid-file=no",
		"--load=module-null-sink sink_name=hark", "--load=module-native-protocol-unix auth-anonymous=1 socket="+sock)
	cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_RUNTIME_DIR="+dir, "XDG_CONFIG_HOME="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for i := 0; ; i++ {
		if _, err := os.Stat(sock); err == nil {
			break
		}
		if i == 200 {
			t.Fatal("pulseaudio did not start")
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Setenv("PULSE_SERVER", "unix:"+sock)
	fileDevices(t, `pcm.paced { type pulse }`)
	p, err := Open(Playback, Config{Device: "paced"})
	if err != nil {
		t.Skipf("alsa-lib's pulse plugin does not open here (apt-get install libasound2-plugins for this architecture): %v", err)
	}
	p.Close()
}

// A barge-in drops the queued audio instead of letting it play out.
func TestBargeInDropsQueuedAudio(t *testing.T) {
	pulse(t)
	s := NewSpeaker(Config{Device: "paced", Format: pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S16LE}}, nil)
	pb, err := s.Open(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	long := pcm.Buffer{Rate: 48000, Channels: 2, Samples: make([]float32, 2*48000*5)} // 5 s
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(500*time.Millisecond, cancel)
	start := time.Now()
	if err := pb.Write(ctx, long); !errors.Is(err, context.Canceled) {
		t.Fatalf("Write = %v, want cancelled", err)
	}
	if err := pb.Close(ctx); err != nil {
		t.Fatal(err)
	}
	// Functional, not a speed check: the 5 s clip was not played out.
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("Write and Close took %v: the audio was drained, not dropped", took)
	}
}
