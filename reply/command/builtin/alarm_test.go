package builtin

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/storage"
)

// TestAlarmHourIsAWakeUp: an alarm said without morning or evening at an
// hour from 5 to 11 is the morning's, though the evening's comes sooner:
// an alarm wakes, and a missed wake-up is the worse mistake. Hours 1 to
// 4 and 12 keep the sooner of the two; an evening said, or a 24-hour
// time, is the evening; reminders keep their own rule. The fixture's
// clock is Sunday 10:15.
func TestAlarmHourIsAWakeUp(t *testing.T) {
	for l, cases := range map[locale.Lang][]struct {
		say string
		due string
	}{
		locale.English: {
			{"set an alarm for 7", "Mon 07:00"},
			{"wake me up at 7", "Mon 07:00"},
			{"set an alarm for 5", "Mon 05:00"},
			{"set an alarm for 11:30", "Sun 11:30"},
			{"set an alarm for 3", "Sun 15:00"},
			{"set an alarm for 12:30", "Sun 12:30"},
			{"set an alarm for 7 pm", "Sun 19:00"},
			{"set an alarm for 7 in the evening", "Sun 19:00"},
			{"set an alarm for 19:00", "Sun 19:00"},
			{"remind me at 7 to call mom", "Sun 19:00"},
		},
		locale.German: {
			{"weck mich um halb sieben", "Mon 06:30"},
			{"stell einen Wecker auf 6 Uhr 30", "Mon 06:30"},
			{"stell einen Wecker auf 7 Uhr", "Mon 07:00"},
			{"stell einen Wecker auf 19 Uhr", "Sun 19:00"},
			{"weck mich abends um sieben", "Sun 19:00"},
		},
		locale.French: {
			{"mets un réveil à 7 heures", "Mon 07:00"},
			{"réveille-moi à 7 heures", "Mon 07:00"},
			{"réveille-moi à 19 heures", "Sun 19:00"},
			{"réveille-moi à 7 heures du soir", "Sun 19:00"},
		},
		locale.Spanish: {
			{"despiértame a las 7", "Mon 07:00"},
			{"pon una alarma a las 7", "Mon 07:00"},
			{"pon una alarma a las 7 de la tarde", "Sun 19:00"},
		},
	} {
		for _, c := range cases {
			ringsAt(t, l, c.say, c.due)
		}
	}
}

// TestAlarmAfterAWhile: an alarm said as a while from now ("in 8 hours")
// rings then, to the minute, in each language, and the answer names the
// time it rings. The fixture's clock is Sunday 10:15.
func TestAlarmAfterAWhile(t *testing.T) {
	for l, cases := range map[locale.Lang][]struct{ say, due string }{
		locale.English: {
			{"set an alarm in 8 hours", "Sun 18:15"},
			{"set an alarm for 20 minutes from now", "Sun 10:35"},
			{"wake me up in 16 hours", "Mon 02:15"},
			{"set an alarm in an hour and a half", "Sun 11:45"},
		},
		locale.German:  {{"stell einen Wecker in 8 Stunden", "Sun 18:15"}, {"weck mich in zwanzig Minuten", "Sun 10:35"}},
		locale.French:  {{"mets un réveil dans 8 heures", "Sun 18:15"}, {"réveille-moi dans vingt minutes", "Sun 10:35"}},
		locale.Spanish: {{"pon una alarma dentro de 8 horas", "Sun 18:15"}, {"despiértame en veinte minutos", "Sun 10:35"}},
	} {
		for _, c := range cases {
			ringsAt(t, l, c.say, c.due)
		}
	}
	f := newFixture(t)
	if said, _ := f.say(t, "set an alarm in 8 hours"); said != "Alarm set for 6:15 PM today." {
		t.Errorf("\"set an alarm in 8 hours\" at 10:15: said %q, want %q", said, "Alarm set for 6:15 PM today.")
	}
}

