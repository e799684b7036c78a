package builtin

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

var hhmm = regexp.MustCompile(`^(\d{1,2}):(\d{2})$`)

// parseClock reads a time of day as the model writes it ("07:30", "19:00",
// both 24-hour) or as said ("7", "half past seven", "7 pm"). A spoken time
// without morning or evening, or "7:30" with a one-digit hour, is
// ambiguous. A leading "at" is the time's own word: "no, at 8" corrects
// an alarm to 8.
func parseClock(s string) (utterance.ClockTime, error) {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "at "); ok {
		s = strings.TrimSpace(rest)
	}
	if m := hhmm.FindStringSubmatch(s); m != nil {
		h, _ := strconv.Atoi(m[1])
		mm, _ := strconv.Atoi(m[2])
		if h > 23 || mm > 59 {
			return utterance.ClockTime{}, fmt.Errorf("%q is not a time of day", s)
		}
		return utterance.ClockTime{Hour: h, Minute: mm, Explicit: len(m[1]) == 2 || h > 12 || h == 0}, nil
	}
	words := utterance.Words(utterance.Normalize(s))
	if c, n, ok := utterance.Clock(words); ok && n == len(words) {
		return c, nil
	}
	return utterance.ClockTime{}, fmt.Errorf("%q is not a time of day", s)
}

// checkClock checks an alarm's time: a time of day, or a while from now.
func checkClock(v any) error {
	if _, ok := alarmAfter(v.(string)); ok {
		return nil
	}
	_, err := parseClock(v.(string))
	return err
}

// alarmAfter reads an alarm's time said as a while from now, all of s:
// "in 8 hours", "20 minutes from now".
func alarmAfter(s string) (time.Duration, bool) {
	words := utterance.Words(utterance.Normalize(s))
	switch n := len(words); {
	case n > 1 && words[0] == "in":
		words = words[1:]
	case n > 2 && words[n-2] == "from" && words[n-1] == "now":
		words = words[:n-2]
	default:
		return 0, false
	}
	d, n, ok := utterance.Duration(words)
	if !ok || n != len(words) || d <= 0 {
		return 0, false
	}
	return d, true
}

// parseDay reads "today", "tomorrow", a weekday ("friday": the next one) or
// a date "2026-11-23", relative to now.
func parseDay(s string, now time.Time) (time.Time, error) {
	s = strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), "the ")
	switch s {
	case "today", "tonight":
		return now, nil
	case "tomorrow":
		return now.AddDate(0, 0, 1), nil
	case "day after tomorrow":
		return now.AddDate(0, 0, 2), nil
	}
	if wd, ok := strings.CutSuffix(s, " next week"); ok && isWeekday(wd) && !strings.HasSuffix(wd, "s") {
		return dayOfNextWeek(utterance.FindDays([]string{wd}).Days[0], now), nil
	}
	if d := utterance.FindDays([]string{s}); len(d.Days) == 1 {
		for i := 1; i <= 7; i++ {
			if t := now.AddDate(0, 0, i); t.Weekday() == d.Days[0] {
				return t, nil
			}
		}
	}
	if t, err := time.ParseInLocation("2006-01-02", s, now.Location()); err == nil {
		return t, nil
	}
	if d, ok := utterance.ParseDay(s); ok && isDate(d) { // "december 5": the next that has it
		return d.On(now), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a day", s)
}

func describeAlarm(l locale.Lang, it storage.Item, now time.Time) string {
	switch {
	case len(it.Days) > 0:
		return l.At(it.Hour, it.Minute, it.Days)
	case it.Held: // its day waits for the clock
		return l.Clock(it.Hour, it.Minute)
	}
	return l.When(it.Due, now)
}

