package wyoming_test

import (
	"context"
	"testing"

	"github.com/harkbox/hark/pipeline/espeak"
	"github.com/harkbox/hark/pipeline/wyoming"
	"github.com/harkbox/hark/pipeline/wyoming/wyomingtest"
)

// BenchmarkFirstAudio is a sentence's text to its audio, which the
// speaker starts on: espeak-ng on the box against a Wyoming voice on
// loopback whose server answers at once (its own synthesis not counted).
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
	b.Run("wyoming", func(b *testing.B) {
		s := wyomingtest.NewTTS(b, wyomingtest.Good)
		v := &wyoming.Voice{Addr: s.Addr}
		for b.Loop() {
			if _, err := v.Synthesize(context.Background(), sentence); err != nil {
				b.Fatal(err)
			}
		}
	})
}
