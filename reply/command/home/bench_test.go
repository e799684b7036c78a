package home

import (
	"fmt"
	"testing"

	"github.com/harkbox/hark/reply/command"
)

// BenchmarkOfflineHomeCommand is "turn on the living room light" from the
// utterance to Home Assistant's answer on loopback, without a model: the
// pre-route's fuzzy match over the cached state list, then the service
// call. A house of 14 entities, and one of 314.
func BenchmarkOfflineHomeCommand(b *testing.B) {
	for _, extra := range []int{0, 300} {
		b.Run(fmt.Sprintf("entities=%d", 14+extra), func(b *testing.B) {
			ha, srv := newFakeHA(b)
			rooms := []string{"Hall", "Attic", "Cellar", "Nursery", "Garden", "Office", "Landing", "Porch", "Pantry", "Study"}
			for i := range extra {
				ha.states = append(ha.states, ent(fmt.Sprintf("sensor.s%d", i), fmt.Sprintf("%s Sensor %d", rooms[i%len(rooms)], i), "1"))
			}
			keys := storeMap{URLSecret: srv.URL, TokenSecret: ha.token}
			reg := command.NewRegistry(command.Options{Secrets: keys})
			reg.Register(Control(NewClient(keys)))
			for b.Loop() {
				rt, ok := reg.PreRoute("turn on the living room light")
				if !ok {
					b.Fatal("not pre-routed")
				}
				if r := reg.RunRoute(b.Context(), rt, "turn on the living room light"); r.Kind != command.Success {
					b.Fatalf("%+v", r)
				}
			}
		})
	}
}