// SetAlarm is set_alarm.
func SetAlarm(s Schedule) *command.Command {
	return &command.Command{
		Name:        "set_alarm",
		Description: "Set an alarm at a time of day, once or repeating.",
		Keywords:    []string{"alarm", "wake me"},
		Parameters: []command.Parameter{
			{Name: "time", Type: "string", Required: true, Refinable: true, Description: "HH:MM, 24-hour", Check: checkClock},
			{Name: "repeat", Type: "string", Description: "daily, weekdays, weekends or day names; empty for once"},
			{Name: "day", Type: "string", Description: "today, tomorrow, a weekday or YYYY-MM-DD, for a one-off"},
			{Name: "label", Type: "string"},
		},
		Examples:   []command.Example{{Utterance: "wake me up at 6:30 on weekdays", Arguments: map[string]any{"time": "06:30", "repeat": "weekdays"}}},
		Intents:    []string{"set_alarm"},
		FromIntent: alarmFromIntent,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			l := lang(c)
			if d, ok := alarmAfter(c.Args.String("time")); ok {
				return setAlarmAfter(ctx, s, l, c, d)
			}
			ct, err := parseClock(c.Args.String("time"))
			if err != nil {
				return command.Response{}, err
			}
			var days []time.Weekday
			if r := c.Args.String("repeat"); r != "" {
				if days = utterance.FindDays(utterance.Words(utterance.Normalize(r))).Days; len(days) == 0 {
					return command.Response{Kind: command.Invalid, Spoken: l.T("Which days should the alarm repeat on?"),
						Problems: []command.Problem{{Param: "repeat", Message: fmt.Sprintf("%q names no days", r), Valid: []string{"daily", "weekdays", "weekends", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}}}}, nil
				}
			}
			var day time.Time
			if d := c.Args.String("day"); d != "" {
				if day, err = parseDay(d, c.Now); err != nil {
					return command.Response{Kind: command.Invalid, Spoken: l.T("Which day should the alarm be on?"), Problems: []command.Problem{{Param: "day", Message: err.Error()}}}, nil
				}
			}
			hour := ct.Hour
			if !ct.Explicit && ct.Hour < 12 {
				switch {
				case len(days) > 0 || !day.IsZero():
					// A repeating or dated alarm said without morning or
					// evening is a wake-up: morning.
				default:
					hour = ct.Waking(c.Now).Hour()
				}
			}
			if id, ok := c.Refines["alarm_id"].(string); ok {
				s.Cancel(ctx, id) // the refined alarm replaces it
			}
			it, err := s.AddAlarm(ctx, c.Args.String("label"), hour, ct.Minute, days, day)
			return alarmSet(l, c, it, err)
		},
	}
}

// setAlarmAfter sets a one-off alarm a while from now, to the minute.
func setAlarmAfter(ctx context.Context, s Schedule, l locale.Lang, c command.Call, d time.Duration) (command.Response, error) {
	due := c.Now.Add(d).Round(time.Minute)
	if id, ok := c.Refines["alarm_id"].(string); ok {
		s.Cancel(ctx, id) // the refined alarm replaces it
	}
	it, err := s.AddAlarm(ctx, c.Args.String("label"), due.Hour(), due.Minute(), nil, due)
	return alarmSet(l, c, it, err)
}

// alarmSet says how setting an alarm went.
func alarmSet(l locale.Lang, c command.Call, it storage.Item, err error) (command.Response, error) {
	switch {
	case errors.Is(err, schedule.ErrClockNotSet):
		return command.Failed(l.T("I can't set an alarm for a particular day until my clock is set; I'm still getting the time.")), nil
	case errors.Is(err, schedule.ErrInvalid):
		return command.Failed(l.T("That time has already passed.")), nil
	case err != nil:
		return command.Response{}, err
	case it.Held:
		return command.Said(l.T("Alarm set for %s. My clock isn't set yet, so it will ring at the next %s once it is.", describeAlarm(l, it, c.Now), l.Clock(it.Hour, it.Minute)),
			map[string]any{"alarm_id": it.ID, "held": true}), nil
	}
	return command.Said(l.T("Alarm set for %s.", describeAlarm(l, it, c.Now)),
		map[string]any{"alarm_id": it.ID, "due": it.Due.Format(time.RFC3339)}), nil
}

func dayNames(days []time.Weekday) string {
	var names []string
	for _, d := range days {
		names = append(names, strings.ToLower(d.String()))
	}
	return strings.Join(names, " ")
}

// SetReminder is set_reminder.
// dayOfNextWeek is the day wd of the week after now's, weeks starting on
// Monday: "wednesday next week" said on a Monday is nine days on, said on
// the Sunday before it three.
func dayOfNextWeek(wd time.Weekday, now time.Time) time.Time {
	fromMonday := func(d time.Weekday) int { return (int(d) + 6) % 7 }
	return now.AddDate(0, 0, 7-fromMonday(now.Weekday())+fromMonday(wd))
}

