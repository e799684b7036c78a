package builtin

import (
	"context"

	"github.com/harkbox/hark/reply/command"
)

// Help is help: "what can you do" answered with what works without the
// model, which is what the box does whatever the model server's state.
// The offline path alone reaches it; the model answers for itself.
func Help() *command.Command {
	return &command.Command{
		Name:        "help",
		Description: "Say what the box can do.",
		Hidden:      true,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			l := lang(c)
			return command.Said(l.T("I can set timers, alarms and reminders, change my volume, tell you the time and the date, do sums, convert units, remember what you tell me, and tell you the weather. When my language model is reachable, I can answer other questions too."), nil), nil
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
