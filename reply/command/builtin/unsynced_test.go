package builtin

import (
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// unsetClock is a board's clock before NTP: 1 January 1970, not set.
type unsetClock struct{ now time.Time }

func (c *unsetClock) Now() time.Time           { return c.now }
func (c *unsetClock) Synced() bool             { return false }
func (c *unsetClock) Changed() <-chan struct{} { return nil }

// TestRequestsBeforeTheClockIsSet: what the box says to each request made
// before its clock is set. Before, "wake me at 7 tomorrow" at 1970 was set
// for Friday 2 January 1970 without a word, and "what time is it" said the
// 1970 time.
func TestRequestsBeforeTheClockIsSet(t *testing.T) {
	f := newFixture(t)
	clk := &unsetClock{now: time.Unix(5, 0).In(berlin)}
	f.sched, _ = schedule.New(schedule.Options{Store: f.db.Schedule(), Clock: clk, Location: berlin})
	f.reg = command.NewRegistry(command.Options{Now: clk.Now, Synced: clk.Synced, Location: berlin})
	if err := f.reg.Register(All(Deps{Schedule: f.sched, Alerts: f.stops, Mixer: f.mixer, Memory: f.db.Facts(), Status: fixedStatus{}})...); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ say, want string }{
		{"set a timer for 5 minutes", "Timer set for 5 minutes."},
		{"remind me in 20 minutes to check the oven", "OK, I'll remind you to check the oven in 20 minutes."},
		{"wake me up at 7 tomorrow", "Alarm set for 7:00 AM. My clock isn't set yet, so it will ring at the next 7:00 AM once it is."},
		{"set an alarm for 7:15 on weekdays", "Alarm set for 7:15 AM on weekdays. My clock isn't set yet, so it will ring at the next 7:15 AM once it is."},
		{"set an alarm for noon on saturday", "I can't set an alarm for a particular day until my clock is set; I'm still getting the time."},
		{"remind me to call mom at 5 pm", "I can't set reminders for a time of day until my clock is set; I'm still getting the time. A reminder in so many minutes works now."},
		{"what time is it", "I don't know the time yet: my clock isn't set. I'm still getting the time."},
	} {
		if got, _ := f.say(t, tc.say); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.say, got, tc.want)
		}
	}
	alarms, _ := f.sched.Pending(t.Context(), storage.Alarm)
	if len(alarms) != 2 || !alarms[0].Held || !alarms[1].Held {
		t.Errorf("alarms %+v, want two held", alarms)
	}
	if got, _ := f.say(t, "do I have any alarms"); !strings.Contains(got, "7:00 AM") || strings.Contains(got, "1970") || strings.Contains(got, "Friday") {
		t.Errorf("listing held alarms: %q", got)
	}
}