func SetReminder(s Schedule) *command.Command {
	return &command.Command{
		Name:        "set_reminder",
		Description: "Remind the user of something at a time or after a while.",
		Keywords:    []string{"remind", "reminder", "make sure i", "don't let me forget", "do not let me forget"},
		Parameters: []command.Parameter{
			{Name: "message", Type: "string", Required: true, Description: "what to remind of, e.g. call mom", Ask: locale.Key("What should I remind you of?")},
			{Name: "at", Type: "string", Description: "time of day, HH:MM 24-hour", Check: checkClock, Ask: locale.Key("When should I remind you?")},
			{Name: "day", Type: "string", Description: "today, tomorrow, a weekday or YYYY-MM-DD"},
			{Name: "in", Type: "timedelta", Description: "after this long, e.g. PT20M"},
		},
		Examples:   []command.Example{{Utterance: "remind me to call mom at 5 pm", Arguments: map[string]any{"message": "call mom", "at": "17:00"}}},
		Intents:    []string{"set_reminder"},
		FromIntent: reminderFromIntent,
		Refine:     refineReminder,
		Validate: func(ctx context.Context, a command.Args) []command.Problem {
			if !a.Has("at") && !a.Has("in") && !a.Has("day") {
				return []command.Problem{{Param: "at", Message: "say when: a time (at) or a delay (in)"}}
			}
			return nil
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			l := lang(c)
			msg := l.Yours(asSaid(c.Utterance, c.Args.String("message"))) // "den Müll", not "den müll"
			var due time.Time
			switch {
			case c.Args.Has("in"):
				due = c.Now.Add(c.Args.Duration("in"))
			case c.ClockUnset:
				return command.Failed(l.T("I can't set reminders for a time of day until my clock is set; I'm still getting the time. A reminder in so many minutes works now.")), nil
			default:
				day := c.Now
				if d := c.Args.String("day"); d != "" {
					var err error
					if day, err = parseDay(d, c.Now); err != nil {
						return command.Response{Kind: command.Invalid, Spoken: l.T("Which day should I remind you?"), Problems: []command.Problem{{Param: "day", Message: err.Error()}}}, nil
					}
				}
				ct := utterance.ClockTime{Hour: 9, Explicit: true} // a day without a time: the morning
				if at := c.Args.String("at"); at != "" {
					var err error
					if ct, err = parseClock(at); err != nil {
						return command.Response{}, err
					}
				}
				due = reminderTime(ct, day, c.Args.String("day") != "", c.Now)
			}
			var it storage.Item
			var err error
			if c.Args.Has("in") {
				it, err = s.AddReminderIn(ctx, msg, c.Args.Duration("in"))
			} else {
				it, err = s.AddReminder(ctx, msg, due)
			}
			switch {
			case errors.Is(err, schedule.ErrClockNotSet):
				return command.Failed(l.T("I can't set reminders for a time of day until my clock is set; I'm still getting the time. A reminder in so many minutes works now.")), nil
			case errors.Is(err, schedule.ErrInvalid):
				return command.Failed(l.T("That time has already passed.")), nil
			case err != nil:
				return command.Response{}, err
			}
			when := l.T("at %s", l.When(due, c.Now))
			if c.Args.Has("in") {
				when = l.T("in %s", l.After(c.Args.Duration("in")))
			}
			said := l.T("OK, I'll remind you to %s %s.", strings.TrimPrefix(msg, "to "), when)
			switch l.RemindOf(c.Utterance, c.Args.String("message")) {
			case locale.RemindThing: // "an den Ofen", "lo del horno"
				said = l.T("OK, I'll remind you about %s %s.", msg, when)
			case locale.RemindClause: // "daran, dass ...", "that ..."
				said = l.T("OK, I'll remind you %[2]s that %[1]s.", msg, when)
			}
			return command.Said(said, map[string]any{"reminder_id": it.ID, "due": due.Format(time.RFC3339), "message": msg}), nil
		},
	}
}

