package builtin

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// newSealedFixture is newFixture whose memory keeps a fact holding a
// secret sealed, as the box's does.
func newSealedFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	clock := func() time.Time { return f.now }
	f.reg = command.NewRegistry(command.Options{Now: clock, Location: berlin})
	mem := f.db.SealedFacts(f.db.Secrets(filepath.Join(t.TempDir(), "secrets.key")))
	if err := f.reg.Register(All(Deps{Schedule: f.sched, Alerts: f.stops, Mixer: f.mixer, Memory: mem, Status: fixedStatus{}})...); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestForgetAThingByName: "forget the wifi password" forgets the fact
// about the wifi password, in each language, as "forget that the wifi
// password is ..." does.
func TestForgetAThingByName(t *testing.T) {
	for _, tt := range []struct {
		l                    locale.Lang
		tell, forget, forgot string
	}{
		{locale.English, "remember that the wifi password is hunter2", "forget the wifi password", "OK, I've forgotten that."},
		{locale.English, "remember that my bike is blue", "forget my bike", "OK, I've forgotten that."},
		{locale.German, "merk dir, dass das WLAN-Passwort hunter2 ist", "vergiss das WLAN-Passwort", "OK, das habe ich vergessen."},
		{locale.Spanish, "recuerda que la contraseña del wifi es hunter2", "olvida la contraseña del wifi", "Vale, ya lo he olvidado."},
		{locale.French, "retiens que le mot de passe du wifi est hunter2", "oublie le mot de passe du wifi", "D'accord, c'est oublié."},
	} {
		f := newSealedFixture(t)
		f.sayIn(t, tt.l, tt.tell)
		if facts, _ := f.db.Facts().All(t.Context()); len(facts) != 1 {
			t.Errorf("%s %q: facts %+v, want one", tt.l, tt.tell, facts)
			continue
		}
		r := f.sayIn(t, tt.l, tt.forget)
		if facts, _ := f.db.Facts().All(t.Context()); len(facts) != 0 || r.Spoken != tt.forgot {
			t.Errorf("%s %q after %q: said %q, facts %+v; want none, said %q", tt.l, tt.forget, tt.tell, r.Spoken, facts, tt.forgot)
		}
	}
}

