package builtin

import (
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/storage"
)

// TestTimeLeftOnANamedTimer: the time left on a timer is asked by its name
// as a household asks it ("how much time on the eggs timer", "wie viel
// Zeit hat der Eier Timer noch"), the name said in the singular or the
// plural, and that timer alone is told.
func TestTimeLeftOnANamedTimer(t *testing.T) {
	for _, tt := range []struct {
		l                locale.Lang
		set, other, name string
		asks             []string
	}{
		{locale.English, "set an egg timer for 5 minutes", "set a timer for 20 minutes", "egg", []string{
			"how much time on the egg timer",
			"how much time is left on the egg timer",
			"how much time on the eggs timer",
			"how much time is left on the eggs timer",
			"how much time do I have left on the egg timer",
			"how long is left on the egg timer",
		}},
		{locale.German, "stell einen Eier Timer auf 5 Minuten", "stell einen Timer auf 20 Minuten", "Eier", []string{
			"wie viel Zeit hat der Eier Timer noch",
			"wie viel Zeit hat der Eiertimer noch",
			"wie lange läuft der Eier Timer noch",
			"wie viel Zeit bleibt beim Eier Timer noch",
		}},
		{locale.Spanish, "pon un temporizador de huevos de 5 minutos", "pon un temporizador de 20 minutos", "huevos", []string{
			"cuánto le queda al temporizador de huevos",
			"cuánto tiempo queda en el temporizador de huevos",
			"cuánto tiempo le queda al temporizador de los huevos",
		}},
		{locale.French, "mets un minuteur pour les pâtes de 8 minutes", "mets un minuteur de 20 minutes", "pâtes", []string{
			"combien de temps reste-t-il sur le minuteur des pâtes",
			"combien de temps reste-t-il au minuteur des pâtes",
			"il reste combien de temps sur le minuteur des pâtes",
		}},
	} {
		f := newFixture(t)
		f.sayIn(t, tt.l, tt.set)
		f.sayIn(t, tt.l, tt.other) // another, not asked about
		timers, _ := f.sched.Pending(t.Context(), storage.Timer)
		if len(timers) != 2 {
			t.Fatalf("%s %q: %d timers set, want 2", tt.l, tt.set, len(timers))
		}
		for _, ask := range tt.asks {
			r := f.sayIn(t, tt.l, ask)
			list, _ := r.Data["timers"].([]map[string]any)
			if len(list) != 1 || list[0]["name"] != tt.name {
				t.Errorf("%s %q: said %q, %v; want the %s timer alone", tt.l, ask, r.Spoken, r.Data, tt.name)
			}
		}
	}
}
