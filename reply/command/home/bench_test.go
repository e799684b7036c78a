package home

import (
	"fmt"
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// BenchmarkOfflineHomeCommand is "turn on the living room main light" from
// the utterance to Home Assistant's answer on loopback, without a model:
// the templates matched with the house's names, then the service call. A
// house of 14 entities, and one of 314.
func BenchmarkOfflineHomeCommand(b *testing.B) {
	for _, extra := range []int{0, 300} {
		b.Run(fmt.Sprintf("entities=%d", 14+extra), func(b *testing.B) {
			ha, srv := newFakeHA(b)
			rooms := []string{"Hall", "Attic", "Cellar", "Nursery", "Garden", "Office", "Landing", "Porch", "Pantry", "Study"}
			for i := range extra {
				ha.states = append(ha.states, ent(fmt.Sprintf("sensor.s%d", i), fmt.Sprintf("%s Sensor %d", rooms[i%len(rooms)], i), "1"))
			}
			keys := storeMap{URLSecret: srv.URL, TokenSecret: ha.token}
			c := NewClient(keys)
			reg := command.NewRegistry(command.Options{Secrets: keys, Lists: c})
			reg.Register(Control(c), Service(c))
			for b.Loop() {
				u := reg.Understand(b.Context(), locale.English, "turn on the living room main light")
				if !u.OK {
					b.Fatalf("not understood: %s %s", u.Reason, u.Detail)
				}
				if r := reg.RunRoute(b.Context(), u.Route, "turn on the living room main light"); r.Kind != command.Success {
					b.Fatalf("%+v", r)
				}
			}
		})
	}
}
