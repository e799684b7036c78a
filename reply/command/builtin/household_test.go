package builtin

import (
	"slices"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/storage"
)

// sayIn runs an utterance in l down the offline path, answered in l.
func (f *fixture) sayIn(t *testing.T, l locale.Lang, text string) command.Response {
	t.Helper()
	u := f.reg.Understand(t.Context(), l, text)
	if !u.OK {
		t.Errorf("%s %q: not understood offline: %s %s (%s)", l, text, u.Intent, u.Reason, u.Detail)
		return command.Response{}
	}
	return f.reg.RunRoute(locale.WithLanguage(t.Context(), string(l)), u.Route, text)
}

// TestReminderConfirmedAsSaid: a reminder of a thing ("an den Ofen", "lo
// del horno", "about the oven") or of a fact ("daran, dass ...", "that
// ...") is confirmed with its link said as a speaker would, not as a task
// after a colon; a task keeps its shape.
func TestReminderConfirmedAsSaid(t *testing.T) {
	for _, tt := range []struct {
		l         locale.Lang
		say, want string
	}{
		{locale.English, "remind me in 20 minutes about the oven", "OK, I'll remind you about the oven in 20 minutes."},
		{locale.English, "remind me about my dentist appointment in 1 hour", "OK, I'll remind you about your dentist appointment in 1 hour."},
		{locale.English, "remind me in 20 minutes that I have a meeting", "OK, I'll remind you in 20 minutes that you have a meeting."},
		{locale.English, "remind me in 20 minutes to check the oven", "OK, I'll remind you to check the oven in 20 minutes."},
		{locale.English, "remind me in 1 hour and 30 minutes to stretch", "OK, I'll remind you to stretch in 1 hour and 30 minutes."},
		{locale.English, "remind me in an hour and a half to stretch", "OK, I'll remind you to stretch in 1 hour and 30 minutes."},
		{locale.German, "erinnere mich in einer Stunde und 30 Minuten daran, den Müll rauszubringen", "OK, ich erinnere dich in einer Stunde und 30 Minuten daran, den Müll rauszubringen."},
		{locale.Spanish, "recuérdame en una hora y 30 minutos estirar", "Vale, te lo recordaré en una hora y 30 minutos: estirar."},
		{locale.French, "rappelle-moi dans une heure et 30 minutes de m'étirer", "D'accord, je te rappellerai dans une heure et 30 minutes : m'étirer."},
		{locale.German, "erinnere mich in 20 Minuten an den Ofen", "OK, ich erinnere dich in 20 Minuten an den Ofen."},
		{locale.German, "erinnere mich an meinen Termin in einer Stunde", "OK, ich erinnere dich in einer Stunde an deinen Termin."},
		{locale.German, "erinnere mich in 10 Minuten daran, dass die Wäsche fertig ist", "OK, ich erinnere dich in 10 Minuten daran, dass die Wäsche fertig ist."},
		{locale.German, "erinnere mich in 10 Minuten daran, den Müll rauszubringen", "OK, ich erinnere dich in 10 Minuten daran, den Müll rauszubringen."},
		{locale.German, "erinnere mich in 10 Minuten, Milch zu kaufen", "OK, ich erinnere dich in 10 Minuten daran, Milch zu kaufen."},
		{locale.Spanish, "recuérdame en 20 minutos lo del horno", "Vale, te recordaré lo del horno en 20 minutos."},
		{locale.Spanish, "recuérdame el horno en 20 minutos", "Vale, te recordaré el horno en 20 minutos."},
		{locale.Spanish, "recuérdame en 20 minutos sacar el horno", "Vale, te lo recordaré en 20 minutos: sacar el horno."},
		{locale.French, "rappelle-moi dans 20 minutes le four", "D'accord, je te rappellerai le four dans 20 minutes."},
		{locale.French, "rappelle-moi dans 20 minutes que le four est chaud", "D'accord, je te rappellerai dans 20 minutes que le four est chaud."},
		{locale.French, "rappelle-moi dans 20 minutes de sortir le four", "D'accord, je te rappellerai dans 20 minutes : sortir le four."},
	} {
		f := newFixture(t)
		if got := f.sayIn(t, tt.l, tt.say).Spoken; got != tt.want {
			t.Errorf("%s %q: said %q, want %q", tt.l, tt.say, got, tt.want)
		}
	}
}

