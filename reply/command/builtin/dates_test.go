package builtin

import (
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/schedule"
)

// Days the date questions are asked on, in Berlin.
var (
	sunday    = time.Date(2026, 11, 22, 10, 15, 0, 0, berlin) // the fixture's clock
	christmas = time.Date(2026, 12, 25, 9, 0, 0, 0, berlin)   // a Friday
	lateNYE   = time.Date(2026, 12, 31, 23, 30, 0, 0, berlin) // the last half hour of 2026
	friday    = time.Date(2026, 11, 27, 8, 0, 0, 0, berlin)
	springDST = time.Date(2026, 3, 28, 23, 30, 0, 0, berlin)  // Saturday; the clocks go forward at 2:00
	autumnDST = time.Date(2026, 10, 24, 23, 30, 0, 0, berlin) // Saturday; the clocks go back at 3:00
	afterDST  = time.Date(2026, 10, 25, 0, 30, 0, 0, berlin)  // the Sunday of 25 hours
)

type dayQuestion struct {
	now       time.Time
	say, want string
}

// dayQuestions are asked down the offline path (Understand, then
// RunRoute) in each language; the answer counts whole days of the
// calendar in Berlin. A weekday named is the next one: "until Friday" on
// a Friday is a week.
var dayQuestions = map[locale.Lang][]dayQuestion{
	locale.English: {
		{sunday, "what day is it tomorrow", "Tomorrow is Monday, November 23rd, 2026."},
		{sunday, "what year is it", "It's Sunday, November 22nd, 2026."}, // the date says the year and month
		{sunday, "what month is it", "It's Sunday, November 22nd, 2026."},
		{sunday, "which year are we in", "It's Sunday, November 22nd, 2026."},
		{sunday, "what's the date tomorrow", "Tomorrow is Monday, November 23rd, 2026."},
		{sunday, "what day was it yesterday", "Yesterday was Saturday, November 21st, 2026."},
		{sunday, "what day of the week is Christmas", "That's Friday, December 25th, 2026, in 33 days."},
		{sunday, "what day is December 25th", "That's Friday, December 25th, 2026, in 33 days."},
		{sunday, "what day does Christmas fall on", "That's Friday, December 25th, 2026, in 33 days."},
		{sunday, "what's the date next Friday", "That's Friday, November 27th, 2026, in 5 days."},
		{sunday, "what date is a week from today", "That's Sunday, November 29th, 2026, in 7 days."},
		{sunday, "what day will it be the day after tomorrow", "That's Tuesday, November 24th, 2026, in 2 days."},
		{sunday, "what day is new year's eve", "That's Thursday, December 31st, 2026, in 39 days."},
		{sunday, "how many days until Christmas", "33 days to go: Friday, December 25th, 2026."},
		{sunday, "how many days until Christmas Eve", "32 days to go: Thursday, December 24th, 2026."},
		{sunday, "how many days until December 31st", "39 days to go: Thursday, December 31st, 2026."},
		{sunday, "how many days until Friday", "5 days to go: Friday, November 27th, 2026."},
		{sunday, "how long until new year", "40 days to go: Friday, January 1st, 2027."},
		{sunday, "how many days are left until Halloween", "343 days to go: Sunday, October 31st, 2027."},
		{sunday, "how many days till valentine's day", "84 days to go: Sunday, February 14th, 2027."},
		{sunday, "how many days until tomorrow", "1 day to go: tomorrow is Monday, November 23rd, 2026."},
		{christmas, "how many days until Christmas", "That's today: Friday, December 25th, 2026."},
		{christmas, "what day is Christmas", "That's today: Friday, December 25th, 2026."},
		{christmas, "how many days until Christmas Eve", "364 days to go: Friday, December 24th, 2027."},
		{lateNYE, "what day is it tomorrow", "Tomorrow is Friday, January 1st, 2027."},
		{lateNYE, "how many days until new year's day", "1 day to go: tomorrow is Friday, January 1st, 2027."},
		{lateNYE, "how many days until new year's eve", "That's today: Thursday, December 31st, 2026."},
		{friday, "how many days until Friday", "7 days to go: Friday, December 4th, 2026."},
		{springDST, "what day is it tomorrow", "Tomorrow is Sunday, March 29th, 2026."},
		{springDST, "how many days until Monday", "2 days to go: Monday, March 30th, 2026."},
		{autumnDST, "how many days until Tuesday", "3 days to go: Tuesday, October 27th, 2026."},
		{autumnDST, "how many days until halloween", "7 days to go: Saturday, October 31st, 2026."},
		{afterDST, "what day was it yesterday", "Yesterday was Saturday, October 24th, 2026."},
		{afterDST, "what day is it tomorrow", "Tomorrow is Monday, October 26th, 2026."},
	},
	locale.German: {
		{sunday, "welcher Tag ist morgen", "Morgen ist Montag, der 23. November 2026."},
		{sunday, "welches Jahr haben wir", "Heute ist Sonntag, der 22. November 2026."},
		{sunday, "welchen Monat haben wir", "Heute ist Sonntag, der 22. November 2026."},
		{sunday, "in welchem Jahr sind wir", "Heute ist Sonntag, der 22. November 2026."},
		{sunday, "welches Datum ist morgen", "Morgen ist Montag, der 23. November 2026."},
		{sunday, "welcher Tag war gestern", "Gestern war Samstag, der 21. November 2026."},
		{sunday, "welcher Wochentag ist Weihnachten", "Das ist Freitag, der 25. Dezember 2026, in 33 Tagen."},
		{sunday, "auf welchen Tag fällt der 25. Dezember", "Das ist Freitag, der 25. Dezember 2026, in 33 Tagen."},
		{sunday, "welches Datum ist nächsten Freitag", "Das ist Freitag, der 27. November 2026, in 5 Tagen."},
		{sunday, "welcher Tag ist übermorgen", "Das ist Dienstag, der 24. November 2026, in 2 Tagen."},
		{sunday, "wie viele Tage bis Weihnachten", "Noch 33 Tage: Freitag, der 25. Dezember 2026."},
		{sunday, "wie viele Tage sind es noch bis Heiligabend", "Noch 32 Tage: Donnerstag, der 24. Dezember 2026."},
		{sunday, "wie lange noch bis Silvester", "Noch 39 Tage: Donnerstag, der 31. Dezember 2026."},
		{sunday, "wie viele Tage bis zum einunddreißigsten Dezember", "Noch 39 Tage: Donnerstag, der 31. Dezember 2026."},
		{sunday, "wie viele Tage bis Freitag", "Noch 5 Tage: Freitag, der 27. November 2026."},
		{sunday, "wie lange dauert es noch bis Neujahr", "Noch 40 Tage: Freitag, der 1. Januar 2027."},
		{christmas, "wie viele Tage bis Weihnachten", "Das ist heute: Freitag, der 25. Dezember 2026."},
		{lateNYE, "wie viele Tage bis Neujahr", "Noch ein Tag: Morgen ist Freitag, der 1. Januar 2027."},
		{friday, "wie viele Tage bis Freitag", "Noch 7 Tage: Freitag, der 4. Dezember 2026."},
		{springDST, "wie viele Tage bis Montag", "Noch 2 Tage: Montag, der 30. März 2026."},
	},
	locale.Spanish: {
		{sunday, "qué día es mañana", "Mañana es lunes, 23 de noviembre de 2026."},
		{sunday, "en qué año estamos", "Hoy es domingo, 22 de noviembre de 2026."},
		{sunday, "qué mes es", "Hoy es domingo, 22 de noviembre de 2026."},
		{sunday, "qué fecha es mañana", "Mañana es lunes, 23 de noviembre de 2026."},
		{sunday, "cuál es la fecha de mañana", "Mañana es lunes, 23 de noviembre de 2026."},
		{sunday, "cuál es la fecha de hoy", "Hoy es domingo, 22 de noviembre de 2026."},
		{sunday, "qué día fue ayer", "Ayer fue sábado, 21 de noviembre de 2026."},
		{sunday, "qué día de la semana es Navidad", "Es viernes, 25 de diciembre de 2026, dentro de 33 días."},
		{sunday, "qué día cae el 25 de diciembre", "Es viernes, 25 de diciembre de 2026, dentro de 33 días."},
		{sunday, "qué fecha es el próximo viernes", "Es viernes, 27 de noviembre de 2026, dentro de 5 días."},
		{sunday, "cuántos días faltan para Navidad", "Faltan 33 días: viernes, 25 de diciembre de 2026."},
		{sunday, "cuántos días faltan para Nochebuena", "Faltan 32 días: jueves, 24 de diciembre de 2026."},
		{sunday, "cuántos días faltan para el 31 de diciembre", "Faltan 39 días: jueves, 31 de diciembre de 2026."},
		{sunday, "cuántos días faltan para el viernes", "Faltan 5 días: viernes, 27 de noviembre de 2026."},
		{sunday, "cuánto falta para año nuevo", "Faltan 40 días: viernes, 1 de enero de 2027."},
		{christmas, "cuántos días faltan para Navidad", "Es hoy: viernes, 25 de diciembre de 2026."},
		{lateNYE, "cuántos días faltan para año nuevo", "Falta un día: mañana es viernes, 1 de enero de 2027."},
		{friday, "cuántos días faltan para el viernes", "Faltan 7 días: viernes, 4 de diciembre de 2026."},
		{springDST, "cuántos días faltan para el lunes", "Faltan 2 días: lunes, 30 de marzo de 2026."},
	},
	locale.French: {
		{sunday, "quel jour sommes-nous demain", "Demain, ce sera lundi 23 novembre 2026."},
		{sunday, "en quelle année sommes-nous", "Nous sommes dimanche 22 novembre 2026."},
		{sunday, "on est en quel mois", "Nous sommes dimanche 22 novembre 2026."},
		{sunday, "quel jour serons-nous demain", "Demain, ce sera lundi 23 novembre 2026."},
		{sunday, "quelle est la date de demain", "Demain, ce sera lundi 23 novembre 2026."},
		{sunday, "quelle sera la date demain", "Demain, ce sera lundi 23 novembre 2026."},
		{sunday, "quelle est la date d'aujourd'hui", "Nous sommes dimanche 22 novembre 2026."},
		{sunday, "quel jour étions-nous hier", "Hier, c'était samedi 21 novembre 2026."},
		{sunday, "quel jour tombe Noël", "C'est vendredi 25 décembre 2026, dans 33 jours."},
		{sunday, "quel jour de la semaine tombe le 25 décembre", "C'est vendredi 25 décembre 2026, dans 33 jours."},
		{sunday, "quelle date serons-nous vendredi prochain", "C'est vendredi 27 novembre 2026, dans 5 jours."},
		{sunday, "combien de jours avant Noël", "Encore 33 jours : vendredi 25 décembre 2026."},
		{sunday, "combien de jours jusqu'à la Saint-Sylvestre", "Encore 39 jours : jeudi 31 décembre 2026."},
		{sunday, "combien de jours avant le 31 décembre", "Encore 39 jours : jeudi 31 décembre 2026."},
		{sunday, "combien de jours avant vendredi", "Encore 5 jours : vendredi 27 novembre 2026."},
		{sunday, "dans combien de jours est le jour de l'an", "Encore 40 jours : vendredi 1er janvier 2027."},
		{sunday, "combien de jours reste-t-il avant le réveillon de Noël", "Encore 32 jours : jeudi 24 décembre 2026."},
		{christmas, "combien de jours avant Noël", "C'est aujourd'hui : vendredi 25 décembre 2026."},
		{lateNYE, "combien de jours avant le nouvel an", "Encore un jour : demain, ce sera vendredi 1er janvier 2027."},
		{friday, "combien de jours avant vendredi", "Encore 7 jours : vendredi 4 décembre 2026."},
		{springDST, "combien de jours avant lundi", "Encore 2 jours : lundi 30 mars 2026."},
	},
}

