package voice

import "fmt"

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