// TestGiveTheTimer: "gib dem Eier Timer 2 Minuten" gives the Eier timer
// two more minutes when it runs, and starts it for two minutes when it
// does not: the verb is never taken into the timer's name.
func TestGiveTheTimer(t *testing.T) {
	for _, tt := range []struct {
		l         locale.Lang
		before    []string
		say, name string
		left      time.Duration
		timers    int
	}{
		{locale.German, nil, "gib dem Eier Timer 2 Minuten", "Eier", 2 * time.Minute, 1},
		{locale.German, []string{"stell einen Eier Timer auf 5 Minuten"}, "gib dem Eier Timer 2 Minuten", "Eier", 7 * time.Minute, 1},
		{locale.German, []string{"stell einen Eier Timer auf 5 Minuten"}, "gib dem Eier Timer noch 2 Minuten", "Eier", 7 * time.Minute, 1},
		{locale.German, []string{"stell einen Eier Timer auf 5 Minuten"}, "gebe dem Eiertimer zwei Minuten mehr", "Eier", 7 * time.Minute, 1},
		{locale.German, []string{"stell einen Nudel Timer auf 5 Minuten"}, "gib dem Eier Timer 2 Minuten", "Eier", 2 * time.Minute, 2},
		{locale.German, []string{"stell einen Timer auf 5 Minuten"}, "gib dem Timer noch 2 Minuten", "", 7 * time.Minute, 1},
		{locale.Spanish, []string{"pon un temporizador de huevos de 3 minutos"}, "dale al temporizador de huevos 2 minutos más", "huevos", 5 * time.Minute, 1},
		{locale.French, []string{"mets un minuteur pour les œufs de 3 minutes"}, "donne 2 minutes de plus au minuteur des œufs", "œufs", 5 * time.Minute, 1},
	} {
		f := newFixture(t)
		for _, s := range tt.before {
			f.sayIn(t, tt.l, s)
		}
		r := f.sayIn(t, tt.l, tt.say)
		timers, _ := f.sched.Pending(t.Context(), storage.Timer)
		i := slices.IndexFunc(timers, func(it storage.Item) bool { return it.Name == tt.name })
		if len(timers) != tt.timers || i < 0 || timers[i].Due.Sub(f.now) != tt.left {
			t.Errorf("%s %q after %q: said %q, timers %+v; want %d, %q with %v left", tt.l, tt.say, tt.before, r.Spoken, timers, tt.timers, tt.name, tt.left)
		}
	}
}

// TestNoVerbInTimerNames: what a household says before a timer's name
// ("ich brauche einen", "noch einen", "neuer") is not taken into it.
func TestNoVerbInTimerNames(t *testing.T) {
	for _, tt := range []struct {
		l         locale.Lang
		say, name string
	}{
		{locale.German, "ich brauche einen Eier Timer für 5 Minuten", "Eier"},
		{locale.German, "setz noch einen Eier Timer auf 5 Minuten", "Eier"},
		{locale.German, "neuer Eier Timer 5 Minuten", "Eier"},
		{locale.German, "ich hätte gern einen Nudel Timer für 8 Minuten", "Nudel"},
		{locale.German, "stell mir mal schnell einen Eier Timer auf 5 Minuten", "Eier"},
		{locale.German, "und jetzt noch einen Nudel Timer 8 Minuten", "Nudel"},
		{locale.German, "dann einen Nudel Timer für 8 Minuten", "Nudel"},
		{locale.German, "starte einen 5 Minuten Eier Timer", "Eier"},
		{locale.German, "stell einen fünf Minuten Eiertimer", "Eier"},
	} {
		f := newFixture(t)
		r := f.sayIn(t, tt.l, tt.say)
		if timers, _ := f.sched.Pending(t.Context(), storage.Timer); len(timers) != 1 || timers[0].Name != tt.name || timers[0].Duration <= 0 {
			t.Errorf("%s %q: said %q, timers %+v; want one named %q", tt.l, tt.say, r.Spoken, timers, tt.name)
		}
	}
}