// TestDayQuestionsOffline: questions about another day than today, a date
// and the days until it are answered with no model, in each language.
func TestDayQuestionsOffline(t *testing.T) {
	for l, questions := range dayQuestions {
		for _, q := range questions {
			f := newFixture(t)
			f.now = q.now
			u := f.reg.Understand(t.Context(), l, q.say)
			if !u.OK {
				t.Errorf("%s %q: not understood offline (%s %s: %s)", l, q.say, u.Intent, u.Reason, u.Detail)
				continue
			}
			resp := f.reg.RunRoute(locale.WithLanguage(t.Context(), string(l)), u.Route, q.say)
			if resp.Spoken != q.want {
				t.Errorf("%s %q on %s: said %q (%s %v), want %q", l, q.say, q.now.Format("Mon 2 Jan 15:04"), resp.Spoken, u.Route.Command.Name, u.Route.Claim.Arguments, q.want)
			}
		}
	}
}

// TestDayQuestionsLeftToTheModel: what names no day the box can work out
// alone (a moving feast, someone's birthday) is not claimed offline.
func TestDayQuestionsLeftToTheModel(t *testing.T) {
	f := newFixture(t)
	for l, says := range map[locale.Lang][]string{
		locale.English: {"how many days until Easter", "what day is my birthday", "how long until the pasta is done", "what day is the meeting",
			"how many days until Thanksgiving", "what day is February 30th"},
		locale.German:  {"wie viele Tage bis Ostern", "welcher Tag ist mein Geburtstag"},
		locale.Spanish: {"cuántos días faltan para Semana Santa", "qué día es mi cumpleaños"},
		locale.French:  {"combien de jours avant Pâques", "quel jour tombe mon anniversaire"},
	} {
		for _, s := range says {
			if u := f.reg.Understand(t.Context(), l, s); u.OK {
				t.Errorf("%s %q was claimed by %s %v", l, s, u.Route.Command.Name, u.Route.Claim.Arguments)
			}
		}
	}
}

