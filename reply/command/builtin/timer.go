package builtin

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// Schedule keeps the timers, alarms and reminders; the alert service is
// one. An item it accepts rings, saved or not (a store that refuses
// writes does not lose it while the box runs). Before the box's clock is
// set, an alarm is held (Item.Held) and a clock time it cannot place is
// refused with schedule.ErrClockNotSet.
type Schedule interface {
	AddTimer(ctx context.Context, name string, d time.Duration) (storage.Item, error)
	ChangeTimer(ctx context.Context, id string, d time.Duration) (storage.Item, error)
	PauseTimer(ctx context.Context, id string) (storage.Item, error)
	ResumeTimer(ctx context.Context, id string) (storage.Item, error)
	// AddToTimer adds d (takes it off when negative) to a timer's time.
	AddToTimer(ctx context.Context, id string, d time.Duration) (storage.Item, error)
	AddAlarm(ctx context.Context, name string, hour, minute int, days []time.Weekday, day time.Time) (storage.Item, error)
	AddReminder(ctx context.Context, message string, due time.Time) (storage.Item, error)
	// AddReminderIn reminds after d, counted like a timer.
	AddReminderIn(ctx context.Context, message string, d time.Duration) (storage.Item, error)
	// Pending lists the items still to go off, soonest first.
	Pending(ctx context.Context, kinds ...storage.ItemKind) ([]storage.Item, error)
	Cancel(ctx context.Context, id string) (storage.Item, error)
}

// Alerts is whatever is ringing now; the alert service is one.
type Alerts interface {
	// StopAlerts silences ringing timers, alarms and reminders and reports
	// whether anything was ringing.
	StopAlerts() bool
	// JustRang lists the items of kind that ring now or stopped ringing
	// a moment ago (the press that begins a turn silences them).
	JustRang(kind storage.ItemKind) []storage.Item
}

// justRangStopped answers "stop the timer" (or alarm, or reminder) said
// while one of kind rings or has just rung: it is that one that is meant,
// not another still to come. It silences the ringing and cancels
// nothing; false when nothing of kind has just rung.
func justRangStopped(ctx context.Context, l locale.Lang, alerts Alerts, kind storage.ItemKind) (command.Response, bool) {
	if alerts == nil || len(alerts.JustRang(kind)) == 0 {
		return command.Response{}, false
	}
	alerts.StopAlerts()
	return command.Said(ringingStopped(ctx, l, true), map[string]any{"stopped_ringing": true}), true
}

var cancelVerbs = []string{"cancel", "stop", "delete", "remove", "clear", "turn off", "kill", "end", "reset", "get rid of"}

// nameBefore returns the label said before a word such as "timer": "pasta"
// in "set a pasta timer", skipping the duration's words; "" when none.
func nameBefore(words []string, at int, skip func(i int) bool) string {
	stop := map[string]bool{"a": true, "an": true, "the": true, "my": true, "set": true, "start": true, "create": true,
		"new": true, "another": true, "cancel": true, "stop": true, "delete": true, "remove": true, "clear": true,
		"all": true, "on": true, "for": true, "is": true, "of": true, "check": true, "any": true, "your": true, "off": true,
		"turn": true, "and": true, "kill": true, "end": true, "reset": true, "what": true, "timer": true, "timers": true,
		"alarm": true, "alarms": true, "up": true, "make": true, "put": true, "me": true, "minute": true, "second": true, "hour": true}
	var name []string
	for i := at - 1; i >= 0; i-- {
		if stop[words[i]] || skip(i) {
			break
		}
		if _, _, ok := utterance.Number(words[i : i+1]); ok {
			break
		}
		name = append([]string{words[i]}, name...)
	}
	return strings.Join(name, " ")
}

// nameAfter reads "timer called tea", "timer named pasta for".
func nameAfter(words []string, at int, skip func(i int) bool) string {
	if at+2 >= len(words) || (words[at+1] != "called" && words[at+1] != "named" && words[at+1] != "for") {
		return ""
	}
	var name []string
	for i := at + 2; i < len(words) && !skip(i) && words[i] != "for" && words[i] != "and"; i++ {
		if words[i] == "the" && len(name) == 0 {
			continue
		}
		name = append(name, words[i])
	}
	if words[at+1] == "for" && len(name) > 2 { // "timer for the eggs" but not a sentence
		return ""
	}
	return strings.Join(name, " ")
}

