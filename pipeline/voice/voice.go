// Package voice holds the values that pass between the box's voice
// engines (microphones, speech-to-text, speech) and the turn state machine
// in package pipeline: an utterance, its transcript, the published status
// and the errors engines return. Engines import this package, not the
// state machine.
package voice

import (
	"errors"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
)

// Listen says how one recording ends.
type Listen struct {
	// End is closed when the button ends the utterance.
	End <-chan struct{}
	// StartTimeout, when set, ends the recording quietly if no speech has
	// begun within it: the follow-up window after a reply, or the wait for
	// speech after a tap.
	StartTimeout time.Duration
	// FollowUp marks the follow-up window after a reply: no press began
	// this recording.
	FollowUp bool
	// EndOnSilence lets the microphone end the utterance on the silence
	// after speech (tap mode and the follow-up window); otherwise only End
	// does (hold mode: the release).
	EndOnSilence bool
	// Echo, when set, reports whether the box's own speaker is sounding
	// (or just was): what the microphone hears then is not the user.
	Echo func() bool
}

// Utterance is what the microphone captured.
type Utterance struct {
	// Audio is the speech, 16 kHz mono.
	Audio pcm.Buffer
	// Cut reports an utterance that reached the microphone's length cap.
	Cut bool
	// Offset is where Audio starts relative to the press: negative when
	// it begins in the pre-roll. Speech is where the detector placed the
	// speech within Audio.
	Offset time.Duration
	Speech [2]time.Duration
}

// Transcript is the text of an utterance.
type Transcript struct {
	Text     string
	Language string // BCP 47 code when the engine detected or was told it; may be empty
}

// ErrNoSpeech reports an utterance that held nothing to answer. The turn ends
// quietly.
var ErrNoSpeech = errors.New("voice: no speech")

// ErrMuted reports a recording asked of a muted microphone. The box says
// so and goes back to idle.
var ErrMuted = errors.New("voice: the microphone is muted")

// ErrNoMicrophone reports a recording asked of a microphone that is gone
// or does not open. The box says so, and shows the error pattern.
var ErrNoMicrophone = errors.New("voice: the microphone is not working")
