package builtin

import (
	"github.com/harkbox/hark/reply/command"
)

// Deps are what the built-in commands act on.
type Deps struct {
	// Schedule keeps the timers, alarms and reminders: the alert service.
	Schedule Schedule
	// Alerts may be nil where nothing rings (hark ask).
	Alerts Alerts
	Mixer  Mixer
	Memory Memory
	// Diary is searched with the facts; nil for none.
	Diary  Diary
	Status StatusSource
	// Setup says what of the house the box is set up for; nil for all.
	Setup Setup
}

// All returns the built-in commands in pre-route order: specific phrasings
// before general ones, stop last so that "cancel the timer" is not a stop.
//
// Every built-in keeps its arguments on the box (Local).
func All(d Deps) []*command.Command {
	cmds := []*command.Command{
		SetTimer(d.Schedule), CheckTimers(d.Schedule), CancelTimer(d.Schedule, d.Alerts), PauseTimer(d.Schedule), AdjustTimer(d.Schedule),
		SetAlarm(d.Schedule), SetReminder(d.Schedule), ListReminders(d.Schedule), CancelReminder(d.Schedule, d.Alerts), Snooze(d.Schedule, d.Alerts),
		Volume(d.Mixer),
		Time(), Calculate(), Convert(),
		Remember(d.Memory), Forget(d.Memory), SearchMemory(d.Memory, d.Diary),
		Status(d.Status),
		Help(d.Setup), Thanks(), Greet(), Introduce(),
		Stop(d.Alerts),
	}
	for _, c := range cmds {
		c.Local = true
	}
	return cmds
}
