// Package endpoint decides when the user has finished speaking. It holds
// the voice activity detectors (an energy detector that follows the room's
// noise floor, and any Detector such as whisper.cpp's Silero model), the
// Endpointer that turns per-frame speech scores into "speech began" and
// "the utterance is over", and the Listener: the pipeline's Microphone
// over a live capture stream, with a pre-roll, a length cap, and the
// silence around speech trimmed before transcription.
package endpoint

import (
	"math"
	"slices"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
)

// Detector scores audio for speech.
type Detector interface {
	// FrameSize is the number of 16 kHz samples Speech takes.
	FrameSize() int
	// Speech returns how likely the frame is speech, from 0 to 1. Frames
	// come in order; Reset starts a new stream.
	Speech(frame []float32) float32
	Reset()
}

// Energy is a voice activity detector on loudness: a frame is speech when
// it stands far enough above the noise floor. The floor is the quietest
// frame of the last second and a half (the gaps between words fall back
// to it), so it follows a fan switched on or a window opened without being
// told, and the room tone after the last word counts as silence at once.
type Energy struct {
	// Margin is how far above the floor speech stands; default 12 dB.
	Margin float64
	// Quietest is the loudness below which nothing is speech, however
	// quiet the room; default -55 dBFS.
	Quietest float64

	recent []float64 // loudness of the last floorWindow frames, a ring
	next   int
}

var _ Detector = (*Energy)(nil)

const (
	// energyFrame is 20 ms.
	energyFrame = pcm.SpeechRate / 50
	// floorWindow is how many frames the floor is the minimum of: 1.5 s.
	floorWindow = 75
	// floorMin is the lowest floor: a microphone's own noise, however
	// silent the digital input.
	floorMin = -75.0
)

// FrameSize is 20 ms.
func (e *Energy) FrameSize() int { return energyFrame }

// Reset forgets the floor.
func (e *Energy) Reset() { e.recent, e.next = e.recent[:0], 0 }

// Speech scores a frame: a soft step from 0 to 1 across the margin.
func (e *Energy) Speech(frame []float32) float32 {
	margin, quietest := e.Margin, e.Quietest
	if margin == 0 {
		margin = 12
	}
	if quietest == 0 {
		quietest = -55
	}
	db := Loudness(frame)
	if len(e.recent) < floorWindow {
		e.recent = append(e.recent, db)
	} else {
		e.recent[e.next] = db
		e.next = (e.next + 1) % floorWindow
	}
	floor := max(slices.Min(e.recent), floorMin)
	if db < quietest {
		return 0
	}
	return float32(1 / (1 + math.Exp(-(db-floor-margin)*0.8)))
}

// Loudness is a frame's RMS level in dBFS (-100 for silence).
func Loudness(frame []float32) float64 {
	var sum float64
	for _, v := range frame {
		sum += float64(v) * float64(v)
	}
	if len(frame) == 0 || sum == 0 {
		return -100
	}
	return max(10*math.Log10(sum/float64(len(frame))), -100)
}

// Decision is what an Endpointer concluded from a frame.
type Decision int

// The decisions.
const (
	Continue Decision = iota // nothing new
	Began                    // speech began
	Ended                    // speech was followed by enough silence
	NoSpeech                 // no speech began in time
	TooLong                  // the utterance reached the length cap
)

func (d Decision) String() string {
	return [...]string{"continue", "began", "ended", "no speech", "too long"}[d]
}

// Endpointer turns per-frame speech scores into decisions. Times are
// audio time: the frames' own duration, not the wall clock.
type Endpointer struct {
	// Silence after speech that ends the utterance; default 700 ms.
	Silence time.Duration
	// StartTimeout ends an utterance in which no speech began; 0 waits.
	StartTimeout time.Duration
	// MaxLength caps an utterance; default 15 s.
	MaxLength time.Duration
	// MinSpeech is how much speech must come before it counts as begun,
	// so a click or a cough is not; default 120 ms.
	MinSpeech time.Duration

	elapsed, speechRun, silenceRun time.Duration
	began                          bool
	start, end                     time.Duration // speech bounds, audio time
}

func (e *Endpointer) silence() time.Duration {
	if e.Silence == 0 {
		return 700 * time.Millisecond
	}
	return e.Silence
}

func (e *Endpointer) maxLength() time.Duration {
	if e.MaxLength == 0 {
		return 15 * time.Second
	}
	return e.MaxLength
}

func (e *Endpointer) minSpeech() time.Duration {
	if e.MinSpeech == 0 {
		return 120 * time.Millisecond
	}
	return e.MinSpeech
}

// Push takes the next frame's speech score and length.
func (e *Endpointer) Push(p float32, d time.Duration) Decision {
	at := e.elapsed
	e.elapsed += d
	speech, quiet := p >= 0.5, p < 0.35 // between the two: keep the run going
	switch {
	case speech:
		if e.speechRun == 0 && !e.began {
			e.start = at
		}
		e.speechRun += d
		e.silenceRun = 0
		e.end = e.elapsed
	case quiet:
		e.silenceRun += d
		if !e.began {
			e.speechRun = 0
		}
	}
	switch {
	case !e.began && e.speechRun >= e.minSpeech():
		e.began = true
		return Began
	case e.began && e.silenceRun >= e.silence():
		return Ended
	case !e.began && e.StartTimeout > 0 && e.elapsed >= e.StartTimeout:
		return NoSpeech
	case e.elapsed >= e.maxLength():
		return TooLong
	}
	return Continue
}

// HasBegun reports whether speech has begun.
func (e *Endpointer) HasBegun() bool { return e.began }

// Speech is where the speech lies in the audio pushed so far: from its
// first frame to the end of its last; zero before it began.
func (e *Endpointer) Speech() (from, to time.Duration) {
	if !e.began {
		return 0, 0
	}
	return e.start, e.end
}
