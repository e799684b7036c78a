package builtin

import (
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
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