// reminderTime places a time of day on a day. A time said without morning
// or evening is the sooner of the two when the day is today; on another day
// 7 to 11 is the morning and 1 to 6 the afternoon. Without a day named, a
// time already past today means tomorrow.
func reminderTime(ct utterance.ClockTime, day time.Time, dayNamed bool, now time.Time) time.Time {
	sameDay := day.YearDay() == now.YearDay() && day.Year() == now.Year()
	if !ct.Explicit && ct.Hour < 12 && sameDay {
		return ct.Next(now)
	}
	hour := ct.Hour
	if !ct.Explicit && ct.Hour >= 1 && ct.Hour <= 6 {
		hour += 12
	}
	due := time.Date(day.Year(), day.Month(), day.Day(), hour, ct.Minute, 0, 0, now.Location())
	if !due.After(now) && !dayNamed {
		due = due.AddDate(0, 0, 1)
	}
	return due
}

func args2has(m map[string]any, k string) bool { _, ok := m[k]; return ok }

func isWeekday(w string) bool { return len(utterance.FindDays([]string{w}).Days) == 1 }

// ListReminders is list_reminders: reminders and alarms still to come.
func ListReminders(s Schedule) *command.Command {
	return &command.Command{
		Name:        "list_reminders",
		Description: "List upcoming reminders and alarms.",
		Keywords:    []string{"reminders", "alarms", "list"},
		Parameters:  []command.Parameter{{Name: "kind", Type: "string", Enum: []string{"all", "reminders", "alarms"}, Default: "all"}},
		Intents:     []string{"list_reminders"},
		FromIntent:  listFromIntent,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			kinds := map[string][]storage.ItemKind{"all": {storage.Reminder, storage.Alarm}, "reminders": {storage.Reminder}, "alarms": {storage.Alarm}}[c.Args.String("kind")]
			items, err := s.Pending(ctx, kinds...)
			if err != nil {
				return command.Response{}, err
			}
			l := lang(c)
			if c.Args.Bool("next") && len(items) > 0 && c.Args.String("kind") == "alarms" {
				return nextAlarm(l, items[0], c.Now), nil
			}
			var reminders, alarms []string
			var list []map[string]any
			for _, it := range items {
				list = append(list, map[string]any{"kind": it.Kind, "name": it.Name, "due": it.Due.Format(time.RFC3339)})
				if it.Kind == storage.Reminder {
					reminders = append(reminders, l.T("%s at %s", it.Name, l.When(it.Due, c.Now)))
				} else {
					alarms = append(alarms, describeAlarm(l, it, c.Now))
				}
			}
			var parts []string
			if len(reminders) > 0 {
				parts = append(parts, counted(l, len(reminders), locale.Key("1 reminder: %s"), locale.Key("%d reminders: %s"), l.And(reminders)))
			}
			if len(alarms) > 0 {
				parts = append(parts, counted(l, len(alarms), locale.Key("1 alarm: %s"), locale.Key("%d alarms: %s"), l.And(alarms)))
			}
			data := map[string]any{"items": list}
			if len(parts) == 0 {
				none := map[string]string{"all": l.T("You have no reminders or alarms."), "reminders": l.T("You have no reminders."), "alarms": l.T("You have no alarms.")}
				return command.Said(none[c.Args.String("kind")], data), nil
			}
			return command.Said(l.T("You have %s.", strings.Join(parts, l.T(". And "))), data), nil
		},
	}
}

// nextAlarm says when the soonest of the alarms rings: a repeating one
// by the day it rings next ("Your next alarm is at 7:00 AM tomorrow").
func nextAlarm(l locale.Lang, it storage.Item, now time.Time) command.Response {
	when := describeAlarm(l, it, now)
	if !it.Held {
		when = l.When(it.Due, now)
	}
	return command.Said(l.T("Your next alarm is at %s.", when),
		map[string]any{"items": []map[string]any{{"kind": it.Kind, "name": it.Name, "due": it.Due.Format(time.RFC3339)}}})
}

