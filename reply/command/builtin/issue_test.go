package builtin

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/reply/schedule/scheduletest"
)

// TestNeverTheWrongAction: what the old pre-routes got wrong (a new timer
// for "take 5 minutes off my timer", the weather of a city called "Living
// room", a volume of 100 for "10 %") is now the call meant, or nothing.
func TestNeverTheWrongAction(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		lang      locale.Lang
		say, want string // want: command and arguments, or "" for not carried out
	}{
		{locale.English, "take 5 minutes off my timer", "adjust_timer map[by:5m0s subtract:true]"},
		{locale.English, "decrease my timer by 5 minutes", "adjust_timer map[by:5m0s subtract:true]"},
		{locale.English, "add 5 minutes to my timer", "adjust_timer map[by:5m0s]"},
		{locale.English, "add 5 minutes to pizza timer", "adjust_timer map[by:5m0s name:pizza]"},
		{locale.English, "add a minute to the pasta timer", "adjust_timer map[by:1m0s name:pasta]"},
		{locale.English, "add an hour to the roast timer", "adjust_timer map[by:1h0m0s name:roast]"},
		{locale.English, "pause 1 hour timer", "pause_timer map[started:1h0m0s]"},
		{locale.English, "resume the timer", "pause_timer map[resume:true]"},
		{locale.English, "stop my timer for pizza", "cancel_timer map[name:pizza]"},
		{locale.English, "what time is it right now", "get_current_time map[detail:time]"},
		{locale.English, "set a timer for 5 minutes and remind me to call mom", ""},
		{locale.English, "what is the temperature in the living room", ""},
		{locale.English, "how warm is it in here", ""},
		{locale.English, "what's the weather in Paris and what time is it in Tokyo", ""},
		{locale.French, "Enlève 2 minutes sur mon minuteur", "adjust_timer map[by:2m0s subtract:true]"},
		{locale.Spanish, "cancelar temporizador", "cancel_timer map[]"},
		{locale.German, "Lautstärke 10 %", "control_volume map[action:set level:10]"},
		{locale.French, "mets le volume à 10 %", "control_volume map[action:set level:10]"},
		{locale.German, "Lautstärke 7", "control_volume map[action:set level:70]"},
	} {
		u := f.reg.Understand(t.Context(), tt.lang, tt.say)
		got := ""
		if u.OK {
			got = fmt.Sprint(u.Route.Command.Name, " ", u.Route.Claim.Arguments)
		}
		if got != tt.want {
			t.Errorf("%s %q: %q (%s %s: %s), want %q", tt.lang, tt.say, got, u.Intent, u.Reason, u.Detail, tt.want)
		}
	}
}

// TestTimerChanges: a timer is paused with the time it had left, resumed
// from there, given more time or less, and never less than nothing. Time
// passes in a synctest bubble: timers count on the monotonic clock.
func TestTimerChanges(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sched, _ := schedule.New(schedule.Options{Store: scheduletest.New(), Location: berlin})
		reg := command.NewRegistry(command.Options{Location: berlin})
		if err := reg.Register(All(Deps{Schedule: sched, Alerts: &countAlerts{}, Mixer: &memMixer{level: 50}})...); err != nil {
			t.Fatal(err)
		}
		say := func(s string) string {
			t.Helper()
			u := reg.Understand(t.Context(), locale.English, s)
			if !u.OK {
				t.Fatalf("%q was not claimed offline: %s %s (%s)", s, u.Intent, u.Reason, u.Detail)
			}
			return reg.RunRoute(t.Context(), u.Route, s).Spoken
		}
		say("set a pizza timer for 10 minutes")
		time.Sleep(2 * time.Minute)
		if got := say("pause the pizza timer"); got != "Paused the pizza timer." {
			t.Errorf("pause: %q", got)
		}
		time.Sleep(30 * time.Minute) // paused: nothing goes by
		if got := say("how much time is left on the pizza timer"); got != "Your pizza timer has 8 minutes left." {
			t.Errorf("paused status: %q", got)
		}
		say("resume the pizza timer")
		time.Sleep(time.Minute)
		if got := say("add 5 minutes to the pizza timer"); got != "Added 5 minutes to the pizza timer." {
			t.Errorf("add: %q", got)
		}
		if got := say("how much time is left on the pizza timer"); got != "Your pizza timer has 12 minutes left." {
			t.Errorf("after adding: %q", got)
		}
		if got := say("take 20 minutes off the pizza timer"); got != "The timer has less time left than that." {
			t.Errorf("too much off: %q", got)
		}
		if got := say("take 2 minutes off the pizza timer"); got != "Took 2 minutes off the pizza timer." {
			t.Errorf("off: %q", got)
		}
		if got := say("how much time is left on the pizza timer"); got != "Your pizza timer has 10 minutes left." {
			t.Errorf("after taking off: %q", got)
		}
	})
}
