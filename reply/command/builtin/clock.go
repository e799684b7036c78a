package builtin

import (
	"context"
	"strings"

	"github.com/harkbox/hark/reply/command"
)

// Time is get_current_time: the time, date and weekday in the user's zone.
func Time() *command.Command {
	return &command.Command{
		Name:        "get_current_time",
		Description: "Current local time, date and weekday.",
		Keywords:    []string{"time", "clock", "date", "what day"},
		// The time and date are in front of every request the model reads.
		DirectAnswer: true,
		Parameters: []command.Parameter{
			{Name: "detail", Type: "string", Enum: []string{"time", "date", "day"}, Default: "time", Description: "What to tell."},
		},
		Examples: []command.Example{
			{Utterance: "what time is it", Arguments: map[string]any{"detail": "time"}},
			{Utterance: "what's the date today", Arguments: map[string]any{"detail": "date"}},
		},
		Intents: []string{"HassGetCurrentTime", "HassGetCurrentDate", "get_current_time"},
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			if m.Intent == "get_current_time" {
				return command.Claim{Arguments: map[string]any{"detail": m.String("detail")}}, nil
			}
			if m.Intent == "HassGetCurrentDate" {
				return command.Claim{Arguments: map[string]any{"detail": "date"}}, nil
			}
			return command.Claim{Arguments: map[string]any{"detail": "time"}}, nil
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			now := c.Now
			l := lang(c)
			if c.ClockUnset {
				return command.Failed(l.T("I don't know the time yet: my clock isn't set. I'm still getting the time.")), nil
			}
			data := map[string]any{
				"time":     now.Format("15:04"),
				"date":     now.Format("2006-01-02"),
				"weekday":  now.Weekday().String(),
				"timezone": now.Format("MST"),
			}
			var s string
			switch c.Args.String("detail") {
			case "date":
				s = l.T("It's %s.", l.Date(now))
			case "day":
				s = l.T("It's %s.", l.Weekday(now.Weekday()))
			default:
				s = l.TimeNow(now.Hour(), now.Minute())
			}
			return command.Said(s, data), nil
		},
	}
}

// capitalize upper-cases the first letter.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