// TestAlarmSaysWhen: the answer names the day and the half of it, so a
// household that meant the evening hears the morning was set.
func TestAlarmSaysWhen(t *testing.T) {
	f := newFixture(t)
	if said, _ := f.say(t, "set an alarm for 7"); said != "Alarm set for 7:00 AM tomorrow." {
		t.Errorf("\"set an alarm for 7\" at 10:15: said %q, want %q", said, "Alarm set for 7:00 AM tomorrow.")
	}
}

// TestCancelAllWording: cancelling every alarm or reminder is said as
// cancelling every timer is: "Cancelled all 2 alarms.", in each language.
func TestCancelAllWording(t *testing.T) {
	for _, tt := range []struct {
		l            locale.Lang
		set          []string
		cancel, want string
	}{
		{locale.English, []string{"set a timer for 5 minutes", "set a timer for 8 minutes"}, "cancel all timers", "Cancelled all 2 timers."},
		{locale.English, []string{"set an alarm for 7 am", "set an alarm for 8 am"}, "cancel all alarms", "Cancelled all 2 alarms."},
		{locale.English, []string{"remind me at 5 pm to call mom", "remind me at 6 pm to feed the cat"}, "cancel all reminders", "Cancelled all 2 reminders."},
		{locale.German, []string{"stell einen Wecker auf 7 Uhr", "stell einen Wecker auf 8 Uhr"}, "lösche alle Wecker", "Alle 2 Wecker gelöscht."},
	} {
		f := newFixture(t)
		ctx := locale.WithLanguage(t.Context(), string(tt.l))
		for _, s := range append(tt.set, tt.cancel) {
			u := f.reg.Understand(ctx, tt.l, s)
			if !u.OK {
				t.Fatalf("%s %q: not understood (%s %s)", tt.l, s, u.Reason, u.Detail)
			}
			if r := f.reg.RunRoute(ctx, u.Route, s); s == tt.cancel && r.Spoken != tt.want {
				t.Errorf("%s %q: said %q, want %q", tt.l, s, r.Spoken, tt.want)
			}
		}
	}
}

// TestRefiningAnAlarm: right after an alarm is set, "make it 7 am" or "no,
// 7 pm" changes that alarm: one alarm, at the new time.
func TestRefiningAnAlarm(t *testing.T) {
	for _, tt := range []struct {
		set, say, due, said string
	}{
		{"set an alarm for 7 pm", "make it 7 am", "Mon 07:00", "Alarm set for 7:00 AM tomorrow."},
		{"set an alarm for 7", "no, 7 pm", "Sun 19:00", "Alarm set for 7:00 PM today."},
		{"wake me up at 6:30 tomorrow", "actually 6:45", "Mon 06:45", "Alarm set for 6:45 AM tomorrow."},
		{"set an alarm for 3", "make that 3 am", "Mon 03:00", "Alarm set for 3:00 AM tomorrow."},
	} {
		f := newFixture(t)
		f.say(t, tt.set)
		f.now = f.now.Add(3 * time.Second)
		said, _ := f.say(t, tt.say)
		alarms, _ := f.sched.Pending(t.Context(), storage.Alarm)
		if len(alarms) != 1 || alarms[0].Due.In(berlin).Format("Mon 15:04") != tt.due || said != tt.said {
			var dues []string
			for _, a := range alarms {
				dues = append(dues, a.Due.In(berlin).Format("Mon 15:04"))
			}
			t.Errorf("%q after %q: said %q, alarms %v; want %q and one alarm at %s", tt.say, tt.set, said, dues, tt.said, tt.due)
		}
	}
}

