package builtin

import (
	"context"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

var stopPhrases = []string{
	"stop", "cancel", "never mind", "nevermind", "forget it", "be quiet", "quiet", "shut up", "silence",
	"that is all", "that is enough", "enough", "stop it", "stop talking", "ok stop", "stop that", "nothing",
	"thanks that is all", "thank you that is all", "no thanks",
	"hush", "cancel that", "abort", "stop please", "never mind thanks",
}

// ringingPhrases name the ringing: from anywhere, they silence it.
var ringingPhrases = []string{"stop ringing", "stop the alarm", "stop the ringing", "dismiss", "silence the alarm", "turn off the alarm"}

// Stop is stop: silence speech or ringing and end the conversation. The
// box's own microphone silences the ringing with any stop; another asker
// (a phone, a node) ends only its own conversation, unless it names the
// ringing ("stop the alarm"), and is told when it did silence it.
func Stop(alerts Alerts) *command.Command {
	return &command.Command{
		Name:        "stop",
		Description: "Stop speaking or ringing and end the conversation.",
		Keywords:    []string{"stop", "cancel", "never mind", "quiet"},
		PreRoute: func(text string) (command.Claim, bool) {
			switch {
			case oneOf(text, ringingPhrases...):
				return claim(map[string]any{"ringing": true})
			case oneOf(text, stopPhrases...):
				return claim(nil)
			}
			return noClaim, false
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