// TestAlarmsByDaysInEachLanguage: an alarm set for days ("le week-end",
// "el fin de semana", "am Wochenende") is cancelled by them as a household
// says it ("le réveil du week-end", "la alarma de fin de semana", "den
// Wochenendwecker"), and its setting is said in good German.
func TestAlarmsByDaysInEachLanguage(t *testing.T) {
	weekend := []time.Weekday{time.Saturday, time.Sunday}
	weekdays := []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}
	for _, tt := range []struct {
		l                 locale.Lang
		set, said, cancel string
		days              []time.Weekday
	}{
		{locale.French, "mets un réveil à 8 heures le week-end", "", "supprime le réveil du week-end", weekend},
		{locale.French, "mets un réveil à 8 heures le week-end", "", "annule l'alarme du week-end", weekend},
		{locale.French, "mets un réveil à 7 heures tous les lundis", "", "supprime le réveil du lundi", []time.Weekday{time.Monday}},
		{locale.Spanish, "pon una alarma a las 8 el fin de semana", "", "borra la alarma de fin de semana", weekend},
		{locale.Spanish, "pon una alarma a las 8 el fin de semana", "", "borra la alarma del fin de semana", weekend},
		{locale.Spanish, "pon una alarma a las 8 el fin de semana", "", "cancela la alarma de los fines de semana", weekend},
		{locale.Spanish, "pon una alarma a las 7 entre semana", "", "borra la alarma de entre semana", weekdays},
		{locale.Spanish, "pon una alarma a las 7 todos los lunes", "", "borra la alarma de los lunes", []time.Weekday{time.Monday}},
		{locale.German, "stell einen Wecker um 8 Uhr am Wochenende", "OK, dein Wecker klingelt am Wochenende um 8 Uhr.", "lösch den Wochenendwecker", weekend},
		{locale.German, "stell einen Wecker fürs Wochenende um 8", "OK, dein Wecker klingelt am Wochenende um 8 Uhr.", "lösch den Wecker fürs Wochenende", weekend},
		{locale.German, "weck mich werktags um 6", "", "lösch den Werktagswecker", weekdays},
	} {
		f := newFixture(t)
		r := f.sayIn(t, tt.l, tt.set)
		alarms, _ := f.sched.Pending(t.Context(), storage.Alarm)
		if len(alarms) != 1 || !slices.Equal(alarms[0].Days, tt.days) || tt.said != "" && r.Spoken != tt.said {
			t.Errorf("%s %q: said %q, alarms %+v; want one on %v, said %q", tt.l, tt.set, r.Spoken, alarms, tt.days, tt.said)
			continue
		}
		r = f.sayIn(t, tt.l, tt.cancel)
		if alarms, _ := f.sched.Pending(t.Context(), storage.Alarm); len(alarms) != 0 {
			t.Errorf("%s %q after %q: said %q, alarms %+v; want none", tt.l, tt.cancel, tt.set, r.Spoken, alarms)
		}
	}
}

