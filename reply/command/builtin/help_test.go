package builtin

import (
	"context"
	"strings"
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// setUp is a household set up as its fields say.
type setUp struct{ home, weather bool }

func (s setUp) SetUp(context.Context) (home, weather bool) { return s.home, s.weather }

// TestHelpNamesWhatIsSetUp: "what can you do" names the home only when
// Home Assistant is set up, and the weather at home only when the box
// has a home place (without one, the weather of a place named), in each
// language.
func TestHelpNamesWhatIsSetUp(t *testing.T) {
	home := map[locale.Lang]string{locale.English: "control your home", locale.German: "Zuhause", locale.Spanish: "casa", locale.French: "maison"}
	named := map[locale.Lang]string{locale.English: "a place you name", locale.German: "Ort", locale.Spanish: "lugar", locale.French: "endroit"}
	weather := map[locale.Lang]string{locale.English: "weather", locale.German: "Wetter", locale.Spanish: "tiempo", locale.French: "météo"}
	ask := map[locale.Lang]string{locale.English: "what can you do", locale.German: "was kannst du", locale.Spanish: "qué puedes hacer", locale.French: "que sais-tu faire"}
	for _, s := range []setUp{{true, true}, {false, true}, {true, false}, {false, false}} {
		reg := command.NewRegistry(command.Options{})
		if err := reg.Register(All(Deps{Setup: s})...); err != nil {
			t.Fatal(err)
		}
		for _, l := range locale.All {
			u := reg.Understand(t.Context(), l, ask[l])
			if !u.OK {
				t.Fatalf("%s %q: not understood (%s %s)", l, ask[l], u.Reason, u.Detail)
			}
			said := reg.RunRoute(locale.WithLanguage(t.Context(), string(l)), u.Route, ask[l]).Spoken
			if strings.Contains(said, home[l]) != s.home || strings.Contains(said, named[l]) == s.weather || !strings.Contains(said, weather[l]) {
				t.Errorf("home set up %v, weather's home %v: %s %q said %q", s.home, s.weather, l, ask[l], said)
			}
		}
	}
}
