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
	} {
		u := f.reg.Understand(t.Context(), tt.l, tt.say)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s), want %s", tt.l, tt.say, u.Reason, u.Detail, tt.cmd)
		} else if u.Route.Command.Name != tt.cmd {
			t.Errorf("%s %q: %s, want %s", tt.l, tt.say, u.Route.Command.Name, tt.cmd)
		}
	}
}