// TestCorrectionsInEachLanguage: right after an alarm or a timer is set,
// a correction said in the household's language ("nein, um 8", "no, a
// las 8 de la tarde", "non, à 8 heures du soir", "plutôt 10 minutes")
// changes it rather than setting another.
func TestCorrectionsInEachLanguage(t *testing.T) {
	for _, tt := range []struct {
		l        locale.Lang
		set, fix string
		hour     int // the alarm's, or -1 for a timer
		timer    time.Duration
	}{
		{locale.English, "set an alarm for 7", "no, 7 pm", 19, 0},
		{locale.English, "set an alarm for 7", "no, at 8", 8, 0},
		{locale.German, "stell einen Wecker um 7", "nein, 7 Uhr abends", 19, 0},
		{locale.German, "stell einen Wecker um 7", "nein, um 8", 8, 0},
		{locale.German, "stell einen Wecker um 7", "nein, um 8 Uhr abends", 20, 0},
		{locale.Spanish, "pon una alarma a las 7", "no, a las 8 de la tarde", 20, 0},
		{locale.Spanish, "pon una alarma a las 7", "no, a las 8", 8, 0},
		{locale.French, "mets un réveil à 7 heures", "non, à 8 heures du soir", 20, 0},
		{locale.French, "mets un réveil à 7 heures", "non, 8 heures du soir", 20, 0},
		{locale.French, "mets un réveil à 7 heures", "plutôt à 8 heures", 8, 0},
		{locale.German, "stell einen Timer auf 5 Minuten", "mach 10 Minuten daraus", -1, 10 * time.Minute},
		{locale.Spanish, "pon un temporizador de 5 minutos", "mejor 10 minutos", -1, 10 * time.Minute},
		{locale.French, "mets un minuteur de 5 minutes", "plutôt 10 minutes", -1, 10 * time.Minute},
	} {
		f := newFixture(t)
		f.sayIn(t, tt.l, tt.set)
		r := f.sayIn(t, tt.l, tt.fix)
		if tt.hour < 0 {
			if timers, _ := f.sched.Pending(t.Context(), storage.Timer); len(timers) != 1 || timers[0].Duration != tt.timer {
				t.Errorf("%s %q after %q: said %q, timers %+v; want one of %v", tt.l, tt.fix, tt.set, r.Spoken, timers, tt.timer)
			}
			continue
		}
		if alarms, _ := f.sched.Pending(t.Context(), storage.Alarm); len(alarms) != 1 || alarms[0].Hour != tt.hour || alarms[0].Minute != 0 {
			t.Errorf("%s %q after %q: said %q, alarms %+v; want one at %d:00", tt.l, tt.fix, tt.set, r.Spoken, alarms, tt.hour)
		}
	}
}

// TestGermanFactReadBackAsMainClause: a fact told as "merk dir, dass der
// Schlüssel unter der Matte liegt" is kept with the verb where a main
// clause has it, so it is read back as one.
func TestGermanFactReadBackAsMainClause(t *testing.T) {
	for _, tt := range []struct {
		tell, ask, want string
	}{
		{"merk dir, dass der Schlüssel unter der Matte liegt", "was weißt du über den Schlüssel", "Du hast mir gesagt: der Schlüssel liegt unter der Matte."},
		{"merk dir, dass mein Fahrrad blau ist", "was weißt du über mein Fahrrad", "Du hast mir gesagt: dein Fahrrad ist blau."},
		{"merke dir dass meine Schwester Anna in Berlin wohnt", "was weißt du über Anna", "Du hast mir gesagt: deine Schwester Anna wohnt in Berlin."},
		{"merk dir, dass das Paket morgen abgeholt werden muss", "was weißt du über das Paket", "Du hast mir gesagt: das Paket muss morgen abgeholt werden."},
		// A main clause is kept as said; so is a separable verb, whose
		// prefix would have to stay behind.
		{"merk dir: der Müll wird am Dienstag abgeholt", "was weißt du über den Müll", "Du hast mir gesagt: der Müll wird am Dienstag abgeholt."},
		{"merk dir, dass der Bus um acht abfährt", "was weißt du über den Bus", "Du hast mir gesagt: der Bus um acht abfährt."},
	} {
		f := newFixture(t)
		f.sayIn(t, locale.German, tt.tell)
		if got := f.sayIn(t, locale.German, tt.ask).Spoken; got != tt.want {
			t.Errorf("%q, then %q: said %q, want %q", tt.tell, tt.ask, got, tt.want)
		}
	}
}