// CancelReminder is cancel_reminder: a reminder or an alarm.
func CancelReminder(s Schedule, alerts Alerts) *command.Command {
	return &command.Command{
		Name:        "cancel_reminder",
		Description: "Cancel a reminder or an alarm.",
		Keywords:    []string{"cancel", "reminder", "alarm"},
		Parameters: []command.Parameter{
			{Name: "kind", Type: "string", Enum: []string{"reminder", "alarm"}, Default: "reminder"},
			{Name: "which", Type: "string", Description: "words of the reminder, or the alarm's time or days"},
			{Name: "all", Type: "bool"},
		},
		Intents:    []string{"cancel_reminder"},
		FromIntent: cancelReminderFromIntent,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			l := lang(c)
			kind := storage.ItemKind(c.Args.String("kind"))
			items, err := s.Pending(ctx, kind)
			if err != nil {
				return command.Response{}, err
			}
			which := c.Args.String("which")
			if which == "" && !c.Args.Bool("all") {
				if r, ok := justRangStopped(ctx, l, alerts, kind); ok {
					return r, nil
				}
			}
			if which != "" && !c.Args.Bool("all") {
				items = matching(l, items, which)
			}
			switch {
			case len(items) == 0 && kind == storage.Alarm && alerts != nil && alerts.StopAlerts():
				return command.Said(ringingStopped(ctx, l, true), map[string]any{"stopped_ringing": true}), nil
			case len(items) == 0:
				return command.Said(l.T(map[storage.ItemKind]string{storage.Alarm: locale.Key("I couldn't find that alarm."), storage.Reminder: locale.Key("I couldn't find that reminder.")}[kind]), nil), nil
			case len(items) > 1 && !c.Args.Bool("all"):
				var names []string
				for _, it := range items {
					names = append(names, describeItem(l, it, c.Now))
				}
				return command.Response{Kind: command.Invalid, Spoken: l.T(map[storage.ItemKind]string{storage.Alarm: locale.Key("Which alarm: %s?"), storage.Reminder: locale.Key("Which reminder: %s?")}[kind], l.Or(names)),
					Problems: []command.Problem{{Param: "which", Message: "several match", Valid: names}}}, nil
			}
			for _, it := range items {
				if _, err := s.Cancel(ctx, it.ID); err != nil {
					return command.Response{}, err
				}
			}
			if len(items) > 1 {
				if kind == storage.Reminder {
					return command.Said(l.T("Cancelled all %d reminders.", len(items)), map[string]any{"cancelled": len(items)}), nil
				}
				return command.Said(l.T("Cancelled all %d alarms.", len(items)), map[string]any{"cancelled": len(items)}), nil
			}
			if kind == storage.Reminder {
				return command.Said(l.T("Cancelled the reminder to %s.", describeItem(l, items[0], c.Now)), map[string]any{"cancelled": 1}), nil
			}
			return command.Said(l.T("Cancelled the alarm for %s.", describeItem(l, items[0], c.Now)), map[string]any{"cancelled": 1}), nil
		},
	}
}

func describeItem(l locale.Lang, it storage.Item, now time.Time) string {
	if it.Kind == storage.Alarm {
		return describeAlarm(l, it, now)
	}
	return l.T("%s at %s", it.Name, l.When(it.Due, now))
}

// alarmWhich is an alarm named by its time of day, its days, or both:
// "7", "weekday", "6:30 on weekends".
type alarmWhich struct {
	clock *utterance.ClockTime
	days  utterance.Days
}

// readAlarmWhich reads which (English) as an alarm's time and days, with
// nothing else in it; false when it names neither.
func readAlarmWhich(which string) (alarmWhich, bool) {
	words := utterance.Words(utterance.Normalize(which))
	var w alarmWhich
	rest := words
	if c, at, n, ok := utterance.FindClock(words); ok {
		w.clock = &c
		rest = slices.Concat(words[:at], words[at+n:])
	}
	for _, x := range rest {
		if !slices.Contains(whenWords, x) && !isWeekday(x) && !isWeekday(strings.TrimSuffix(x, "s")) {
			return alarmWhich{}, false
		}
	}
	w.days = utterance.FindDays(rest)
	return w, w.clock != nil || len(w.days.Days) > 0
}

// matches reports whether the alarm it is the one w names: at its time
// ("7" is 07:00 or 19:00), on its days (a repeating alarm on the same
// days, a one-off on the one day named).
func (w alarmWhich) matches(it storage.Item) bool {
	if c := w.clock; c != nil && (it.Minute != c.Minute || it.Hour != c.Hour && (c.Explicit || it.Hour%12 != c.Hour%12)) {
		return false
	}
	if want := w.days.Days; len(want) > 0 {
		switch {
		case len(it.Days) > 0:
			return len(it.Days) == len(want) && !slices.ContainsFunc(it.Days, func(d time.Weekday) bool { return !slices.Contains(want, d) })
		case len(want) == 1 && !w.days.Repeat:
			return !it.Held && it.Due.Weekday() == want[0]
		}
		return false
	}
	return true
}