// TestDayQuestionsBeforeTheClockIsSet: with the clock not set, a question
// about a day says so instead of answering from 1970.
func TestDayQuestionsBeforeTheClockIsSet(t *testing.T) {
	f := newFixture(t)
	clk := &unsetClock{now: time.Unix(5, 0).In(berlin)}
	f.sched, _ = schedule.New(schedule.Options{Store: f.db.Schedule(), Clock: clk, Location: berlin})
	f.reg = command.NewRegistry(command.Options{Now: clk.Now, Synced: clk.Synced, Location: berlin})
	if err := f.reg.Register(All(Deps{Schedule: f.sched, Alerts: f.stops, Mixer: f.mixer, Memory: f.db.Facts(), Status: fixedStatus{}})...); err != nil {
		t.Fatal(err)
	}
	for l, says := range map[locale.Lang][]string{
		locale.English: {"what day is it tomorrow", "how many days until Christmas", "what day of the week is Christmas", "what's the date"},
		locale.German:  {"wie viele Tage bis Weihnachten", "welcher Tag ist morgen"},
		locale.Spanish: {"cuántos días faltan para Navidad"},
		locale.French:  {"combien de jours avant Noël"},
	} {
		want := l.T("I don't know the date yet: my clock isn't set. I'm still getting the time.")
		for _, s := range says {
			u := f.reg.Understand(t.Context(), l, s)
			if !u.OK {
				t.Errorf("%s %q: not understood offline (%s: %s)", l, s, u.Reason, u.Detail)
				continue
			}
			resp := f.reg.RunRoute(locale.WithLanguage(t.Context(), string(l)), u.Route, s)
			if resp.Spoken != want || resp.Kind != command.Failure || strings.Contains(resp.Spoken, "1970") {
				t.Errorf("%s %q with the clock unset: said %q (kind %v), want %q", l, s, resp.Spoken, resp.Kind, want)
			}
		}
	}
}