func timerWord(words []string) int {
	for i, w := range words {
		if w == "timer" || w == "timers" {
			return i
		}
	}
	return -1
}

// SetTimer is set_timer.
func SetTimer(s Schedule) *command.Command {
	return &command.Command{
		Name:        "set_timer",
		Description: "Start a countdown timer, optionally named.",
		Keywords:    []string{"timer", "countdown", "minutes"},
		Parameters: []command.Parameter{
			// Up to schedule.MaxTimer, which Run tells: the length is not
			// asked again when it is too long.
			{Name: "duration", Type: "timedelta", Required: true, Refinable: true, Description: "ISO 8601, e.g. PT5M", Ask: locale.Key("For how long?")},
			{Name: "name", Type: "string", Description: "e.g. pasta"},
		},
		Examples: []command.Example{{Utterance: "set a pasta timer for 8 minutes", Arguments: map[string]any{"duration": "PT8M", "name": "pasta"}}},
		Intents:  []string{"HassStartTimer", "set_timer", "give_timer"},
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			if m.Intent == "give_timer" {
				return giveTimer(ctx, s, m)
			}
			return setTimerFromIntent(ctx, m)
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			d, name := c.Args.Duration("duration"), c.Args.String("name")
			if d > schedule.MaxTimer {
				return command.Failed(lang(c).T("A timer can run for up to %s.", maxTimer(lang(c)))), nil
			}
			if id, ok := c.Refines["timer_id"].(string); ok {
				it, err := s.ChangeTimer(ctx, id, d)
				if err == nil {
					l := lang(c)
					if it.Name == "" {
						return command.Said(l.T("OK, the timer is now %s.", l.Duration(d)), timerData(it)), nil
					}
					return command.Said(l.T("OK, the %s timer is now %s.", it.Name, l.Duration(d)), timerData(it)), nil
				}
			}
			it, err := s.AddTimer(ctx, name, d)
			if err != nil {
				return command.Response{}, err
			}
			l := lang(c)
			if name != "" {
				return command.Said(capitalize(l.T("%s timer set for %s.", name, l.Duration(d))), timerData(it)), nil
			}
			return command.Said(l.T("Timer set for %s.", l.Duration(d)), timerData(it)), nil
		},
	}
}

func timerData(it storage.Item) map[string]any {
	return map[string]any{"timer_id": it.ID, "name": it.Name, "duration": it.Duration.String(), "due": it.Due.Format(time.RFC3339)}
}

// remaining says how long a timer has left, to the second under ten
// minutes and to the minute above.
func remaining(l locale.Lang, it storage.Item, now time.Time) string {
	left := it.Due.Sub(now)
	if it.Paused {
		left = it.Left
	}
	if left >= 10*time.Minute {
		left = left.Round(time.Minute)
	}
	if left < time.Second {
		return l.T("less than a second")
	}
	return l.Duration(left)
}

// CheckTimers is check_timers.
func CheckTimers(s Schedule) *command.Command {
	return &command.Command{
		Name:        "check_timers",
		Description: "List running timers and the time left.",
		Keywords:    []string{"timer", "left", "remaining"},
		Parameters:  timerParams,
		Intents:     []string{"HassTimerStatus", "check_timers"},
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			args, err := whichTimer(m)
			return command.Claim{Arguments: args}, err
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			timers, err := s.Pending(ctx, storage.Timer)
			if err != nil {
				return command.Response{}, err
			}
			timers = pick(timers, c)
			l := lang(c)
			var list []map[string]any
			var parts []string
			for _, it := range timers {
				left := remaining(l, it, c.Now)
				togo := it.Due.Sub(c.Now)
				if it.Paused {
					togo = it.Left
				}
				list = append(list, map[string]any{"name": it.Name, "remaining": togo.Round(time.Second).String(), "paused": it.Paused})
				if it.Name != "" {
					parts = append(parts, l.T("the %s timer with %s left", it.Name, left))
				} else {
					parts = append(parts, l.T("one with %s left", left))
				}
			}
			data := map[string]any{"timers": list}
			switch len(timers) {
			case 0:
				if name := c.Args.String("name"); name != "" {
					return command.Said(l.T("You have no %s timer.", name), data), nil
				}
				return command.Said(l.T("You have no timers."), data), nil
			case 1:
				it := timers[0]
				if it.Name != "" {
					return command.Said(l.T("Your %s timer has %s left.", it.Name, remaining(l, it, c.Now)), data), nil
				}
				return command.Said(l.T("Your timer has %s left.", remaining(l, it, c.Now)), data), nil
			}
			return command.Said(l.T("You have %d timers: %s.", len(timers), l.And(parts)), data), nil
		},
	}
}

