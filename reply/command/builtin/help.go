package builtin

import (
	"context"

	"github.com/harkbox/hark/reply/command"
)

// Setup says which of the household's services the box is set up for.
type Setup interface {
	// SetUp reports whether Home Assistant is set up (its address and
	// token kept) and whether the weather has a home place. It asks
	// nothing of the network.
	SetUp(ctx context.Context) (home, weather bool)
}

// Help is help: "what can you do" answered with what works without the
// model, which is what the box does whatever the model server's state.
// The home is named only when Home Assistant is set up, the weather at
// home only when the box knows its place (setup nil: both). The offline
// path alone reaches it; the model answers for itself.
func Help(setup Setup) *command.Command {
	return &command.Command{
		Name:        "help",
		Description: "Say what the box can do.",
		Hidden:      true,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			l := lang(c)
			home, weather := true, true
			if setup != nil {
				home, weather = setup.SetUp(ctx)
			}
			switch {
			case home && weather:
				return command.Said(l.T("I can set timers, alarms and reminders, snooze an alarm, control your home, change my volume, tell you the time, the date and the weather, do sums and conversions, and remember what you tell me. When my language model is reachable, I can answer other questions too."), nil), nil
			case weather:
				return command.Said(l.T("I can set timers, alarms and reminders, snooze an alarm, change my volume, tell you the time, the date and the weather, do sums and conversions, and remember what you tell me. When my language model is reachable, I can answer other questions too."), nil), nil
			case home:
				return command.Said(l.T("I can set timers, alarms and reminders, snooze an alarm, control your home, change my volume, tell you the time and the date, tell you the weather in a place you name, do sums and conversions, and remember what you tell me. When my language model is reachable, I can answer other questions too."), nil), nil
			}
			return command.Said(l.T("I can set timers, alarms and reminders, snooze an alarm, change my volume, tell you the time and the date, tell you the weather in a place you name, do sums and conversions, and remember what you tell me. When my language model is reachable, I can answer other questions too."), nil), nil
		},
	}
}

// Thanks is thanks: a thank-you said alone, answered and the conversation
// ended. The offline path alone reaches it.
func Thanks() *command.Command {
	return &command.Command{
		Name:        "thanks",
		Description: "Answer a thank-you.",
		Hidden:      true,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			return command.Response{Kind: command.Success, Spoken: lang(c).T("You're welcome."), EndConversation: true}, nil
		},
	}
}

// Greet is greet: "hello" said alone, answered with a greeting and the
// microphone open for what comes next. The offline path alone reaches it.
func Greet() *command.Command {
	return &command.Command{
		Name:        "greet",
		Description: "Answer a greeting.",
		Hidden:      true,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			return command.Response{Kind: command.FollowUp, Spoken: lang(c).T("Hello! What can I do for you?")}, nil
		},
	}
}

// Introduce is introduce: "who are you", "what's your name", answered
// with the assistant's name the turn carries (command.AssistantOf), or
// without one. The offline path alone reaches it.
func Introduce() *command.Command {
	return &command.Command{
		Name:        "introduce",
		Description: "Say who the assistant is.",
		Hidden:      true,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			l := lang(c)
			if name := command.AssistantOf(ctx); name != "" {
				return command.Said(l.T("I'm %s, the voice assistant in this speaker.", name), nil), nil
			}
			return command.Said(l.T("I'm the voice assistant in this speaker."), nil), nil
		},
	}
}
