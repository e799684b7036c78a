package box

import (
	"slices"
	"testing"

	"github.com/harkbox/hark/reply/command/lookup"
)

// TestCatalogueNamesEveryCommand: every command the box can build, the web
// lookups included, says where it runs, and the catalogue names no command
// that does not exist.
func TestCatalogueNamesEveryCommand(t *testing.T) {
	cmds := all(parts{lookup: lookup.Options{SearXNG: "http://searx.lan", Wikipedia: "https://en.wikipedia.org", FetchPages: true}})
	var names []string
	for _, c := range cmds {
		names = append(names, c.Name)
		if catalogue[c.Name] == 0 {
			t.Errorf("%s runs nowhere: add it to the catalogue", c.Name)
		}
	}
	for name := range catalogue {
		if !slices.Contains(names, name) {
			t.Errorf("the catalogue names %s, which no part builds", name)
		}
	}
	if last := names[len(names)-1]; last != "stop" {
		t.Errorf("the last command is %s: stop goes last, so that \"cancel the timer\" is not a stop", last)
	}
}

// TestWhereEachRoleRuns: a node offers its center what acts on the speaker
// or its schedule, and runs everything offline; the center runs the rest.
func TestWhereEachRoleRuns(t *testing.T) {
	want := []string{"set_timer", "check_timers", "cancel_timer", "pause_timer", "adjust_timer", "set_alarm", "set_reminder",
		"list_reminders", "cancel_reminder", "snooze", "control_volume", "device_status", "stop"}
	if got := catalogue.names(forCenter); !slices.Equal(got, want) {
		t.Errorf("a node's client tools %v, want %v", got, want)
	}
	center := catalogue.names(onCenter)
	for _, name := range want {
		if slices.Contains(center, name) {
			t.Errorf("the center runs %s itself: it acts on a speaker", name)
		}
	}
	if box := catalogue.names(onBox); len(box) != len(all(parts{})) {
		t.Errorf("a speaker runs %d of %d commands; it runs them all", len(box), len(all(parts{})))
	}
}
