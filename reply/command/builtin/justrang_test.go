package builtin

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// ringing is the built-ins over a scheduler that runs in a synctest
// bubble: what comes due rings, and is what has just rung.
func ringing(t *testing.T) *fixture {
	f := newFixture(t)
	f.sched, _ = schedule.New(schedule.Options{Store: f.db.Schedule(), Now: time.Now, Location: berlin})
	f.reg = command.NewRegistry(command.Options{Now: time.Now, Location: berlin})
	if err := f.reg.Register(All(Deps{Schedule: f.sched, Alerts: f.stops, Mixer: f.mixer, Memory: f.db.Facts(), Status: fixedStatus{}})...); err != nil {
		t.Fatal(err)
	}
	go f.sched.Run(t.Context(), func(a schedule.Alert) {
		f.stops.ring(a.Item)
	})
	return f
}

// TestStopWhatJustRang: the pasta timer rings while the roast's runs on;
// the press silences it and the household says "stop the timer": the
// pasta timer is meant, and the roast's runs on. The daily alarm rings;
// "turn off the alarm" silences it and keeps tomorrow's. Named, or with
// nothing just rung, the words cancel as before.
func TestStopWhatJustRang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := ringing(t)
		f.say(t, "set a pasta timer for 8 minutes")
		f.say(t, "set a roast timer for 90 minutes")
		f.say(t, "set a tea timer for 45 minutes")
		time.Sleep(8*time.Minute + time.Second)
		synctest.Wait()
		if len(f.stops.rung()) != 1 {
			t.Fatalf("rang %v; want the pasta timer", f.stops.rung())
		}
		f.stops.StopAlerts() // the press that begins the turn
		if said, r := f.say(t, "stop the timer"); r.Data["stopped_ringing"] != true {
			t.Errorf("\"stop the timer\" just after the pasta timer rang: said %q, %v", said, r.Data)
		}
		if left, _ := f.sched.Pending(t.Context(), storage.Timer); len(left) != 2 {
			t.Errorf("%d timers left; want the roast's and the tea's", len(left))
		}
		if said, _ := f.say(t, "cancel the tea timer"); said != "Cancelled the tea timer." {
			t.Errorf("a timer named just after another rang: said %q", said)
		}
		f.stops.mu.Lock()
		f.stops.rang = nil // a minute on: nothing has just rung
		f.stops.mu.Unlock()
		if said, _ := f.say(t, "stop the timer"); said != "Cancelled the roast timer." {
			t.Errorf("\"stop the timer\" with one running and none just rung: said %q", said)
		}
	})
}

func TestTurnOffTheAlarmThatJustRang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := ringing(t)
		f.say(t, "set an alarm for 7 am every day") // the bubble starts at 01:00 in Berlin
		time.Sleep(6*time.Hour + time.Second)
		synctest.Wait()
		if len(f.stops.rung()) != 1 {
			t.Fatalf("rang %v; want the alarm", f.stops.rung())
		}
		if said, r := f.say(t, "turn off the alarm"); r.Data["stopped_ringing"] != true || !f.stops.isRinging() && f.stops.stops == 0 {
			t.Errorf("\"turn off the alarm\" as it rang: said %q, %v", said, r.Data)
		}
		if left, _ := f.sched.Pending(t.Context(), storage.Alarm); len(left) != 1 {
			t.Errorf("%d alarms left; want tomorrow's", len(left))
		}
	})
}