// TestForgetOnlyWhatHoldsEveryWord: forget deletes a fact only when it
// is the one fact holding every content word asked for. When several
// hold them it deletes none and names them; when one holds only some, it
// deletes none and names the closest, a secret in it unsaid; in each
// language.
func TestForgetOnlyWhatHoldsEveryWord(t *testing.T) {
	type step struct {
		say, want string
		left      int
	}
	for _, tt := range []struct {
		l     locale.Lang
		tell  []string
		steps []step
	}{
		{locale.English, []string{"remember that my car is parked on level 3", "remember that my car keys are in the kitchen drawer", "remember that the wifi password is hunter2"}, []step{
			{"forget my car", "I didn't forget anything, because more than one thing I remember fits: your car is parked on level 3 and your car keys are in the kitchen drawer. Tell me more about the one to forget.", 3},
			{"forget that my car is parked in the garage", "I didn't forget anything: nothing I remember has all those words. The closest is that your car is parked on level 3.", 3},
			{"forget that the wifi password is hunter3", "I didn't forget anything: nothing I remember has all those words. The closest is that the wifi password is a secret.", 3},
			{"forget that the wifi password is hunter2", "OK, I've forgotten that.", 2},
			{"forget that my car keys are in the kitchen drawer", "OK, I've forgotten that.", 1},
		}},
		{locale.German, []string{"merk dir, dass mein Auto auf Ebene 3 steht", "merk dir, dass mein Auto blau ist", "merk dir, dass das WLAN-Passwort hunter2 ist"}, []step{
			{"vergiss mein Auto", "Ich habe nichts vergessen, weil mehr als eine Sache passt, die ich mir gemerkt habe: dein Auto steht auf Ebene 3 und dein Auto ist blau. Sag mir mehr über die, die ich vergessen soll.", 3},
			{"vergiss, dass mein Auto in der Garage steht", "Ich habe nichts vergessen: nichts, was ich mir gemerkt habe, enthält all diese Wörter. Am nächsten kommt: dein Auto steht auf Ebene 3.", 3},
			{"vergiss, dass das WLAN-Passwort hunter3 ist", "Ich habe nichts vergessen: nichts, was ich mir gemerkt habe, enthält all diese Wörter. Am nächsten kommt: das WLAN-Passwort ist ein Geheimnis.", 3},
			{"vergiss, dass das WLAN-Passwort hunter2 ist", "OK, das habe ich vergessen.", 2},
		}},
		{locale.Spanish, []string{"recuerda que mi coche está en la planta 3", "recuerda que las llaves de mi coche están en el cajón", "recuerda que la contraseña del wifi es hunter2"}, []step{
			{"olvida mi coche", "No he olvidado nada, porque encaja más de una cosa que recuerdo: tu coche está en la planta 3 y las llaves de tu coche están en el cajón. Dime más sobre la que debo olvidar.", 3},
			{"olvida que mi coche está en el garaje", "No he olvidado nada: nada de lo que recuerdo tiene todas esas palabras. Lo más parecido es que tu coche está en la planta 3.", 3},
			{"olvida que la contraseña del wifi es hunter3", "No he olvidado nada: nada de lo que recuerdo tiene todas esas palabras. Lo más parecido es que la contraseña del wifi es un secreto.", 3},
			{"olvida que la contraseña del wifi es hunter2", "Vale, ya lo he olvidado.", 2},
		}},
		{locale.French, []string{"souviens-toi que ma voiture est au niveau 3", "souviens-toi que les clés de ma voiture sont dans le tiroir", "souviens-toi que le mot de passe du wifi est hunter2"}, []step{
			{"oublie ma voiture", "Je n'ai rien oublié, car plus d'une chose dont je me souviens correspond : ta voiture est au niveau 3 et les clés de ta voiture sont dans le tiroir. Dis-m'en plus sur celle à oublier.", 3},
			{"oublie que ma voiture est au garage", "Je n'ai rien oublié : rien de ce dont je me souviens ne contient tous ces mots. Le plus proche : ta voiture est au niveau 3.", 3},
			{"oublie que le mot de passe du wifi est hunter3", "Je n'ai rien oublié : rien de ce dont je me souviens ne contient tous ces mots. Le plus proche : le mot de passe du wifi est un secret.", 3},
			{"oublie que le mot de passe du wifi est hunter2", "D'accord, c'est oublié.", 2},
		}},
	} {
		f := newSealedFixture(t)
		for _, s := range tt.tell {
			f.sayIn(t, tt.l, s)
		}
		for _, s := range tt.steps {
			r := f.sayIn(t, tt.l, s.say)
			facts, _ := f.db.Facts().All(t.Context())
			if r.Spoken != s.want || len(facts) != s.left {
				t.Errorf("%s %q: said %q, %d facts left; want %q, %d left", tt.l, s.say, r.Spoken, len(facts), s.want, s.left)
			}
			if strings.Contains(r.Spoken, "hunter2") {
				t.Errorf("%s %q: said the secret: %q", tt.l, s.say, r.Spoken)
			}
		}
	}
}

// TestForgetWithoutWordsForgetsNothing: "forget about it" names no fact:
// even the only one remembered stays.
func TestForgetWithoutWordsForgetsNothing(t *testing.T) {
	f := newFixture(t)
	f.say(t, "remember that my bike is blue")
	for _, say := range []string{"forget about it", "forget about that", "forget what I said about this"} {
		said, _ := f.say(t, say)
		if facts, _ := f.db.Facts().All(t.Context()); len(facts) != 1 || said != "I don't remember anything like that." {
			t.Errorf("%q: said %q, facts %+v; want the fact kept", say, said, facts)
		}
	}
}
