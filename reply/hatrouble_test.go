package reply

import (
	"context"
	"strings"
	"testing"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/home"
	"github.com/harkbox/hark/reply/command/home/hatest"
	"github.com/harkbox/hark/reply/llm"
)

type haKeys map[string]string

func (k haKeys) Get(_ context.Context, key string) (string, error) { return k[key], nil }

// TestHouseTroubleIsSaid: with the model out of reach too, a question
// about the house asked while Home Assistant is out of reach, or refuses
// the token, is answered with that trouble, not with not having worked
// out what was meant; so is a request naming a device ("turn on the
// kitchen light") while Home Assistant is out of reach and its names
// cannot be read.
func TestHouseTroubleIsSaid(t *testing.T) {
	for _, tt := range []struct {
		name  string
		trick func(*hatest.HA, haKeys)
		want  string
	}{
		{"out of reach", func(_ *hatest.HA, k haKeys) { k[home.URLSecret] = deadURL(t) }, "I can't reach Home Assistant right now."},
		{"token refused", func(ha *hatest.HA, _ haKeys) { ha.Token = "revoked" }, "Home Assistant isn't set up yet. Set HA_URL and HA_TOKEN with hark secrets set."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ha := hatest.New(t, nil, nil, nil, []hatest.Entity{{ID: "light.kitchen", Name: "Kitchen Light", State: "on"}})
			keys := haKeys(ha.Secrets())
			tt.trick(ha, keys)
			c := home.NewClient(keys)
			reg := command.NewRegistry(command.Options{Secrets: keys, Lists: c})
			if err := reg.Register(home.Control(c), home.State(c), home.Service(c), home.Query(c)); err != nil {
				t.Fatal(err)
			}
			f := newFixture(t, smallModel, Options{Commands: reg})
			model, _ := llm.New(llm.Options{Host: deadHost(t), Model: "x"})
			f.eng.o.Model, f.eng.o.Aux, f.eng.o.Info = model, model, nil
			for _, q := range []string{"which lights are on", "turn on the kitchen light"} {
				if q != "which lights are on" && tt.name != "out of reach" {
					continue // a token refused still lists no names to match
				}
				_, said, _ := f.ask(t, q)
				if strings.Join(said, " ") != tt.want {
					t.Errorf("%q: said %q, want %q", q, said, tt.want)
				}
			}
		})
	}
}
