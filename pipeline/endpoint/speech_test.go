package endpoint

import (
	"bytes"
	"math"
	"os/exec"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/internal/sharedtest"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/pcm"
)

// clip reads a shared speech clip as 16 kHz mono, or skips.
func clip(t *testing.T, rel string) []float32 { return clipB(t, rel) }

func clipB(tb testing.TB, rel string) []float32 {
	return pcm.ToSpeech(sharedtest.WAV(tb, "testdata/speech/"+rel)).Samples
}

// espeak says text, as 16 kHz mono, or skips.
func espeak(t *testing.T, text string) []float32 {
	t.Helper()
	path, err := exec.LookPath("espeak-ng")
	if err != nil {
		t.Skip("espeak-ng is not installed (apt-get install espeak-ng)")
	}
	out, err := exec.Command(path, "--stdout", text).Output()
	if err != nil {
		t.Fatal(err)
	}
	b, err := pcm.ReadWAV(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	return pcm.ToSpeech(b).Samples
}

// activity is a reference for where a clip's speech is, judged offline on
// the whole clip: its 10 ms frames more than 12 dB above the clip's noise
// floor (its quietest tenth), in runs of at least 30 ms. It also returns
// that floor.
func activity(s []float32) (speech []bool, floor float64) {
	const frame = 160
	var levels []float64
	for i := 0; i+frame <= len(s); i += frame {
		levels = append(levels, Loudness(s[i:i+frame]))
	}
	sorted := slices.Clone(levels)
	slices.Sort(sorted)
	floor = sorted[len(sorted)/10]
	for _, l := range levels {
		speech = append(speech, l > floor+12)
	}
	// A click or a breath is not speech: only runs of 30 ms count.
	for i := 0; i < len(speech); {
		j := i
		for j < len(speech) && speech[j] == speech[i] {
			j++
		}
		if speech[i] && j-i < 3 {
			for k := i; k < j; k++ {
				speech[k] = false
			}
		}
		i = j
	}
	return speech, floor
}

// expectedEnd is where an endpointer that waits for silence should end: the
// first pause of at least silence after speech began, or the end of the
// last speech frame plus silence.
func expectedEnd(speech []bool, silence time.Duration) time.Duration {
	const frame = 10 * time.Millisecond
	began, last := false, -1
	for i, s := range speech {
		if s {
			if began && time.Duration(i-last-1)*frame >= silence {
				return time.Duration(last+1)*frame + silence
			}
			began, last = true, i
		}
	}
	return time.Duration(last+1)*frame + silence
}

// Endpointing on real speech, in the room tone of its own recording: the
// utterance ends within 200 ms after the configured silence has followed
// the speech, and never before (no cut inside a shorter pause).
func TestEndpointOnSpeech(t *testing.T) {
	cases := []struct {
		name    string
		audio   func(t *testing.T) []float32
		silence time.Duration
		noise   float64 // RMS of hiss added under everything, beyond the room tone
	}{
		// JFK pauses for over a second between phrases.
		{"jfk, 700 ms ends at the first pause", func(t *testing.T) []float32 { return clip(t, "jfk.wav") }, 700 * time.Millisecond, 0},
		{"jfk, 1.5 s waits through the pauses", func(t *testing.T) []float32 { return clip(t, "jfk.wav") }, 1500 * time.Millisecond, 0},
		{"librispeech stew", func(t *testing.T) []float32 { return clip(t, "librispeech-mini/1089-134686-0000.wav") }, 700 * time.Millisecond, 0},
		{"librispeech wait", func(t *testing.T) []float32 { return clip(t, "librispeech-mini/1089-134691-0001.wav") }, 700 * time.Millisecond, 0},
		{"librispeech belly", func(t *testing.T) []float32 { return clip(t, "librispeech-mini/1089-134686-0001.wav") }, 700 * time.Millisecond, 0},
		{"lamp", func(t *testing.T) []float32 {
			return clip(t, "wyoming-faster-whisper-tests/turn_on_the_living_room_lamp.wav")
		}, 700 * time.Millisecond, 0},
		{"espeak", func(t *testing.T) []float32 {
			return espeak(t, "Set a timer for ten minutes, and then remind me to call my sister.")
		}, 700 * time.Millisecond, 0},
		{"espeak in hiss", func(t *testing.T) []float32 {
			return espeak(t, "What is the weather like in Lisbon tomorrow?")
		}, 700 * time.Millisecond, 0.003}, // about -50 dBFS
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			speech := tc.audio(t)
			active, floor := activity(speech)
			want := expectedEnd(active, tc.silence)
			// The room tone of the recording goes on before and after it
			// (at least a microphone's own -66 dBFS of hiss).
			room := max(math.Pow(10, floor/20), 0.0005)
			noise := math.Hypot(room, tc.noise)
			lead := time.Second
			synctest.Test(t, func(t *testing.T) {
				tl := &timeline{audio: cat(silence(lead), speech), noise: noise}
				l := listen(t, tl, Options{Silence: tc.silence})
				time.Sleep(lead - 200*time.Millisecond) // pressed just before speaking
				pressed := time.Now()
				u, err := l.Record(t.Context(), pipeline.Listen{EndOnSilence: true, StartTimeout: 5 * time.Second})
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
				if late > 200*time.Millisecond {
					t.Errorf("ended %v after the silence had passed, want within 200 ms", late)
				}
			})
		})
	}
}