// TestDayFromTheModel: the model's call names the day as the offline path
// does, or as a date; a day the command cannot read is refused by name.
func TestDayFromTheModel(t *testing.T) {
	f := newFixture(t)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"detail": "until", "day": "2026-12-25"}, "33 days to go: Friday, December 25th, 2026."},
		{map[string]any{"detail": "until", "day": "christmas"}, "33 days to go: Friday, December 25th, 2026."},
		{map[string]any{"detail": "day", "day": "2027-07-04"}, "That's Sunday, July 4th, 2027, in 224 days."},
		{map[string]any{"detail": "date", "day": "tomorrow"}, "Tomorrow is Monday, November 23rd, 2026."},
		{map[string]any{"detail": "date", "day": "today"}, "It's Sunday, November 22nd, 2026."},
		{map[string]any{"detail": "day"}, "It's Sunday."},
		{map[string]any{"detail": "until", "day": "2026-11-01"}, "That was Sunday, November 1st, 2026, 21 days ago."},
	} {
		resp := f.reg.Call(t.Context(), "get_current_time", tc.args, "")
		if resp.Spoken != tc.want {
			t.Errorf("%v: said %q (kind %v, %v), want %q", tc.args, resp.Spoken, resp.Kind, resp.Problems, tc.want)
		}
	}
	resp := f.reg.Call(t.Context(), "get_current_time", map[string]any{"detail": "until", "day": "easter"}, "")
	if resp.Kind != command.Invalid || len(resp.Problems) == 0 || resp.Problems[0].Param != "day" {
		t.Errorf("easter from the model: %+v, want the day refused", resp)
	}
	resp = f.reg.Call(t.Context(), "get_current_time", map[string]any{"detail": "until"}, "")
	if resp.Kind != command.Invalid || len(resp.Problems) == 0 || resp.Problems[0].Param != "day" {
		t.Errorf("until with no day from the model: %+v, want the day asked for", resp)
	}
}
