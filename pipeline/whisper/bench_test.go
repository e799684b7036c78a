//go:build whisper && cgo

package whisper

import (
	"context"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The figures for the speech-to-text lever. Run with make bench-whisper,
// which builds against the same whisper.cpp as whisper-cli (WHISPER_CLI).
// The test model has whisper tiny's shape without its trained weights: the
// encoder and one decode are real work, the text is not.

func threads() int { return runtime.NumCPU() }

// BenchmarkJFK compares a transcription of jfk.wav in Hark with one by
// whisper.cpp's own CLI, with the same model, threads and decoding: greedy,
// no timestamps, no temperature fallback, full 30 s window.
func BenchmarkJFK(b *testing.B) {
	model := shared(b, "models/for-tests-ggml-tiny.en.bin")
	path := shared(b, "testdata/speech/jfk.wav")
	jfk := speech(b, "testdata/speech/jfk.wav").Samples
	for _, fa := range []bool{false, true} {
		name := map[bool]string{false: "", true: "-flash"}[fa]
		b.Run("hark"+name, func(b *testing.B) {
			e := engine(b, Options{Model: model, Threads: threads(), FullWindow: true, FlashAttention: fa})
			var full, enc time.Duration
			for b.Loop() {
				r, err := e.Run(b.Context(), jfk)
				if err != nil {
					b.Fatal(err)
				}
				full += r.Timings.Total
				enc += r.Timings.Encode
			}
			b.ReportMetric(float64(full.Microseconds())/1000/float64(b.N), "ms/whisper_full")
			b.ReportMetric(float64(enc.Microseconds())/1000/float64(b.N), "ms/encode")
		})
		b.Run("whisper-cli"+name, func(b *testing.B) {
			cli := os.Getenv("WHISPER_CLI")
			if cli == "" {
				b.Skip("WHISPER_CLI is not set: no whisper-cli to compare with (make bench-whisper sets it)")
			}
			args := []string{"-m", model, "-f", path, "-t", strconv.Itoa(threads()), "-bs", "1", "-bo", "1", "-nf", "-nt", "-sns", "-l", "en"}
			if !fa {
				args = append(args, "-nfa")
			}
			// After loading, the CLI also sets up its state and warms up on
			// its one transcription, which Hark does once at start.
			var after, enc time.Duration
			for b.Loop() {
				out, err := exec.Command(cli, args...).CombinedOutput()
				if err != nil {
					b.Fatalf("%s: %v\n%s", cli, err, out)
				}
				after += cliTime(b, string(out), "total") - cliTime(b, string(out), "load")
				enc += cliTime(b, string(out), "encode")
			}
			b.ReportMetric(float64(after.Microseconds())/1000/float64(b.N), "ms/whisper_full")
			b.ReportMetric(float64(enc.Microseconds())/1000/float64(b.N), "ms/encode")
		})
	}
}

// cliTime reads one of whisper_print_timings' lines: "total time = 123.45 ms".
func cliTime(b *testing.B, out, what string) time.Duration {
	m := regexp.MustCompile(what + ` time =\s+([0-9.]+) ms`).FindStringSubmatch(out)
	if m == nil {
		b.Fatalf("no %s time in whisper-cli's output:\n%s", what, out)
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return time.Duration(v * float64(time.Millisecond))
}

// BenchmarkEncoder3s is the encoder on a 3 s utterance with the audio
// context sized to it and with whisper's full 30 s window.
func BenchmarkEncoder3s(b *testing.B) {
	model := shared(b, "models/for-tests-ggml-tiny.en.bin")
	clip := speech(b, "testdata/speech/jfk.wav").Samples[:3*16000]
	for _, c := range []struct {
		name string
		o    Options
	}{
		{"sized", Options{}},
		{"full", Options{FullWindow: true}},
		{"sized-flash", Options{FlashAttention: true}},
		{"full-flash", Options{FullWindow: true, FlashAttention: true}},
	} {
		b.Run(c.name, func(b *testing.B) {
			c.o.Model, c.o.Threads = model, threads()
			e := engine(b, c.o)
			var enc time.Duration
			for b.Loop() {
				r, err := e.Run(b.Context(), clip)
				if err != nil {
					b.Fatal(err)
				}
				enc += r.Timings.Encode
			}
			b.ReportMetric(float64(enc.Microseconds())/1000/float64(b.N), "ms/encode")
		})
	}
}

// BenchmarkVAD is a 3 s utterance inside 10 s of recording (the user
// paused before and after), with and without trimming by the VAD model.
func BenchmarkVAD(b *testing.B) {
	model := shared(b, "models/for-tests-ggml-tiny.en.bin")
	vad := shared(b, "models/ggml-silero-v6.2.0.bin")
	clip := speech(b, "testdata/speech/jfk.wav").Samples[:3*16000]
	padded := append(append(make([]float32, 4*16000), clip...), make([]float32, 3*16000)...)
	for _, c := range []struct {
		name string
		vad  string
	}{{"none", ""}, {"silero", vad}} {
		b.Run(c.name, func(b *testing.B) {
			e := engine(b, Options{Model: model, Threads: threads(), VADModel: c.vad})
			var enc time.Duration
			for b.Loop() {
				r, err := e.Run(b.Context(), padded)
				if err != nil {
					b.Fatal(err)
				}
				enc += r.Timings.Encode
			}
			b.ReportMetric(float64(enc.Microseconds())/1000/float64(b.N), "ms/encode")
		})
	}
}

// BenchmarkLoad is loading the model, and the memory it takes once loaded
// and used.
func BenchmarkLoad(b *testing.B) {
	model := shared(b, "models/for-tests-ggml-tiny.en.bin")
	clip := speech(b, "testdata/speech/jfk.wav").Samples[:3*16000]
	before := rss(b)
	var load time.Duration
	var after int64
	for b.Loop() {
		e, err := New(Options{Model: model, Threads: threads()})
		if err != nil {
			b.Fatal(err)
		}
		load += e.LoadTime()
		if _, err := e.Run(b.Context(), clip); err != nil {
			b.Fatal(err)
		}
		after = max(after, rss(b))
		e.Close()
	}
	b.ReportMetric(float64(load.Microseconds())/1000/float64(b.N), "ms/load")
	b.ReportMetric(float64(after)/(1<<20), "MiB-RSS")
	b.ReportMetric(float64(after-before)/(1<<20), "MiB-model")
}

// BenchmarkAbort cancels a transcription a third of the way into its
// encoder pass: how long Run takes to return after the cancel, and how long
// until whisper.cpp has stopped and the engine takes the next request.
func BenchmarkAbort(b *testing.B) {
	for _, full := range []bool{false, true} {
		name := map[bool]string{false: "sized", true: "full"}[full]
		b.Run(name, func(b *testing.B) {
			e := engine(b, Options{Threads: threads(), FullWindow: full})
			jfk := speech(b, "testdata/speech/jfk.wav").Samples
			base, err := e.Run(b.Context(), jfk)
			if err != nil {
				b.Fatal(err)
			}
			var returned, free time.Duration
			for b.Loop() {
				ctx, cancel := context.WithCancel(b.Context())
				at := base.Timings.Encode / 3
				time.AfterFunc(at, cancel)
				start := time.Now()
				if _, err := e.Run(ctx, jfk); err == nil {
					b.Fatal("not aborted")
				}
				returned += time.Since(start) - at
				// An empty request: it runs once whisper.cpp has stopped.
				if _, err := e.Run(b.Context(), nil); err != nil {
					b.Fatal(err)
				}
				free += time.Since(start) - at
			}
			b.ReportMetric(float64(returned.Microseconds())/1000/float64(b.N), "ms-to-return")
			b.ReportMetric(float64(free.Microseconds())/1000/float64(b.N), "ms-to-free")
			b.ReportMetric(float64(base.Timings.Encode.Microseconds())/1000, "ms/encode")
		})
	}
}

// rss is the process's resident memory, from /proc.
func rss(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	b.Skip("no VmRSS in /proc/self/status")
	return 0
}

// BenchmarkSileroVAD is the CPU the Silero model takes as the endpoint
// detector while the box listens: the percentage of one core per second of
// audio, one 32 ms window at a time.
func BenchmarkSileroVAD(b *testing.B) {
	v, err := NewVAD(shared(b, "models/ggml-silero-v6.2.0.bin"), 1)
	if err != nil {
		b.Fatal(err)
	}
	defer v.Close()
	audio := speech(b, "testdata/speech/jfk.wav").Samples
	for b.Loop() {
		v.Reset()
		for i := 0; i+v.FrameSize() <= len(audio); i += v.FrameSize() {
			v.Speech(audio[i : i+v.FrameSize()])
		}
	}
	seconds := float64(len(audio)) / 16000
	b.ReportMetric(100*b.Elapsed().Seconds()/(seconds*float64(b.N)), "%-of-a-core")
}
