package builtin

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/command"
)

// Time is get_current_time: the time, date and weekday in the user's
// zone, or the date of another day ("tomorrow", "next friday", "december
// 25th", "christmas") and the days until it. Days are counted on the
// calendar in the user's zone, whatever the hours between; a weekday named
// is the next one, a week away when it is today's. Before the clock is set
// nothing is said of any day: a date worked out from 1970 would be wrong.
func Time() *command.Command {
	return &command.Command{
		Name:        "get_current_time",
		Description: "Local time, date and weekday now, or another day's date and the days until it.",
		Keywords:    []string{"time", "clock", "date", "what day", "days until", "how long until"},
		// The time and date are in front of every request the model reads.
		DirectAnswer: true,
		Parameters: []command.Parameter{
			{Name: "detail", Type: "string", Enum: []string{"time", "date", "day", "until"}, Default: "time", Description: "What to tell; until: days until day."},
			{Name: "day", Type: "string", Description: "If not today: tomorrow, yesterday, a weekday, a fixed holiday or YYYY-MM-DD.", Check: checkDay},
		},
		Examples: []command.Example{
			{Utterance: "what time is it", Arguments: map[string]any{"detail": "time"}},
			{Utterance: "what's the date today", Arguments: map[string]any{"detail": "date"}},
		},
		Intents: []string{"HassGetCurrentTime", "HassGetCurrentDate", "get_current_time"},
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			if m.Intent == "get_current_time" {
				args := map[string]any{"detail": m.String("detail")}
				if m.Has("day") {
					d, ok := utterance.ParseDay(m.Lang.DaySaid(m.String("day")))
					if !ok {
						return command.Claim{}, command.Unresolved("day", "not a day: "+m.String("day"))
					}
					args["day"] = d.String()
				}
				return command.Claim{Arguments: args}, nil
			}
			if m.Intent == "HassGetCurrentDate" {
				return command.Claim{Arguments: map[string]any{"detail": "date"}}, nil
			}
			return command.Claim{Arguments: map[string]any{"detail": "time"}}, nil
		},
		Validate: func(ctx context.Context, args command.Args) []command.Problem {
			if args.String("detail") == "until" && args.String("day") == "" {
				return []command.Problem{{Param: "day", Message: "until needs the day to count to"}}
			}
			return nil
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			now := c.Now
			l := lang(c)
			detail := c.Args.String("detail")
			day, other := otherDay(c.Args.String("day"))
			if c.ClockUnset {
				if detail == "time" && !other {
					return command.Failed(l.T("I don't know the time yet: my clock isn't set. I'm still getting the time.")), nil
				}
				return command.Failed(l.T("I don't know the date yet: my clock isn't set. I'm still getting the time.")), nil
			}
			if other {
				return sayDay(l, detail, day.On(now), now), nil
			}
			data := map[string]any{
				"time":     now.Format("15:04"),
				"date":     now.Format("2006-01-02"),
				"weekday":  now.Weekday().String(),
				"timezone": now.Format("MST"),
			}
			var s string
			switch detail {
			case "date", "until":
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

func checkDay(v any) error {
	s, _ := v.(string)
	if _, ok := utterance.ParseDay(s); !ok {
		return fmt.Errorf("%q is not a day I can work out: say tomorrow, a weekday, a date or a fixed holiday", s)
	}
	return nil
}

// otherDay reads the day argument; other is false when it is absent or
// names today itself.
func otherDay(s string) (d utterance.Day, other bool) {
	if s == "" {
		return d, false
	}
	d, ok := utterance.ParseDay(s)
	return d, ok && d.String() != "today"
}

// sayDay tells the date of day, and how far it is from now: "until" says
// the days to go first.
func sayDay(l locale.Lang, detail string, day, now time.Time) command.Response {
	n := utterance.CalendarDays(now, day)
	date := l.Date(day)
	days := time.Duration(n) * 24 * time.Hour
	var s string
	switch {
	case n == 0:
		s = l.T("That's today: %s.", date)
	case n == 1 && detail == "until":
		s = l.T("1 day to go: tomorrow is %s.", date)
	case n == 1:
		s = l.T("Tomorrow is %s.", date)
	case n == -1:
		s = l.T("Yesterday was %s.", date)
	case n > 1 && detail == "until":
		s = l.T("%s to go: %s.", l.Duration(days), date)
	case n > 1:
		s = l.T("That's %s, in %s.", date, l.After(days))
	default:
		s = l.T("That was %s, %s ago.", date, l.After(-days))
	}
	return command.Said(s, map[string]any{
		"date":            day.Format("2006-01-02"),
		"weekday":         day.Weekday().String(),
		"days_from_today": n,
	})
}

// capitalize upper-cases the first letter.
func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
