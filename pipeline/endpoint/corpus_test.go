package endpoint_test

import (
	"os"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/endpoint/endpointtest"
	"github.com/harkbox/hark/reply/command/home/hatest"
)

// TestCorpusEnergy is the floor under the energy detector's endpointing,
// as the box listens: working ahead at each pause, and ending on a short
// silence when the words so far are a whole request to the offline core
// of a box in a house (hatest.Household).
// It fails when endpointing gets worse than it is. The table is logged
// (and printed by make bench).
func TestCorpusEnergy(t *testing.T) {
	if race {
		t.Skip("the corpus takes minutes under the race detector; make test runs it in its cgo-free step, without -race")
	}
	if os.Getenv("HARK_EMULATED") != "" {
		t.Skip("the corpus takes over ten minutes under emulation (make qemu); make test runs it natively")
	}
	tb := endpointtest.Run(t, speechClip, func() endpoint.Detector { return &endpoint.Energy{} }, endpointtest.Options{Complete: hatest.Household(t)})
	t.Logf("energy VAD, %d utterances:\n%s", tb.Row("clean").Cases, tb)
	floor := func(cond string, heardPct float64, early, lost int, p50, p90 time.Duration) {
		r := tb.Row(cond)
		if float64(r.Heard) < heardPct/100*float64(r.Cases) || r.Early > early || r.StartLost+r.EndLost > lost {
			t.Errorf("%s: heard %d of %d, %d ended early, %d lost speech at the start or end; the floor is %.0f %% heard, %d early, %d lost",
				cond, r.Heard, r.Cases, r.Early, r.StartLost+r.EndLost, heardPct, early, lost)
		}
		if r.Lag(0.5) > p50 || r.Lag(0.9) > p90 {
			t.Errorf("%s: lag p50 %v, p90 %v; the floor is %v, %v", cond, r.Lag(0.5), r.Lag(0.9), p50, p90)
		}
	}
	for _, cond := range []string{"SNR 30", "SNR 20", "SNR 10", "late press SNR 10"} {
		floor(cond, 100, 0, 0, 600*time.Millisecond, time.Second)
	}
	// The own room's are the real recordings: the readings and the words
	// cut from them wait the long silence (the two commands name a light
	// of the house and end on Settle).
	floor("own room", 100, 0, 0, time.Second, time.Second)
	for _, cond := range []string{"clean", "late press", "SNR 30 pink", "SNR 30 brown", "SNR 30 fan", "SNR 30 babble", "SNR 30 bed",
		"SNR 20 pink", "SNR 20 brown", "SNR 20 fan", "SNR 20 bed", "SNR 10 pink", "SNR 10 brown", "SNR 10 fan", "SNR 10 bed"} {
		floor(cond, 100, 0, 0, 600*time.Millisecond, time.Second)
	}
	// Babble of voices 20 dB below the user's: the user stands clear of
	// them. At 10 dB a whole request ends as in a quiet room; after other
	// words, the room's voices are silence once a transcription of them
	// holds no words (Pauses.Murmur), and the longest wait then ends the
	// utterance.
	floor("SNR 20 babble", 100, 0, 0, 600*time.Millisecond, time.Second)
	floor("SNR 10 babble", 100, 0, 0, 600*time.Millisecond, time.Second)
}
