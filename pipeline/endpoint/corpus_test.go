package endpoint_test

import (
	"testing"

	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/endpoint/endpointtest"
)

// TestCorpusEnergy is the floor under the energy detector's endpointing:
// it fails when endpointing gets worse than it is. The table is logged (and
// printed by make bench).
func TestCorpusEnergy(t *testing.T) {
	tb := endpointtest.Run(t, speechClip, func() endpoint.Detector { return &endpoint.Energy{} })
	t.Logf("energy VAD, %d utterances:\n%s", tb.Row("clean").Cases, tb)
	floor := func(cond string, heardPct float64, early, lost int) {
		r := tb.Row(cond)
		if float64(r.Heard) < heardPct/100*float64(r.Cases) || r.Early > early || r.StartLost+r.EndLost > lost {
			t.Errorf("%s: heard %d of %d, %d ended early, %d lost speech at the start or end; the floor is %.0f %% heard, %d early, %d lost",
				cond, r.Heard, r.Cases, r.Early, r.StartLost+r.EndLost, heardPct, early, lost)
		}
	}
	floor("clean", 100, 0, 0)
	floor("SNR 30", 100, 0, 0)
	floor("SNR 20", 100, 0, 0)
	floor("SNR 10", 95, 2, 4)
}