// matching keeps the items that which describes: an alarm by its time of
// day or its days, a reminder by the words of its message.
func matching(l locale.Lang, items []storage.Item, which string) []storage.Item {
	var out []storage.Item
	aw, isWhen := readAlarmWhich(which)
	want := storage.ContentWords(l.Yours(utterance.Normalize(which)))
	for _, it := range items {
		switch {
		case it.Kind == storage.Alarm && isWhen:
			if aw.matches(it) {
				out = append(out, it)
			}
		case it.Kind == storage.Reminder:
			have := storage.ContentWords(it.Name)
			n := 0
			for w := range want {
				if have[w] {
					n++
				}
			}
			if n > 0 && 2*n >= len(want) {
				out = append(out, it)
			}
		case !isWhen:
			out = append(out, it)
		}
	}
	return out
}

// counted says a list with its count: the key one for a single item, many
// (with the count) for more.
func counted(l locale.Lang, n int, one, many, list string) string {
	if n == 1 {
		return l.T(one, list)
	}
	return l.T(many, n, list)
}

func readAlarm(text string) (command.Claim, bool) {
	t := trim(text)
	if !hasPhrase(t, "alarm", "wake me", "wake me up") || hasPhrase(t, cancelVerbs...) || hasPhrase(t, "what", "when", "list", "any", "which", "show") {
		return noClaim, false
	}
	words := tonightAfter(utterance.Words(t))
	_, at, n, ok := utterance.FindClock(words, "for", "at", "alarm", "to")
	if !ok {
		return noClaim, false
	}
	args := map[string]any{"time": strings.Join(words[at:at+n], " ")}
	rest := append(slices.Clone(words[:at]), words[at+n:]...)
	_, after := dayAfterTomorrow(rest)
	switch d := utterance.FindDays(rest); {
	case after > 0:
		args["day"] = "day after tomorrow"
	case len(d.Days) > 1 && !d.Repeat: // "on saturday and sunday": once on each, or every weekend?
		return noClaim, false
	case nextWeek(rest) != "":
		args["day"] = nextWeek(rest)
	case d.Repeat:
		args["repeat"] = dayNames(d.Days)
	case d.Offset == 1:
		args["day"] = "tomorrow"
	case d.Offset == 0:
		args["day"] = "today"
	case len(d.Days) == 1:
		args["day"] = strings.ToLower(d.Days[0].String())
	}
	return claim(args)
}

// isDate reports whether d is a date of the calendar ("december 5"),
// not a day counted from today or a weekday.
func isDate(d utterance.Day) bool {
	f := strings.Fields(d.String())
	return len(f) > 1 && slices.Contains(calendarMonths, f[0])
}

var calendarMonths = []string{"january", "february", "march", "april", "may", "june", "july", "august", "september",
	"october", "november", "december"}

// findDate finds a date of the calendar in words ("on the 5th of
// december", "january 12"), with "on" before it or not: the date as
// parseDay reads it, where it starts and how many words it is. The
// longest from the first place one starts wins.
func findDate(words []string) (day string, at, n int) {
	for i := range words {
		for j := min(len(words), i+5); j > i+1; j-- {
			if !slices.ContainsFunc(words[i:j], func(w string) bool { return slices.Contains(calendarMonths, w) }) {
				continue
			}
			if d, ok := utterance.ReadDay(words[i:j]); ok && isDate(d) {
				at, n = i, j-i
				if at > 0 && words[at-1] == "on" {
					at, n = at-1, n+1
				}
				return d.String(), at, n
			}
		}
	}
	return "", 0, 0
}

// dayAfterTomorrow finds "the day after tomorrow" in words, with "on" or
// "the" before it or not: where it starts and how many words it is.
func dayAfterTomorrow(words []string) (at, n int) {
	for i := 0; i+3 <= len(words); i++ {
		if words[i] != "day" || words[i+1] != "after" || words[i+2] != "tomorrow" {
			continue
		}
		at, n = i, 3
		if at > 0 && words[at-1] == "the" {
			at, n = at-1, n+1
		}
		if at > 0 && words[at-1] == "on" {
			at, n = at-1, n+1
		}
		return at, n
	}
	return 0, 0
}