// CancelTimer is cancel_timer.
func CancelTimer(s Schedule, alerts Alerts) *command.Command {
	return &command.Command{
		Name:        "cancel_timer",
		Description: "Cancel a running timer, by name, or all of them.",
		Keywords:    []string{"timer", "cancel", "stop"},
		Parameters:  append(slices.Clone(timerParams), command.Parameter{Name: "all", Type: "bool"}),
		Intents:     []string{"HassCancelTimer", "HassCancelAllTimers", "cancel_timer"},
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			args, err := whichTimer(m) // "all kitchen timers" are the kitchen's
			if m.Intent == "HassCancelAllTimers" || m.Has("all") {
				args["all"] = true
			}
			return command.Claim{Arguments: args}, err
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			timers, err := s.Pending(ctx, storage.Timer)
			if err != nil {
				return command.Response{}, err
			}
			l := lang(c)
			name := c.Args.String("name")
			if name == "" && c.Args.Duration("started") == 0 && !c.Args.Bool("all") {
				if r, ok := justRangStopped(ctx, l, alerts, storage.Timer); ok {
					return r, nil
				}
			}
			timers = pick(timers, c)
			switch {
			case len(timers) == 0 && alerts != nil && alerts.StopAlerts():
				return command.Said(ringingStopped(ctx, l, true), map[string]any{"stopped_ringing": true}), nil
			case len(timers) == 0 && name != "":
				return command.Said(l.T("You have no %s timer.", name), nil), nil
			case len(timers) == 0:
				return command.Said(l.T("You have no timers."), nil), nil
			case len(timers) > 1 && !c.Args.Bool("all"):
				var names []string
				for _, it := range timers {
					if it.Name != "" {
						names = append(names, it.Name)
					} else {
						names = append(names, l.T("the timer for %s", l.Duration(it.Duration)))
					}
				}
				return command.Response{Kind: command.Invalid, Spoken: l.T("You have %d timers. Which one: %s, or all of them?", len(timers), l.Or(names)),
					Problems: []command.Problem{{Param: "name", Message: "several timers are running", Valid: names}}}, nil
			}
			for _, it := range timers {
				if _, err := s.Cancel(ctx, it.ID); err != nil {
					return command.Response{}, err
				}
			}
			if len(timers) > 1 {
				return command.Said(l.T("Cancelled all %d timers.", len(timers)), map[string]any{"cancelled": len(timers)}), nil
			}
			if timers[0].Name != "" {
				return command.Said(l.T("Cancelled the %s timer.", timers[0].Name), map[string]any{"cancelled": 1}), nil
			}
			return command.Said(l.T("Timer cancelled."), map[string]any{"cancelled": 1}), nil
		},
	}
}

func readSetTimer(text string) (command.Claim, bool) {
	words := utterance.Words(trim(text))
	ti := timerWord(words)
	d, at, n, ok := utterance.FindDuration(words)
	if ti < 0 || !ok || hasPhrase(text, cancelVerbs...) || hasPhrase(text, "how", "what", "left", "check") {
		return noClaim, false
	}
	inDur := func(i int) bool { return i >= at && i < at+n }
	name := nameAfter(words, ti, inDur)
	if name == "" {
		name = nameBefore(words, ti, inDur)
	}
	args := map[string]any{"duration": d}
	if name != "" {
		args["name"] = name
	}
	return claim(args)
}

// maxTimer says the longest a timer runs in hours, as a timer is thought
// of: "24 hours", not "1 day".
func maxTimer(l locale.Lang) string {
	return l.T("%d hours", int(schedule.MaxTimer/time.Hour))
}
