package builtin

import (
	"context"

	"github.com/harkbox/hark/reply/command"
)

// Stop is stop: silence speech or ringing and end the conversation.
func Stop(alerts Alerts) *command.Command {
	return &command.Command{
		Name:        "stop",
		Description: "Stop speaking or ringing and end the conversation.",
		Keywords:    []string{"stop", "cancel", "never mind", "quiet"},
		Intents:     []string{"HassNevermind", "stop"},
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			return command.Claim{}, nil
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			stopped := alerts != nil && alerts.StopAlerts()
			return command.Response{Kind: command.Success, EndConversation: true, Data: map[string]any{"stopped_ringing": stopped}}, nil
		},
	}
}