// nextWeek is the day of next week words name ("monday next week"), or "".
func nextWeek(words []string) string {
	for i := 0; i+2 < len(words); i++ {
		if words[i+1] == "next" && words[i+2] == "week" && isWeekday(words[i]) && !strings.HasSuffix(words[i], "s") {
			return words[i] + " next week"
		}
	}
	return ""
}

// tonightAfter moves "tonight" said before a time without morning or
// evening after it, where the clock reads it: "tonight at 12" is "at 12
// tonight", midnight, and "tonight at 1" one in the morning.
func tonightAfter(words []string) []string {
	i := slices.Index(words, "tonight")
	if i < 0 || i+2 >= len(words) || words[i+1] != "at" {
		return words
	}
	c, n, ok := utterance.Clock(words[i+2:])
	if !ok || c.Explicit {
		return words
	}
	end := i + 2 + n
	return slices.Concat(words[:i], words[i+1:end], []string{"tonight"}, words[end:])
}

func readReminder(text string) (command.Claim, bool) {
	t := trim(text)
	var rest string
	for _, lead := range []string{"remind me", "set a reminder", "create a reminder", "add a reminder", "make a reminder"} {
		if r, ok := strings.CutPrefix(t, lead); ok {
			rest = strings.TrimSpace(r)
			break
		}
	}
	if rest == "" {
		return noClaim, false
	}
	words := tonightAfter(utterance.Words(rest))
	if slices.ContainsFunc(words, func(w string) bool {
		return slices.Contains(repeatWords, w) || isWeekday(w) && strings.HasSuffix(w, "s") // "on mondays"
	}) {
		return noClaim, false // the schedule keeps one-off reminders: the model says so
	}
	args, used := readWhen(words)
	var msg []string
	for i, w := range words {
		if !used[i] {
			msg = append(msg, w)
		}
	}
	message := strings.Join(msg, " ")
	for _, c := range []string{"to ", "that ", "about ", "of "} {
		message = strings.TrimPrefix(message, c)
	}
	message = strings.TrimSuffix(strings.TrimSuffix(message, " to"), " and")
	if message == "" && len(args) > 0 && !slices.Contains(used, false) {
		return claim(args) // "remind me at 6 pm": what of is asked
	}
	if message == "" || len(args) == 0 && !plainTask(rest) {
		return noClaim, false
	}
	args["message"] = message
	return claim(args)
}

// noAnswers are the answers to "What should I remind you of?" that are
// none: the reminder is not set.
var noAnswers = []string{"no", "nothing", "never mind", "nevermind", "stop", "cancel", "cancel that", "cancel it",
	"forget it", "forget that", "no thanks", "no thank you", "nothing thanks", "none"}

// repeatWords say a reminder repeats ("every day", "daily"), which the
// offline path cannot set.
var repeatWords = []string{"every", "everyday", "daily", "weekly", "nightly", "hourly"}

