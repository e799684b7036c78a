package builtin

import (
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/storage"
)

// run understands say offline in l and carries it out, failing the test
// when it is not understood.
func (f *fixture) run(t *testing.T, l locale.Lang, say string) command.Response {
	t.Helper()
	u := f.reg.Understand(t.Context(), l, say)
	if !u.OK {
		t.Fatalf("%s %q: not understood (%s %s: %s)", l, say, u.Intent, u.Reason, u.Detail)
	}
	return f.reg.RunRoute(locale.WithLanguage(t.Context(), string(l)), u.Route, say)
}

// TestChangingATimer: a running timer is paused, resumed and given more
// time in the words a household uses, and "it" right after setting one is
// that one, even when others run.
func TestChangingATimer(t *testing.T) {
	type timer struct {
		name   string
		length time.Duration
		paused bool
	}
	for _, tt := range []struct {
		l     locale.Lang
		steps []string
		want  []timer // soonest first
	}{
		{locale.English, []string{"set a timer for 5 minutes", "add a minute to the timer"}, []timer{{"", 6 * time.Minute, false}}},
		{locale.English, []string{"set a timer for 5 minutes", "add 5 minutes"}, []timer{{"", 10 * time.Minute, false}}},
		{locale.English, []string{"set a pasta timer for 8 minutes", "add 2 minutes to the pasta timer"}, []timer{{"pasta", 10 * time.Minute, false}}},
		{locale.English, []string{"set a timer for 5 minutes", "pause the timer", "unpause the timer"}, []timer{{"", 5 * time.Minute, false}}},
		{locale.English, []string{"set a timer for 5 minutes", "pause it"}, []timer{{"", 5 * time.Minute, true}}},
		{locale.English, []string{"set a timer for 5 minutes", "pause it", "resume it"}, []timer{{"", 5 * time.Minute, false}}},
		{locale.English, []string{"set a timer for 5 minutes", "add a minute"}, []timer{{"", 6 * time.Minute, false}}},
		{locale.English, []string{"set a pasta timer for 8 minutes", "set a timer for 3 minutes", "pause it"},
			[]timer{{"", 3 * time.Minute, true}, {"pasta", 8 * time.Minute, false}}},
		{locale.English, []string{"set a timer for 3 minutes", "set a pasta timer for 8 minutes", "add a minute"},
			[]timer{{"", 3 * time.Minute, false}, {"pasta", 9 * time.Minute, false}}},
		{locale.Spanish, []string{"pon un temporizador para la pasta de 8 minutos", "pausa el temporizador de la pasta", "reanuda el temporizador de la pasta"},
			[]timer{{"pasta", 8 * time.Minute, false}}},
		{locale.Spanish, []string{"pon un temporizador para la pasta de 8 minutos", "pausa el temporizador de la pasta"},
			[]timer{{"pasta", 8 * time.Minute, true}}},
		{locale.German, []string{"stell einen Eier Timer auf 3 Minuten", "füge 2 Minuten zum Eier Timer hinzu"}, []timer{{"Eier", 5 * time.Minute, false}}},
		{locale.German, []string{"stell einen Nudel Timer auf 8 Minuten", "füge dem Nudel Timer 5 Minuten hinzu"}, []timer{{"Nudel", 13 * time.Minute, false}}},
		{locale.German, []string{"stell einen Timer auf 3 Minuten", "füg zum Timer noch 2 Minuten hinzu"}, []timer{{"", 5 * time.Minute, false}}},
		{locale.German, []string{"Eieruhr auf 5 Minuten"}, []timer{{"Eier", 5 * time.Minute, false}}},
		{locale.German, []string{"stell den Timer Pizza auf 12 Minuten"}, []timer{{"Pizza", 12 * time.Minute, false}}},
	} {
		t.Run(string(tt.l)+" "+tt.steps[len(tt.steps)-1], func(t *testing.T) {
			f := newFixture(t)
			for _, s := range tt.steps {
				f.run(t, tt.l, s)
			}
			items, _ := f.sched.Pending(t.Context(), storage.Timer)
			var got []timer
			for _, it := range items {
				got = append(got, timer{it.Name, it.Duration, it.Paused})
			}
			if len(got) != len(tt.want) {
				t.Errorf("%s %q: timers %+v, want %+v", tt.l, tt.steps, got, tt.want)
				return
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("%s %q: timers %+v, want %+v", tt.l, tt.steps, got, tt.want)
					break
				}
			}
		})
	}
}

