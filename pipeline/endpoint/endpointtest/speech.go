package endpointtest

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/voice"
)

// OnSpeech is endpointing on real speech, in the room tone of its own
// recording, with the detector det makes (nil: the energy detector): the
// utterance ends within lateBy after the configured silence has followed
// the speech (as the energy in the recording places it), and never before
// (no cut inside a shorter pause).
func OnSpeech(t *testing.T, read Clips, det func() endpoint.Detector, lateBy time.Duration) {
	cases := []struct {
		name    string
		audio   func(t *testing.T) []float32
		silence time.Duration
		noise   float64 // RMS of hiss added under everything, beyond the room tone
	}{
		// JFK pauses for over a second between phrases.
		{"jfk, 700 ms ends at the first pause", func(t *testing.T) []float32 { return Clip(t, read, "jfk.wav") }, 700 * time.Millisecond, 0},
		{"jfk, 1.5 s waits through the pauses", func(t *testing.T) []float32 { return Clip(t, read, "jfk.wav") }, 1500 * time.Millisecond, 0},
		{"librispeech stew", func(t *testing.T) []float32 {
			return Clip(t, read, "librispeech-mini/1089-134686-0000.wav")
		}, 700 * time.Millisecond, 0},
		{"librispeech wait", func(t *testing.T) []float32 {
			return Clip(t, read, "librispeech-mini/1089-134691-0001.wav")
		}, 700 * time.Millisecond, 0},
		{"librispeech belly", func(t *testing.T) []float32 {
			return Clip(t, read, "librispeech-mini/1089-134686-0001.wav")
		}, 700 * time.Millisecond, 0},
		{"lamp", func(t *testing.T) []float32 {
			return Clip(t, read, "wyoming-faster-whisper-tests/turn_on_the_living_room_lamp.wav")
		}, 700 * time.Millisecond, 0},
		{"espeak", func(t *testing.T) []float32 {
			return Espeak(t, "", "Set a timer for ten minutes, and then remind me to call my sister.")
		}, 700 * time.Millisecond, 0},
		{"espeak in hiss", func(t *testing.T) []float32 {
			return Espeak(t, "", "What is the weather like in Lisbon tomorrow?")
		}, 700 * time.Millisecond, 0.003}, // about -50 dBFS
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			speech := tc.audio(t)
			active, floor := Activity(speech)
			want := ExpectedEnd(active, tc.silence)
			// The room tone of the recording goes on before and after it
			// (at least a microphone's own -66 dBFS of hiss).
			room := max(math.Pow(10, floor/20), 0.0005)
			noise := math.Hypot(room, tc.noise)
			lead := time.Second
			synctest.Test(t, func(t *testing.T) {
				tl := &Timeline{Audio: Cat(Silence(lead), speech), Noise: noise}
				o := endpoint.Options{Silence: tc.silence}
				if det != nil {
					o.Detector = det()
				}
				l := Listen(t, tl, o)
				time.Sleep(lead - 200*time.Millisecond) // pressed just before speaking
				pressed := time.Now()
				u, err := l.Record(t.Context(), voice.Listen{EndOnSilence: true, StartTimeout: 5 * time.Second})
				if err != nil {
					t.Fatal(err)
				}
				late := time.Since(pressed.Add(200*time.Millisecond + want))
				t.Logf("room %.0f dBFS; expected end %v into the clip; ended %v after it; kept %v",
					20*math.Log10(noise), want.Round(10*time.Millisecond), late, u.Audio.Duration().Round(10*time.Millisecond))
				// Frames of 20 ms online against 10 ms offline: a few tens of
				// milliseconds either way is the same end.
				if late < -50*time.Millisecond {
					t.Errorf("ended %v before the silence had passed: an early cut", -late)
				}
				if late > lateBy {
					t.Errorf("ended %v after the silence had passed, want within %v", late, lateBy)
				}
			})
		})
	}
}
