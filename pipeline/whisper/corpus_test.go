//go:build whisper && cgo

package whisper

import (
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/endpoint/endpointtest"
	"github.com/harkbox/hark/reply/command/home/hatest"
)

// TestCorpusSilero is the endpointing corpus (pipeline/endpoint's
// TestCorpusEnergy) with the Silero model under the voice gate as the
// detector, the default wherever whisper.cpp is built in, as the box
// listens (working ahead at each pause, ending on a short silence when the
// offline core of a box in a house takes the words so far for a whole
// request): it fails when endpointing with Silero gets worse than it is.
// The table is logged.
func TestCorpusSilero(t *testing.T) {
	v, err := NewVAD(shared(t, "models/ggml-silero-v6.2.0.bin"), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	reg := hatest.Household(t)
	// One model serves every case: the listener resets it for each.
	gated := endpoint.Gate(v) // as the box listens
	tb := endpointtest.Run(t, speechClip, func() endpoint.Detector { return gated }, endpointtest.Options{Complete: reg})
	t.Logf("Silero VAD, %d utterances:\n%s", tb.Row("clean").Cases, tb)
	floor := func(cond string, p50, p90 time.Duration) {
		r := tb.Row(cond)
		if r.Heard < r.Cases || r.Early > 0 || r.StartLost+r.EndLost > 0 {
			t.Errorf("%s: heard %d of %d, %d ended early, %d lost speech at the start or end; the floor is all heard, none early or lost",
				cond, r.Heard, r.Cases, r.Early, r.StartLost+r.EndLost)
		}
		if r.Lag(0.5) > p50 || r.Lag(0.9) > p90 {
			t.Errorf("%s: lag p50 %v, p90 %v; the floor is %v, %v", cond, r.Lag(0.5), r.Lag(0.9), p50, p90)
		}
	}
	for _, cond := range []string{"clean", "late press"} {
		floor(cond, 600*time.Millisecond, time.Second)
	}
	// Real recordings: the readings and the words cut from them wait the
	// long silence (the two commands name a light of the house and end on
	// Settle), and a real word's last sound in its room keeps Silero a
	// frame or two.
	floor("own room", time.Second, 1050*time.Millisecond)
	for _, snr := range []string{"SNR 30", "SNR 20", "SNR 10"} {
		floor(snr, 600*time.Millisecond, time.Second)
		for _, kind := range []string{"pink", "brown", "fan", "bed"} {
			floor(snr+" "+kind, 600*time.Millisecond, time.Second)
		}
	}
	floor("late press SNR 10", 600*time.Millisecond, time.Second)
	floor("SNR 30 babble", 600*time.Millisecond, time.Second)
	// Babble of voices 20 dB below the user's: the user stands clear of
	// them. At 10 dB a whole request ends as in a quiet room; after other
	// words, the room's voices are silence once a transcription of them
	// holds no words (Pauses.Murmur), and the longest wait then ends the
	// utterance.
	floor("SNR 20 babble", 600*time.Millisecond, time.Second)
	floor("SNR 10 babble", 600*time.Millisecond, time.Second)
}
