package voice

import (
	"fmt"
	"time"
)

// State is what the pipeline is doing.
type State int

// The states of a turn. A turn goes Idle → Listening → Transcribing →
// Thinking → Speaking → Idle; Error is shown when a turn fails, before Idle.
// Ringing is a timer, alarm or reminder going off.
const (
	Idle State = iota
	Listening
	Transcribing
	Thinking
	Speaking
	Error
	Ringing
)

var stateNames = [...]string{"idle", "listening", "transcribing", "thinking", "speaking", "error", "ringing"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Status is one published state of the pipeline.
type Status struct {
	State State
	// Turn numbers turns from 1; it is 0 before the first turn.
	Turn uint64
	// Text is what was heard (Thinking) or the sentence being said
	// (Speaking). It is user content: show it, never log it at Info.
	Text string
	// Err is why the turn failed (Error).
	Err error
	// FollowUp marks Listening in the follow-up window after a reply.
	FollowUp bool
}

// Turn is one voice turn as it went, reported once it is over: for a view
// of the last turns, and so that the record of what was said keeps only
// what the speaker said. Heard and Said are user content: show them, never
// log them at Info.
type Turn struct {
	ID    uint64
	Began time.Time // the press, or the follow-up window's opening
	// Heard is the transcript; "" when nothing was heard.
	Heard string
	// Said are the reply's sentences that began to play, in order.
	Said []string
	// Cut is set when a press or a stop ended the turn before its reply
	// was all said.
	Cut bool
	// Endpoint is from the press to the end of the utterance;
	// Transcribe, the transcription; FirstAudio, from the end of the
	// utterance to the reply's first sound. Zero for a stage not reached.
	Endpoint, Transcribe, FirstAudio time.Duration
	// Err is why the turn failed; "" when it did not.
	Err string
}
