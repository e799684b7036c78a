//go:build whisper && cgo

package media_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/memfile"
	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/pipeline/media"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/whisper"
	"github.com/harkbox/hark/reply/center"
)

// clipWAV is the first 3 s of jfk.wav as the WAV file a node uploads.
func clipWAV(tb testing.TB) []byte {
	clip := pcm.ToSpeech(sharedtest.WAV(tb, "testdata/speech/jfk.wav"))
	clip = clip.Slice(0, pcm.FramesIn(3*time.Second, clip.Rate))
	var f memfile.File
	if err := pcm.WriteWAV(&f, clip, 16); err != nil {
		tb.Fatal(err)
	}
	return f.Bytes()
}

func whisperEngine(tb testing.TB) *whisper.Engine {
	e, err := whisper.New(whisper.Options{Model: sharedtest.Path(tb, "models/for-tests-ggml-tiny.en.bin"), Threads: runtime.NumCPU()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

// TestCenterTranscribesWithWhisper: a node's recording reaches the same
// in-process whisper.cpp engine the box uses, through the center. The
// test model has tiny's shape without trained weights, so the text is not
// checked, only that the real path ran and answered.
func TestCenterTranscribesWithWhisper(t *testing.T) {
	c, _, _ := centerWith(t, center.Media{Transcriber: media.Transcriber{Engine: whisperEngine(t)}})
	if _, _, err := c.Transcribe(t.Context(), clipWAV(t), ""); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkCenterTranscribe is a 3 s clip transcribed on the center with
// the shared tiny model, as a node asks for it: multipart upload over
// loopback, WAV read, whisper.cpp, answer.
func BenchmarkCenterTranscribe(b *testing.B) {
	c, _, _ := centerWith(b, center.Media{Transcriber: media.Transcriber{Engine: whisperEngine(b)}})
	wav := clipWAV(b)
	var total time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		if _, _, err := c.Transcribe(b.Context(), wav, ""); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		n++
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(n), "ms/transcription")
}
