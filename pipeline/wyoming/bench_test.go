package wyoming_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/espeak"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/wyoming"
	"github.com/harkbox/hark/pipeline/wyoming/wyomingtest"
)

// BenchmarkFirstAudio is a sentence's text to its first audio, which the
// speaker starts on: espeak-ng on the box (whole sentence) against a
// Wyoming voice on loopback whose server answers at once (its own
// synthesis not counted), asked whole and streamed.
func BenchmarkFirstAudio(b *testing.B) {
	const sentence = "It is a quarter past ten."
	b.Run("espeak-ng", func(b *testing.B) {
		e, err := espeak.New(espeak.Options{})
		if err != nil {
			b.Skip("espeak-ng is not installed")
		}
		for b.Loop() {
			if _, err := e.Synthesize(context.Background(), sentence); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, streaming := range []bool{false, true} {
		name := map[bool]string{false: "wyoming", true: "wyoming-streamed"}[streaming]
		b.Run(name, func(b *testing.B) {
			s := wyomingtest.New(b, wyomingtest.Good, wyomingtest.Options{Voices: piperVoices, Streaming: streaming})
			v := &wyoming.Voice{Addr: s.Addr}
			var first time.Duration
			for b.Loop() {
				first += toFirstAudio(b, v, sentence)
			}
			b.ReportMetric(float64(first.Microseconds())/float64(b.N), "µs-first-chunk")
		})
	}
}

// BenchmarkSlowServer is the share of sentences espeak-ng says instead of
// a slow server's voice, and the wait for the first audio, with the
// deadline on the first audio and the gap (now) and on the whole sentence
// (before). The server's first chunk comes after 50-400 ms (uniform), the
// next four 80 ms apart; the deadline is 300 ms, the gap 150 ms: time
// scaled down tenfold from a Pi-class Piper server and the 3 s default.
func BenchmarkSlowServer(b *testing.B) {
	backup, err := espeak.New(espeak.Options{})
	if err != nil {
		b.Skip("espeak-ng is not installed")
	}
	const deadline, gap = 300 * time.Millisecond, 150 * time.Millisecond
	for _, mode := range []string{"first-audio-and-gap", "whole-sentence"} {
		b.Run(mode, func(b *testing.B) {
			s := wyomingtest.New(b, wyomingtest.Good, wyomingtest.Options{Voices: piperVoices, Streaming: true})
			v := &wyoming.Voice{Addr: s.Addr}
			var primary pipeline.Synthesizer = v
			if mode == "whole-sentence" {
				primary = wholeSentence{v, deadline}
			}
			rng := rand.New(rand.NewPCG(1, 2))
			sentences := 0
			var first time.Duration
			counted := &counting{Synthesizer: backup}
			for b.Loop() {
				f := &pipeline.VoiceFallback{Primary: primary, Backup: counted, Deadline: deadline, Gap: gap, Trip: 1000}
				s.Pace(50*time.Millisecond+time.Duration(rng.Int64N(int64(350*time.Millisecond))), 80*time.Millisecond)
				first += toFirstAudio(b, f, "It is a quarter past ten.")
				sentences++
			}
			b.ReportMetric(float64(counted.n)/float64(sentences), "fallback-rate")
			b.ReportMetric(float64(first.Milliseconds())/float64(sentences), "ms-first-audio")
		})
	}
}

// wholeSentence is the voice as the fallback bounded it before: the
// deadline covers the whole sentence.
type wholeSentence struct {
	v        *wyoming.Voice
	deadline time.Duration
}

func (w wholeSentence) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	ctx, cancel := context.WithTimeout(ctx, w.deadline)
	defer cancel()
	return w.v.Synthesize(ctx, text)
}

// counting counts the sentences the backup voice says.
type counting struct {
	pipeline.Synthesizer
	n int
}

func (c *counting) Synthesize(ctx context.Context, text string) (pcm.Buffer, error) {
	c.n++
	return c.Synthesizer.Synthesize(ctx, text)
}

// toFirstAudio streams text and returns the wait for its first audio.
func toFirstAudio(b *testing.B, s pipeline.Streamer, text string) time.Duration {
	began := time.Now()
	var first time.Duration
	if err := s.Stream(context.Background(), text, func(pcm.Buffer) error {
		if first == 0 {
			first = time.Since(began)
		}
		return nil
	}); err != nil {
		b.Fatal(err)
	}
	return first
}
