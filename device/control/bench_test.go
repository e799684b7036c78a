package control

import (
	"testing"
)

// BenchmarkAlertsOverTheSocket is what `hark timers` costs against a
// running daemon, less the process start: one GET /api/v1/alerts over the
// unix socket, peer credentials read, JSON both ways.
func BenchmarkAlertsOverTheSocket(b *testing.B) {
	c := Dial(serveAPI(b, houseAPI(newHouse())))
	defer c.Close()
	for b.Loop() {
		if _, err := c.Alerts(b.Context(), true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAlertsInProcess is the same through the in-process transport a
// command uses when no daemon runs.
func BenchmarkAlertsInProcess(b *testing.B) {
	c := Local(Handler(houseAPI(newHouse())))
	defer c.Close()
	for b.Loop() {
		if _, err := c.Alerts(b.Context(), true); err != nil {
			b.Fatal(err)
		}
	}
}