// TestCancelOneOfSeveralAlarms: with several alarms set, one is cancelled
// by its time ("the 7 o'clock alarm", "den Wecker um 7") or by its days
// ("my weekday alarm"); the others are kept.
func TestCancelOneOfSeveralAlarms(t *testing.T) {
	alarms := map[locale.Lang][]string{
		locale.English: {"wake me up at 7 on weekdays", "set an alarm for 9 am on weekends", "set an alarm for 6:30 tomorrow"},
		locale.German:  {"weck mich werktags um 7 Uhr", "weck mich am Wochenende um 9 Uhr", "weck mich morgen um 6 Uhr 30"},
		locale.French:  {"réveille-moi en semaine à 7 heures", "réveille-moi le week-end à 9 heures", "réveille-moi demain à 6 h 30"},
		locale.Spanish: {"despiértame entre semana a las 7", "despiértame los fines de semana a las 9", "despiértame mañana a las 6 y media"},
	}
	for _, tt := range []struct {
		l         locale.Lang
		say, gone string // gone: the hour:minute of the alarm cancelled
	}{
		{locale.English, "delete my weekday alarm", "07:00"},
		{locale.English, "cancel the 7 o'clock alarm", "07:00"},
		{locale.English, "cancel the weekend alarm", "09:00"},
		{locale.English, "cancel my alarm at 6:30", "06:30"},
		{locale.German, "lösche den Wecker um 7", "07:00"},
		{locale.German, "lösche den Wecker am Wochenende", "09:00"},
		{locale.French, "supprime l'alarme en semaine", "07:00"},
		{locale.French, "supprime l'alarme de 9 heures", "09:00"},
		{locale.Spanish, "borra la alarma entre semana", "07:00"},
		{locale.Spanish, "borra la alarma de las 9", "09:00"},
	} {
		f := newFixture(t)
		ctx := locale.WithLanguage(t.Context(), string(tt.l))
		for _, s := range append(alarms[tt.l], tt.say) {
			u := f.reg.Understand(ctx, tt.l, s)
			if !u.OK {
				t.Errorf("%s %q: not understood (%s %s)", tt.l, s, u.Reason, u.Detail)
				break
			}
			f.reg.RunRoute(ctx, u.Route, s)
		}
		left, _ := f.sched.Pending(t.Context(), storage.Alarm)
		var kept []string
		for _, a := range left {
			kept = append(kept, fmt.Sprintf("%02d:%02d", a.Hour, a.Minute))
		}
		if len(left) != 2 || slices.Contains(kept, tt.gone) {
			t.Errorf("%s %q: alarms left %v; want the other two than %s", tt.l, tt.say, kept, tt.gone)
		}
	}
}

// TestDayOfNextWeek: "wednesday next week" is the Wednesday of the week
// after this one, weeks starting on Monday: nine days on from a Monday,
// three from the Sunday before it.
func TestDayOfNextWeek(t *testing.T) {
	monday := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		day  string
		now  time.Time
		want string
	}{
		{"wednesday next week", monday, "2026-12-09"},
		{"monday next week", monday, "2026-12-07"},
		{"sunday next week", monday, "2026-12-13"},
		{"wednesday next week", monday.AddDate(0, 0, -1), "2026-12-02"},
		{"monday next week", monday.AddDate(0, 0, -1), "2026-11-30"},
	} {
		got, err := parseDay(tt.day, tt.now)
		if err != nil {
			t.Errorf("%q on %s: %v", tt.day, tt.now.Weekday(), err)
		} else if got.Format("2006-01-02") != tt.want {
			t.Errorf("%q on %s: %s, want %s", tt.day, tt.now.Weekday(), got.Format("2006-01-02"), tt.want)
		}
	}
}

// TestDayAfterTomorrow: "the day after tomorrow" is two days on.
func TestDayAfterTomorrow(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for _, s := range []string{"day after tomorrow", "the day after tomorrow"} {
		if got, err := parseDay(s, now); err != nil || got.Format("2006-01-02") != "2026-12-02" {
			t.Errorf("%q: %v %v, want 2026-12-02", s, got, err)
		}
	}
}

// TestDayOfTheCalendar: a date said without a year is the next that has
// it.
func TestDayOfTheCalendar(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	for s, want := range map[string]string{"december 5": "2026-12-05", "january 12": "2027-01-12"} {
		if got, err := parseDay(s, now); err != nil || got.Format("2006-01-02") != want {
			t.Errorf("%q: %v %v, want %s", s, got, err, want)
		}
	}
}
