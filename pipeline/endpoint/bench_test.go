package endpoint_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/endpoint/endpointtest"
	"github.com/harkbox/hark/pipeline/voice"
)

// BenchmarkSpeechEndToUtteranceEnd is, in tap mode with 700 ms of silence,
// how long after the speech ends (by the offline reference) the endpointer
// ends the utterance, in audio time, over the shared clips and espeak-ng
// speech. The wall-clock delay adds one capture period (20 ms) at most:
// the decision is taken on the frame that completes the silence.
func BenchmarkSpeechEndToUtteranceEnd(b *testing.B) {
	clips := map[string][]float32{}
	for _, rel := range []string{"librispeech-mini/1089-134686-0000.wav", "librispeech-mini/1089-134691-0001.wav",
		"librispeech-mini/1089-134686-0001.wav", "wyoming-faster-whisper-tests/turn_on_the_living_room_lamp.wav"} {
		clips[rel] = endpointtest.Clip(b, speechClip, rel)
	}
	const quiet = 700 * time.Millisecond
	var lag time.Duration
	var n int
	for b.Loop() {
		for _, speech := range clips {
			active, floor := endpointtest.Activity(speech)
			want := endpointtest.ExpectedEnd(active, quiet) - quiet // where the speech ends
			// In the room tone of its own recording, as in the tests.
			audio := withRoom(endpointtest.Cat(endpointtest.Silence(time.Second), speech, endpointtest.Silence(3*time.Second)), max(math.Pow(10, floor/20), 0.0005))
			det := &endpoint.Energy{}
			ep := &endpoint.Endpointer{Silence: quiet}
			frame := det.FrameSize()
			for i := 0; i+frame <= len(audio); i += frame {
				if ep.Push(det.Speech(audio[i:i+frame]), 20*time.Millisecond) == endpoint.Ended {
					end := time.Duration(i+frame) * time.Second / 16000
					lag += end - time.Second - want
					n++
					break
				}
			}
		}
	}
	b.ReportMetric(float64(lag.Milliseconds())/float64(n), "ms-speech-end-to-utterance-end")
	b.ReportMetric(float64((lag/time.Duration(n) - quiet).Milliseconds()), "ms-beyond-the-silence")
}

// withRoom adds hiss of RMS level to audio.
func withRoom(audio []float32, level float64) []float32 {
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range audio {
		audio[i] += float32(rng.NormFloat64() * level)
	}
	return audio
}

// stamped is a capture that delivers 20 ms every 20 ms of wall time and
// says when each piece was captured.
type stamped struct{ at chan time.Time }

func (s stamped) Open() (endpoint.Stream, error) { return s, nil }

func (s stamped) Read(ctx context.Context, p []float32) (int, error) {
	select {
	case <-ctx.Done():
		return 0, ctx.Err()
	case <-time.After(20 * time.Millisecond):
	}
	n := min(len(p), 320)
	clear(p[:n])
	select {
	case s.at <- time.Now():
	default:
	}
	return n, nil
}

func (stamped) Close() error { return nil }

// BenchmarkPressToCapture is the time from the press (Record) to the
// first audio captured after it, which goes to the recording: the capture
// is always running (and the pre-roll is already in hand), so it is what
// is left of the current 20 ms period, 10 ms on average.
func BenchmarkPressToCapture(b *testing.B) {
	src := stamped{at: make(chan time.Time, 1)}
	l := endpoint.New(endpoint.Options{Source: src})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go l.Run(ctx)
	time.Sleep(100 * time.Millisecond)
	var total time.Duration
	for b.Loop() {
		end := make(chan struct{})
		done := make(chan struct{})
		// A press comes at any moment of a capture period.
		time.Sleep(time.Duration(rand.IntN(20_000)) * time.Microsecond)
		select { // forget the pieces captured before the press
		case <-src.at:
		default:
		}
		start := time.Now()
		go func() {
			l.Record(ctx, voice.Listen{End: end})
			close(done)
		}()
		first := <-src.at
		for first.Before(start) {
			first = <-src.at
		}
		total += first.Sub(start)
		close(end)
		<-done
	}
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-press-to-first-live-audio")
}

// BenchmarkEnergy is the CPU the energy detector (voice-band filters and
// floor) and the endpointer take while the box listens: the percentage of
// one core per second of audio, 20 ms at a time. BenchmarkSileroVAD in
// pipeline/whisper is its Silero counterpart.
func BenchmarkEnergy(b *testing.B) {
	audio := endpointtest.Clip(b, speechClip, "jfk.wav")
	for b.Loop() {
		det, ep := &endpoint.Energy{}, &endpoint.Endpointer{MaxLength: time.Hour}
		for i := 0; i+det.FrameSize() <= len(audio); i += det.FrameSize() {
			ep.Push(det.Speech(audio[i:i+det.FrameSize()]), 20*time.Millisecond)
		}
	}
	seconds := float64(len(audio)) / 16000
	b.ReportMetric(100*b.Elapsed().Seconds()/(seconds*float64(b.N)), "%-of-a-core")
}