// readWhen reads when a reminder is due from its words: after a while ("in
// 20 minutes"), at a time of day, on a day ("tomorrow", "on friday", "next
// friday"). used marks the words it took.
func readWhen(words []string) (args map[string]any, used []bool) {
	used = make([]bool, len(words))
	args = map[string]any{}
	for i := range words {
		if words[i] != "in" || i+1 >= len(words) {
			continue
		}
		if d, n, ok := utterance.Duration(words[i+1:]); ok {
			args["in"] = d
			for j := i; j <= i+n; j++ {
				used[j] = true
			}
			break
		}
	}
	if _, at, n, ok := utterance.FindClock(words, "at", "by"); ok {
		args["at"] = strings.Join(words[at:at+n], " ")
		for j := at - 1; j < at+n; j++ {
			used[j] = true
		}
	}
	if d, at, n := findDate(words); n > 0 {
		args["day"] = d
		for j := at; j < at+n; j++ {
			used[j] = true
		}
	}
	if at, n := dayAfterTomorrow(words); n > 0 {
		args["day"] = "day after tomorrow"
		for j := at; j < at+n; j++ {
			used[j] = true
		}
	}
	for i, w := range words {
		switch {
		case used[i]: // "tonight" of "at 12 tonight" is the clock's
		case w == "tomorrow" || w == "today" || w == "tonight":
			args["day"], used[i] = w, true
			if w == "tonight" && !args2has(args, "at") {
				args["at"] = "20:00"
			}
		case i+2 < len(words) && words[i+1] == "next" && words[i+2] == "week" && isWeekday(w) && !strings.HasSuffix(w, "s"): // "monday next week"
			args["day"], used[i], used[i+1], used[i+2] = w+" next week", true, true, true
			if i > 0 && words[i-1] == "on" {
				used[i-1] = true
			}
		case i > 0 && (words[i-1] == "on" || words[i-1] == "next") && isWeekday(w): // "next monday" is the coming one
			args["day"], used[i], used[i-1] = w, true, true
			if i > 1 && words[i-1] == "next" && words[i-2] == "on" {
				used[i-2] = true
			}
		case i+1 < len(words) && words[i+1] == "at" && used[i+1] && isWeekday(w) && !strings.HasSuffix(w, "s"): // "monday at 9", not "mondays"
			args["day"], used[i] = w, true
		case i > 1 && i == len(words)-1 && isWeekday(w) && !strings.HasSuffix(w, "s") && !slices.Contains(dayOwners, words[i-1]): // "to call the doctor monday", not "for sunday"
			args["day"], used[i] = w, true
		}
	}
	for i := 1; i < len(words); i++ { // "monday morning", "tomorrow afternoon"
		part, ok := partsOfDay[words[i]]
		if ok && !used[i] && !used[i-1] && words[i-1] == "this" && !args2has(args, "day") { // "this evening"
			args["day"], used[i-1] = "today", true
		}
		if !ok || used[i] || !used[i-1] || words[i-1] != "tomorrow" && words[i-1] != "this" && !isWeekday(words[i-1]) {
			continue
		}
		used[i] = true
		switch at, _ := args["at"].(string); {
		case at == "":
			args["at"] = part.at
		case !strings.HasSuffix(at, "am") && !strings.HasSuffix(at, "pm"):
			args["at"] = at + " " + part.half
		}
	}
	return args, used
}

// partsOfDay are the parts of a day said after it ("monday morning"):
// when a reminder is due in one said without a time, and the half of the
// day of a time said with one.
var partsOfDay = map[string]struct{ at, half string }{
	"morning": {"9 am", "am"}, "afternoon": {"3 pm", "pm"}, "evening": {"7 pm", "pm"}, "night": {"9 pm", "pm"},
}

// dayOwners are the words before a day that make it the message's, not
// when it is due: "flowers for sunday".
var dayOwners = []string{"for", "until", "till", "before", "after", "by", "since", "from", "of", "about", "on", "next", "last", "this"}

// timeWords hint at a time the reminder readers do not read ("next week",
// "later"): a reminder that says one is left to the model, not asked when.
var timeWords = []string{"next", "later", "soon", "week", "month", "year", "morning", "afternoon", "evening", "night",
	"tonight", "tomorrow", "today", "weekend", "before", "after", "until", "when", "every", "o'clock", "noon", "midnight"}

// plainTask reports whether what follows "remind me" is a task and nothing
// that might be a time: "to water the plants", not "next week to call".
func plainTask(rest string) bool {
	words := utterance.Words(rest)
	if len(words) < 2 || words[0] != "to" {
		return false
	}
	for _, w := range words {
		if slices.Contains(timeWords, w) || isWeekday(w) || strings.ContainsAny(w, "0123456789") {
			return false
		}
		if _, _, ok := utterance.Number([]string{w}); ok && w != "a" && w != "an" {
			return false
		}
	}
	return true
}

// refineReminder reads the answer to "When should I remind you?" ("at 6
// pm", "in an hour", "tomorrow at 9"): only for a reminder still without
// a time, and only an answer that is all time. For one with a time and
// no message, the answer to "What should I remind you of?" is the
// message ("to water the plants"), but for a no.
func refineReminder(text string, last command.Args) (command.Args, bool) {
	if !last.Has("message") {
		msg := trim(text)
		for _, c := range []string{"to ", "that ", "about ", "of ", "de "} { // "de": French, "de sortir les poubelles"
			msg = strings.TrimPrefix(msg, c)
		}
		if msg == "" || slices.Contains(noAnswers, msg) {
			return nil, false
		}
		return command.Args{"message": msg}, true
	}
	if last.Has("at") || last.Has("in") || last.Has("day") {
		return nil, false
	}
	words := tonightAfter(utterance.Words(trim(text)))
	args, used := readWhen(words)
	if len(args) == 0 || slices.Contains(used, false) {
		return nil, false
	}
	return args, true
}
