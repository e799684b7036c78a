package builtin

import (
	"testing"
	"time"

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

// TestTimerLengthOutOfReach: a timer longer than a timer can run is
// answered with the longest one, and one of no time at all asks for its
// length, in each language; neither sets a timer.
func TestTimerLengthOutOfReach(t *testing.T) {
	for _, tt := range []struct {
		l         locale.Lang
		say, want string
	}{
		{locale.English, "set a timer for 25 hours", "A timer can run for up to 24 hours."},
		{locale.English, "set a pasta timer for 30 hours", "A timer can run for up to 24 hours."},
		{locale.English, "set a timer for 2 days", "A timer can run for up to 24 hours."},
		{locale.German, "stell einen Timer auf 25 Stunden", "Ein Timer läuft höchstens 24 Stunden."},
		{locale.Spanish, "pon un temporizador de 25 horas", "Un temporizador puede durar hasta 24 horas."},
		{locale.French, "mets un minuteur de 25 heures", "Un minuteur peut durer jusqu'à 24 heures."},
		{locale.English, "set a timer for 0 minutes", "For how long?"},
		{locale.English, "set a timer for zero seconds", "For how long?"},
		{locale.German, "stell einen Timer auf 0 Minuten", "Für wie lange?"},
		{locale.Spanish, "pon un temporizador de 0 minutos", "¿Por cuánto tiempo?"},
		{locale.French, "mets un minuteur de 0 minute", "Pour combien de temps ?"},
	} {
		f := newFixture(t)
		if got := f.sayIn(t, tt.l, tt.say).Spoken; got != tt.want {
			t.Errorf("%s %q: said %q, want %q", tt.l, tt.say, got, tt.want)
		}
		if timers, _ := f.sched.Pending(t.Context(), storage.Timer); len(timers) != 0 {
			t.Errorf("%s %q: set %v", tt.l, tt.say, timers)
		}
	}
}

// TestTimerLengthsAsSaid: a timer's length said in fractions of an hour or
// a minute ("three quarters of an hour", "minuto y medio") is set offline.
func TestTimerLengthsAsSaid(t *testing.T) {
	for _, tt := range []struct {
		l    locale.Lang
		say  string
		want time.Duration
	}{
		{locale.English, "set a timer for three quarters of an hour", 45 * time.Minute},
		{locale.English, "set a timer for a minute and a half", 90 * time.Second},
		{locale.German, "stell einen Timer auf eine dreiviertel Stunde", 45 * time.Minute},
		{locale.Spanish, "pon un temporizador de minuto y medio", 90 * time.Second},
		{locale.Spanish, "pon un temporizador de tres cuartos de hora", 45 * time.Minute},
		{locale.French, "mets un minuteur de trois quarts d'heure", 45 * time.Minute},
	} {
		f := newFixture(t)
		r := f.sayIn(t, tt.l, tt.say)
		timers, _ := f.sched.Pending(t.Context(), storage.Timer)
		if len(timers) != 1 || timers[0].Duration != tt.want {
			t.Errorf("%s %q: said %q, timers %v; want one of %v", tt.l, tt.say, r.Spoken, timers, tt.want)
		}
	}
}

// TestTimerListNamesInEachLanguage: the list of timers says a named one
// as a timer of that name, grammatically in each language ("der
// Eier-Timer läuft noch …", not "Eier läuft noch …").
func TestTimerListNamesInEachLanguage(t *testing.T) {
	for _, tt := range []struct {
		l               locale.Lang
		set             []string
		list, want, one string
		wantOne         string
	}{
		{locale.German, []string{"stell einen Timer für 5 Minuten", "stell einen Eier Timer auf 8 Minuten"}, "welche Timer laufen",
			"Du hast 2 Timer: einer läuft noch 5 Minuten und der Eier-Timer läuft noch 8 Minuten.",
			"wie lange läuft der Eier Timer noch", "Dein Eier-Timer läuft noch 8 Minuten."},
		{locale.English, []string{"set a timer for 5 minutes", "set a pasta timer for 8 minutes"}, "what timers do I have",
			"You have 2 timers: one with 5 minutes left and the pasta timer with 8 minutes left.",
			"how much time is left on the pasta timer", "Your pasta timer has 8 minutes left."},
	} {
		f := newFixture(t)
		for _, s := range append(tt.set, tt.list, tt.one) {
			u := f.reg.Understand(t.Context(), tt.l, s)
			if !u.OK {
				t.Errorf("%s %q: not understood (%s %s)", tt.l, s, u.Reason, u.Detail)
				continue
			}
			got := f.reg.RunRoute(locale.WithLanguage(t.Context(), string(tt.l)), u.Route, s).Spoken
			if s == tt.list && got != tt.want {
				t.Errorf("%s %q: said %q, want %q", tt.l, s, got, tt.want)
			}
			if s == tt.one && got != tt.wantOne {
				t.Errorf("%s %q: said %q, want %q", tt.l, s, got, tt.wantOne)
			}
		}
	}
}
