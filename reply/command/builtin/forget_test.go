package builtin

import (
	"path/filepath"
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
