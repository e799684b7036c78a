package builtin

import (
	"context"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// Stop is stop: silence speech or ringing and end the conversation. The
// box's own microphone silences the ringing with any stop; another asker
// (a phone, a node) ends only its own conversation, unless it names the
// ringing ("stop the alarm": the templates' ringing slot), and is told
// when it did silence it.
func Stop(alerts Alerts) *command.Command {
	return &command.Command{
		Name:        "stop",
		Description: "Stop speaking or ringing and end the conversation.",
		Keywords:    []string{"stop", "cancel", "never mind", "quiet"},
		Intents:     []string{"HassNevermind", "stop"},
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			if _, ok := m.Slots["ringing"]; ok {
				return command.Claim{Arguments: map[string]any{"ringing": true}}, nil
			}
			return command.Claim{}, nil
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			stopped := false
			if command.ClientOf(ctx).Here || c.Args.Bool("ringing") {
				stopped = alerts != nil && alerts.StopAlerts()
			}
			return command.Response{Kind: command.Success, Spoken: ringingStopped(ctx, lang(c), stopped),
				EndConversation: true, Data: map[string]any{"stopped_ringing": stopped}}, nil
		},
	}
}

// ringingStopped says that the ringing stopped, to an asker who is not in
// the room to hear it stop; nothing to the box's own microphone.
func ringingStopped(ctx context.Context, l locale.Lang, stopped bool) string {
	if !stopped || command.ClientOf(ctx).Here {
		return ""
	}
	return l.T("The ringing has stopped.")
}
