package builtin

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/storage"
)

// TestSnoozeRingsAgain: the work alarm rings at 7; "snooze" silences it
// and it rings again 9 minutes on, still the work alarm; "snooze for 5
// minutes" 5 minutes on.
func TestSnoozeRingsAgain(t *testing.T) {
	for _, tt := range []struct {
		say, said string
		after     time.Duration
	}{
		{"snooze", "I'll ring again at 7:09 AM.", 9 * time.Minute},
		{"snooze for 5 minutes", "I'll ring again at 7:05 AM.", 5 * time.Minute},
	} {
		synctest.Test(t, func(t *testing.T) {
			f := ringing(t) // the bubble starts at 01:00 in Berlin
			if _, err := f.sched.AddAlarm(t.Context(), "work", 7, 0, nil, time.Time{}); err != nil {
				t.Fatal(err)
			}
			time.Sleep(6*time.Hour + time.Second)
			synctest.Wait()
			if len(f.stops.rung()) != 1 || !f.stops.isRinging() {
				t.Fatalf("rang %v; want the work alarm ringing", f.stops.rung())
			}
			said, r := f.say(t, tt.say)
			if said != tt.said || f.stops.isRinging() {
				t.Errorf("%q as the alarm rang: said %q (%v), ringing %v; want %q and the ringing stopped", tt.say, said, r.Data, f.stops.isRinging(), tt.said)
			}
			time.Sleep(tt.after - time.Second - time.Millisecond)
			synctest.Wait()
			if len(f.stops.rung()) != 1 {
				t.Fatalf("%q: rang again too soon: %v", tt.say, f.stops.rung())
			}
			time.Sleep(2 * time.Millisecond)
			synctest.Wait()
			if len(f.stops.rung()) != 2 || f.stops.rung()[1].Name != "work" || f.stops.rung()[1].Kind != storage.Alarm {
				t.Errorf("%q: rang %v; want the work alarm again %s after it first rang", tt.say, f.stops.rung(), tt.after)
			}
		})
	}
}

// TestSnoozeInEachLanguage: while an alarm rings (or has just rung),
// snoozing in each language stops it and sets one alarm, 9 minutes on
// unless another number of minutes is said; the model snoozes through the
// snooze tool. The fixture's clock is Sunday 10:15.
func TestSnoozeInEachLanguage(t *testing.T) {
	for _, tt := range []struct {
		l        locale.Lang
		say, due string
	}{
		{locale.English, "snooze", "10:24"},
		{locale.English, "snooze the alarm", "10:24"},
		{locale.English, "snooze for 5 minutes", "10:20"},
		{locale.German, "schlummern", "10:24"},
		{locale.German, "Schlummer", "10:24"},
		{locale.German, "noch 5 Minuten", "10:20"},
		{locale.German, "schlummern für 10 Minuten", "10:25"},
		{locale.Spanish, "posponer", "10:24"},
		{locale.Spanish, "repetir en 5 minutos", "10:20"},
		{locale.French, "répéter", "10:24"},
		{locale.French, "rappelle dans 5 minutes", "10:20"},
		{locale.French, "snooze", "10:24"},
	} {
		f := newFixture(t)
		f.stops.ringing = true
		f.stops.rang = []storage.Item{{ID: "a1", Kind: storage.Alarm, Name: "work", Hour: 10, Minute: 15, Due: f.now}}
		ctx := locale.WithLanguage(t.Context(), string(tt.l))
		u := f.reg.Understand(ctx, tt.l, tt.say)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s)", tt.l, tt.say, u.Reason, u.Detail)
			continue
		}
		r := f.reg.RunRoute(ctx, u.Route, tt.say)
		alarms, _ := f.sched.Pending(t.Context(), storage.Alarm)
		if f.stops.ringing || len(alarms) != 1 || alarms[0].Due.In(berlin).Format("15:04") != tt.due || alarms[0].Name != "work" {
			t.Errorf("%s %q: said %q, ringing %v, alarms %+v; want the ringing stopped and the work alarm at %s", tt.l, tt.say, r.Spoken, f.stops.ringing, alarms, tt.due)
		}
		if !strings.Contains(r.Spoken, strings.TrimPrefix(tt.due, "10:")) {
			t.Errorf("%s %q: said %q; want the time it rings again, %s", tt.l, tt.say, r.Spoken, tt.due)
		}
	}
	f := newFixture(t)
	f.stops.ringing = true
	f.stops.rang = []storage.Item{{ID: "a1", Kind: storage.Alarm, Hour: 10, Minute: 15, Due: f.now}}
	r := f.reg.Call(t.Context(), "snooze", map[string]any{"minutes": 5}, "give me five more minutes")
	if alarms, _ := f.sched.Pending(t.Context(), storage.Alarm); len(alarms) != 1 || alarms[0].Due.In(berlin).Format("15:04") != "10:20" || f.stops.ringing {
		t.Errorf("the model's snooze of 5 minutes: said %q, alarms %+v, ringing %v; want one alarm at 10:20", r.Spoken, alarms, f.stops.ringing)
	}
}

// TestNothingToSnooze: with no alarm ringing or just rung, snoozing says
// so and sets nothing; a timer that just rang is not snoozed.
func TestNothingToSnooze(t *testing.T) {
	f := newFixture(t)
	f.stops.rang = []storage.Item{{ID: "t1", Kind: storage.Timer, Due: f.now}}
	for _, s := range []string{"snooze", "snooze for 5 minutes"} {
		said, _ := f.say(t, s)
		if said != "There's no alarm to snooze." {
			t.Errorf("%q with nothing ringing: said %q", s, said)
		}
	}
	if alarms, _ := f.sched.Pending(t.Context(), storage.Alarm); len(alarms) != 0 {
		t.Errorf("alarms %+v after snoozing nothing; want none", alarms)
	}
}
