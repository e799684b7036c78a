//go:build alsa && cgo && linux

package alsa

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/pcm"
)

// BenchmarkBargeIn is the time from the press (a cancelled context) to the
// playback stopped and dropped, on a clocked output (PulseAudio's null
// sink through alsa-lib's pulse plugin) whose buffer is full. On a board
// the dmix buffer (40 ms in the boards' asound.conf) is the most that can
// still sound after it.
func BenchmarkBargeIn(b *testing.B) {
	pulse(b)
	s := NewSpeaker(Config{Device: "paced", Format: pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S16LE}}, nil)
	long := pcm.Buffer{Rate: 48000, Channels: 2, Samples: make([]float32, 2*48000*5)}
	var total time.Duration
	for b.Loop() {
		pb, err := s.Open(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := context.WithCancel(b.Context())
		var pressed time.Time
		time.AfterFunc(300*time.Millisecond, func() { pressed = time.Now(); cancel() })
		pb.Write(ctx, long)
		pb.Close(ctx)
		total += time.Since(pressed)
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-press-to-silent")
}

// BenchmarkCaptureAndVAD is the CPU a listening box spends per second of
// audio: alsa-lib capture of the INMP441's 48 kHz stereo S32_LE, the
// conversion to 16 kHz mono, and the energy detector with the endpointer,
// run as fast as the file plugin delivers. The figure is the percentage of
// one core of this machine.
func BenchmarkCaptureAndVAD(b *testing.B) {
	clip := speechClip(b)
	src := pcm.Convert(clip, 48000, 2)
	in := filepath.Join(b.TempDir(), "mic.raw")
	os.WriteFile(in, pcm.Encode(nil, src.Samples, pcm.S32LE), 0o644)
	fileDevices(b, `pcm.mems { type file; slave.pcm "null"; file "/dev/null"; infile "`+in+`"; format "raw" }`)
	audio := clip.Duration()
	var busy time.Duration
	for b.Loop() {
		m, err := OpenMic(Config{Device: "mems", Format: pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S32LE}})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		det, ep := &endpoint.Energy{}, &endpoint.Endpointer{MaxLength: time.Hour}
		buf := make([]float32, 320)
		for got := 0; got < pcm.FramesIn(audio, 16000); {
			n, err := m.Read(b.Context(), buf)
			if err != nil {
				b.Fatal(err)
			}
			if n == len(buf) {
				ep.Push(det.Speech(buf), 20*time.Millisecond)
			}
			got += n
		}
		busy += time.Since(start)
		m.Close()
	}
	b.ReportMetric(100*busy.Seconds()/(audio.Seconds()*float64(b.N)), "%-of-a-core")
}
