package builtin

import (
	"testing"

	"github.com/harkbox/hark/locale"
)

// TestFillersSaidFirst: a hesitation said before a request or inside it
// ("äh", "euh") does not keep it from being carried out offline, in each
// language.
func TestFillersSaidFirst(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		l        locale.Lang
		say, cmd string
	}{
		{locale.English, "Um, what's the time?", "get_current_time"},
		{locale.English, "Erm, what day is it today?", "get_current_time"},
		{locale.German, "Äh, wie spät ist es?", "get_current_time"},
		{locale.German, "Ähm, stell einen Timer auf 5 Minuten", "set_timer"},
		{locale.Spanish, "Eh, ¿qué hora es?", "get_current_time"},
		{locale.Spanish, "Em, pon un temporizador de 5 minutos", "set_timer"},
		{locale.French, "Euh, quelle heure est-il ?", "get_current_time"},
		{locale.French, "Bah, mets un minuteur de 5 minutes", "set_timer"},
		{locale.English, "So, set a timer for 5 minutes", "set_timer"},
		{locale.English, "Well, what's the time?", "get_current_time"},
		{locale.English, "Also, set a timer for 5 minutes", "set_timer"},
		{locale.English, "Okay so, wake me up at 7", "set_alarm"},
		{locale.German, "Also, stell einen Timer auf 5 Minuten", "set_timer"},
		{locale.Spanish, "Bueno, pon un temporizador de 5 minutos", "set_timer"},
		{locale.French, "Alors, mets un minuteur de 5 minutes", "set_timer"},
	} {
		u := f.reg.Understand(t.Context(), tt.l, tt.say)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s), want %s", tt.l, tt.say, u.Reason, u.Detail, tt.cmd)
		} else if u.Route.Command.Name != tt.cmd {
			t.Errorf("%s %q: %s, want %s", tt.l, tt.say, u.Route.Command.Name, tt.cmd)
		}
	}
}

// TestLeadWordsKeptInAMessage: a word that only leads a request ("also",
// "bueno", "alors", "so") stays in a reminder's message, where it is part
// of what to remind of.
func TestLeadWordsKeptInAMessage(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		l        locale.Lang
		say, msg string
	}{
		{locale.German, "erinnere mich um 9 daran, dass Paul also kommt", "dass Paul also kommt"},
		{locale.Spanish, "recuérdame a las 9 que el pastel está bueno", "el pastel está bueno"},
		{locale.French, "rappelle-moi à 9 heures que le film est alors fini", "le film est alors fini"},
		{locale.English, "remind me at 9 that the soup is so good", "the soup is so good"},
	} {
		u := f.reg.Understand(t.Context(), tt.l, tt.say)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s)", tt.l, tt.say, u.Reason, u.Detail)
		} else if got := u.Route.Claim.Arguments["message"]; got != tt.msg {
			t.Errorf("%s %q: message %q, want %q", tt.l, tt.say, got, tt.msg)
		}
	}
}
