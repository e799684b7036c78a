package builtin

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// snoozeFor is how long a snooze lasts, in minutes, when no length is
// said: the common alarm clock's.
const snoozeFor = 9

// maxSnooze is the longest snooze, in minutes; longer is a new alarm.
const maxSnooze = 120

// Snooze is snooze: said while an alarm rings or has just rung ("snooze",
// "noch 5 Minuten", "répéter"), it silences the alarm and sets it to ring
// again, once and with its label, that many minutes on (9 unless said).
// With no alarm ringing or just rung it says so and sets nothing.
func Snooze(s Schedule, alerts Alerts) *command.Command {
	return &command.Command{
		Name:        "snooze",
		Description: "Snooze the ringing alarm.",
		Keywords:    []string{"snooze"},
		Parameters: []command.Parameter{
			{Name: "minutes", Type: "int", Default: snoozeFor, Check: func(v any) error {
				if n := v.(int64); n < 1 || n > maxSnooze {
					return fmt.Errorf("a snooze of %d minutes is outside 1 to %d", n, maxSnooze)
				}
				return nil
			}},
		},
		Intents: []string{"snooze"},
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			if !m.Has("minutes") {
				return command.Claim{Arguments: map[string]any{}}, nil
			}
			mins, err := number(m, "minutes")
			if err != nil {
				return command.Claim{}, err
			}
			return command.Claim{Arguments: map[string]any{"minutes": mins}}, nil
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			l := lang(c)
			var rang []storage.Item
			if alerts != nil {
				rang = alerts.JustRang(storage.Alarm)
			}
			if len(rang) == 0 {
				return command.Response{Kind: command.Failure, Spoken: l.T("There's no alarm to snooze."), Data: map[string]any{"snoozed": false}}, nil
			}
			alerts.StopAlerts()
			it := rang[0]
			for _, x := range rang[1:] { // the one that went off last
				if x.Due.After(it.Due) {
					it = x
				}
			}
			at := c.Now.Add(time.Duration(c.Args.Int("minutes")) * time.Minute).Truncate(time.Minute)
			again, err := s.AddAlarm(ctx, it.Name, at.Hour(), at.Minute(), nil, at)
			switch {
			case errors.Is(err, schedule.ErrClockNotSet):
				return command.Failed(l.T("I can't snooze the alarm until my clock is set; I'm still getting the time.")), nil
			case err != nil:
				return command.Response{}, err
			}
			return command.Response{Kind: command.Success, Spoken: l.T("I'll ring again at %s.", l.Clock(again.Hour, again.Minute)), EndConversation: true,
				Data: map[string]any{"snoozed": true, "alarm_id": again.ID, "due": again.Due.Format(time.RFC3339), "stopped_ringing": true}}, nil
		},
	}
}