// TestShortListQuestions: "welche Wecker?", "quels réveils ?", "¿qué
// temporizadores?" said short are answered offline as the full questions
// are.
func TestShortListQuestions(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		l             locale.Lang
		say, cmd, arg string
	}{
		{locale.German, "welche Wecker", "list_reminders", "alarms"},
		{locale.German, "welche Erinnerungen", "list_reminders", "reminders"},
		{locale.German, "welche Timer", "check_timers", ""},
		{locale.French, "quels réveils", "list_reminders", "alarms"},
		{locale.French, "quelles alarmes", "list_reminders", "alarms"},
		{locale.French, "quels rappels", "list_reminders", "reminders"},
		{locale.French, "quels minuteurs", "check_timers", ""},
		{locale.Spanish, "qué alarmas", "list_reminders", "alarms"},
		{locale.Spanish, "qué recordatorios", "list_reminders", "reminders"},
		{locale.Spanish, "qué temporizadores", "check_timers", ""},
		// Said shorter still: "my timers", "any alarms", the bare noun.
		{locale.Spanish, "qué temporizadores hay", "check_timers", ""},
		{locale.Spanish, "hay temporizadores", "check_timers", ""},
		{locale.Spanish, "mis temporizadores", "check_timers", ""},
		{locale.Spanish, "temporizadores", "check_timers", ""},
		{locale.Spanish, "hay alarmas", "list_reminders", "alarms"},
		{locale.Spanish, "mis alarmas", "list_reminders", "alarms"},
		{locale.Spanish, "alarmas", "list_reminders", "alarms"},
		{locale.French, "mes minuteurs", "check_timers", ""},
		{locale.French, "minuteurs", "check_timers", ""},
		{locale.French, "mes alarmes", "list_reminders", "alarms"},
		{locale.French, "mes réveils", "list_reminders", "alarms"},
		{locale.German, "meine Timer", "check_timers", ""},
		{locale.German, "meine Wecker", "list_reminders", "alarms"},
		{locale.English, "my timers", "check_timers", ""},
		{locale.English, "timers?", "check_timers", ""},
		{locale.English, "any timers", "check_timers", ""},
		{locale.English, "my alarms", "list_reminders", "alarms"},
		{locale.English, "alarms", "list_reminders", "alarms"},
		{locale.English, "any alarms", "list_reminders", "alarms"},
	} {
		u := f.reg.Understand(t.Context(), tt.l, tt.say)
		if !u.OK || u.Route.Command.Name != tt.cmd || tt.arg != "" && u.Route.Claim.Arguments["kind"] != tt.arg {
			t.Errorf("%s %q: understood %v (%s %s), %v; want %s %s", tt.l, tt.say, u.OK, u.Reason, u.Detail, u.Route.Claim.Arguments, tt.cmd, tt.arg)
		}
	}
}

// TestNextAlarm: "when is my next alarm", asked in each language with
// several alarms set, is answered with the soonest alone, its day said; a
// repeating one by the day it rings next. The fixture's clock is Sunday
// 10:15.
func TestNextAlarm(t *testing.T) {
	for _, tt := range []struct {
		l         locale.Lang
		say, want string
	}{
		{locale.English, "when is my next alarm", "Your next alarm is at 7:00 AM tomorrow."},
		{locale.English, "when is my alarm", "Your next alarm is at 7:00 AM tomorrow."},
		{locale.English, "When does my alarm go off?", "Your next alarm is at 7:00 AM tomorrow."},
		{locale.German, "wann klingelt mein Wecker", "Dein nächster Wecker klingelt morgen um 7 Uhr."},
		{locale.German, "wann klingelt der nächste Wecker", "Dein nächster Wecker klingelt morgen um 7 Uhr."},
		{locale.Spanish, "cuándo suena mi alarma", "Tu próxima alarma sonará mañana a las 7 de la mañana."},
		{locale.Spanish, "a qué hora suena la próxima alarma", "Tu próxima alarma sonará mañana a las 7 de la mañana."},
		{locale.French, "quand sonne mon réveil", "Ton prochain réveil sonnera demain à 7 heures."},
		{locale.French, "à quelle heure sonne ma prochaine alarme", "Ton prochain réveil sonnera demain à 7 heures."},
	} {
		f := newFixture(t)
		f.say(t, "wake me up at 7:00 on weekdays")
		f.say(t, "set an alarm for 9 am on saturday")
		if got := f.sayIn(t, tt.l, tt.say).Spoken; got != tt.want {
			t.Errorf("%s %q: said %q, want %q", tt.l, tt.say, got, tt.want)
		}
	}
	f := newFixture(t)
	if got := f.sayIn(t, locale.English, "when is my next alarm").Spoken; got != "You have no alarms." {
		t.Errorf("no alarms: said %q, want %q", got, "You have no alarms.")
	}
}