// TestAskingBack: a timer without a length, or a reminder without a time,
// is asked about, and the answer that follows completes it.
func TestAskingBack(t *testing.T) {
	for _, tt := range []struct {
		l                  locale.Lang
		say, asked, answer string
		said               string
		kind               storage.ItemKind
	}{
		{locale.English, "set a timer", "For how long?", "5 minutes", "Timer set for 5 minutes.", storage.Timer},
		{locale.English, "start a pasta timer", "For how long?", "8 minutes", "Pasta timer set for 8 minutes.", storage.Timer},
		{locale.German, "stell einen Timer", "Für wie lange?", "5 Minuten", "Timer für 5 Minuten gestellt.", storage.Timer},
		{locale.English, "remind me to water the plants", "When should I remind you?", "at 6 pm",
			"OK, I'll remind you to water the plants at 6:00 PM today.", storage.Reminder},
		{locale.English, "remind me to water the plants", "When should I remind you?", "in an hour",
			"OK, I'll remind you to water the plants in 1 hour.", storage.Reminder},
		{locale.English, "remind me at 6 pm", "What should I remind you of?", "to water the plants",
			"OK, I'll remind you to water the plants at 6:00 PM today.", storage.Reminder},
		{locale.English, "remind me in 20 minutes", "What should I remind you of?", "call Mom",
			"OK, I'll remind you to call Mom in 20 minutes.", storage.Reminder},
		{locale.English, "remind me tomorrow", "What should I remind you of?", "about the dentist",
			"OK, I'll remind you about the dentist at 9:00 AM tomorrow.", storage.Reminder},
		{locale.German, "erinnere mich morgen um 18 Uhr", "Woran soll ich dich erinnern?", "den Müll rauszubringen",
			"OK, ich erinnere dich morgen um 18 Uhr daran, den Müll rauszubringen.", storage.Reminder},
		{locale.Spanish, "recuérdame mañana a las 6 de la tarde", "¿Qué quieres que te recuerde?", "sacar la basura",
			"Vale, te lo recordaré mañana a las 6 de la tarde: sacar la basura.", storage.Reminder},
		{locale.French, "rappelle-moi demain à 18 heures", "Qu'est-ce que je dois te rappeler ?", "de sortir les poubelles",
			"D'accord, je te rappellerai demain à 18 heures : sortir les poubelles.", storage.Reminder},
	} {
		t.Run(string(tt.l)+" "+tt.say+" "+tt.answer, func(t *testing.T) {
			f := newFixture(t)
			r := f.run(t, tt.l, tt.say)
			if r.Kind != command.FollowUp || r.Spoken != tt.asked {
				t.Fatalf("%q: said %q (kind %v), want the question %q", tt.say, r.Spoken, r.Kind, tt.asked)
			}
			if items, _ := f.sched.Pending(t.Context(), tt.kind); len(items) != 0 {
				t.Fatalf("%q set %+v before the answer", tt.say, items)
			}
			f.now = f.now.Add(5 * time.Second)
			r = f.run(t, tt.l, tt.answer)
			if r.Spoken != tt.said {
				t.Errorf("%q after %q: said %q, want %q", tt.answer, tt.say, r.Spoken, tt.said)
			}
			if items, _ := f.sched.Pending(t.Context(), tt.kind); len(items) != 1 {
				t.Errorf("%q after %q: %d set, want one", tt.answer, tt.say, len(items))
			}
		})
	}
}

// TestNamingTheTimerChanged: pausing, resuming or adding to a named timer
// says which.
func TestNamingTheTimerChanged(t *testing.T) {
	f := newFixture(t)
	f.run(t, locale.English, "set a pasta timer for 8 minutes")
	f.run(t, locale.English, "set an egg timer for 3 minutes")
	for _, tt := range []struct {
		l         locale.Lang
		say, want string
	}{
		{locale.English, "pause the pasta timer", "Paused the pasta timer."},
		{locale.English, "resume the pasta timer", "Resumed the pasta timer."},
		{locale.English, "add 2 minutes to the egg timer", "Added 2 minutes to the egg timer."},
		{locale.German, "pausiere den pasta Timer", "Timer pasta pausiert."},
	} {
		if r := f.run(t, tt.l, tt.say); r.Spoken != tt.want {
			t.Errorf("%s %q: said %q, want %q", tt.l, tt.say, r.Spoken, tt.want)
		}
	}
}

// TestNothingToRemindOf: a no to "What should I remind you of?" sets no
// reminder.
func TestNothingToRemindOf(t *testing.T) {
	for _, no := range []string{"never mind", "nothing", "stop"} {
		f := newFixture(t)
		if r := f.run(t, locale.English, "remind me at 6 pm"); r.Kind != command.FollowUp {
			t.Fatalf("remind me at 6 pm: said %q (kind %v), want a question", r.Spoken, r.Kind)
		}
		f.now = f.now.Add(5 * time.Second)
		if u := f.reg.Understand(t.Context(), locale.English, no); u.OK && u.Route.Command.Name == "set_reminder" {
			t.Errorf("%q after the question: read as a reminder %v", no, u.Route.Claim.Arguments)
		}
	}
}
