package box

import (
	"testing"

	ha "github.com/harkbox/hark/reply/command/home"
	"github.com/harkbox/hark/reply/command/weather"
)

// TestHelpKnowsWhatIsSetUp: the help command is told Home Assistant is
// set up once its address and token are kept, and the weather's home
// once a place is configured or set, never before.
func TestHelpKnowsWhatIsSetUp(t *testing.T) {
	for _, tt := range []struct {
		config                string
		secrets, place        bool
		wantHome, wantWeather bool
	}{
		{"", false, false, false, false},
		{"[weather]\nlocation = \"Berlin\"\n", false, false, false, true},
		{"", true, false, true, false},
		{"", false, true, false, true},
	} {
		cfg, res := configure(t, tt.config, nil)
		b, err := Open(cfg, res, Options{})
		if err != nil {
			t.Fatal(err)
		}
		ctx := t.Context()
		if tt.secrets {
			s := b.db.Secrets(cfg.Commands.SecretsKey)
			if err := s.Set(ctx, ha.URLSecret, "http://ha.invalid:8123"); err != nil {
				t.Fatal(err)
			}
			if err := s.Set(ctx, ha.TokenSecret, "t0ken"); err != nil {
				t.Fatal(err)
			}
		}
		if tt.place {
			if err := b.db.Settings().Set(ctx, "home_place", weather.Place{Name: "Lyon", Latitude: 45.76, Longitude: 4.84}); err != nil {
				t.Fatal(err)
			}
		}
		setup := b.parts().builtin.Setup
		if setup == nil {
			t.Fatal("the help command is not told what is set up")
		}
		if home, weather := setup.SetUp(ctx); home != tt.wantHome || weather != tt.wantWeather {
			t.Errorf("%q, secrets %v, place %v: home %v, weather %v; want %v, %v", tt.config, tt.secrets, tt.place, home, weather, tt.wantHome, tt.wantWeather)
		}
		b.Close()
	}
}
