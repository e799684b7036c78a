// Package voice holds the values that pass between the box's voice
// engines (microphones, speech-to-text, speech) and the turn state machine
// in package pipeline: an utterance, its transcript, the published status
// and the errors engines return. Engines import this package, not the
// state machine.
package voice

import (
	"context"
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
	// Echo, when set, reports whether what the microphone caught at a
	// moment may be the box's own sound (its speaker was sounding then, or
	// just before): that is not the user, though it came before the press.
	Echo func(at time.Time) bool
	// Pauses, when set, is told where the speech pauses, so that the words
	// said so far can be worked on before the utterance is over; its
	// verdict that they make a whole request lets the microphone end the
	// utterance on a shorter silence (when EndOnSilence is set).
	Pauses Pauses
}

// Pauses is told where an utterance pauses. A microphone calls it from
// the goroutine that records, so its methods must return at once; the
// work they start runs elsewhere.
type Pauses interface {
	// Pause hands over the utterance so far (trimmed as the microphone
	// would return it if it ended now) when the speech has paused for a
	// moment; the work it starts ends with ctx, the recording's. The
	// channel receives true, once, when the words so far are known to
	// make a whole request; false, or nothing, otherwise.
	Pause(ctx context.Context, u Utterance) <-chan bool
	// Resume says the speech went on after the last pause: that pause's
	// utterance is not the end, and its work can be dropped.
	Resume()
	// Murmur hands over the utterance so far, the pause's silence included,
	// when sounds no louder than the room's other voices have gone on in
	// it for a while, and the pause's words are not known to be whole:
	// they are the room's, or the user's quiet words. The channel receives
	// true, once, when those sounds hold no words (the words are the
	// pause's); false, or nothing, otherwise.
	Murmur(ctx context.Context, u Utterance) <-chan bool
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

// ErrNoVoice reports a speech engine without a voice for the turn's
// language: the box's own voice speaks that language instead, without the
// engine being asked again.
var ErrNoVoice = errors.New("voice: no voice for the language")

// ErrNoMicrophone reports a recording asked of a microphone that is gone
// or does not open. The box says so, and shows the error pattern.
var ErrNoMicrophone = errors.New("voice: the microphone is not working")
