//go:build whisper && cgo

package whisper

import (
	"testing"

	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/endpoint/endpointtest"
)

// TestCorpusSilero is the endpointing corpus (pipeline/endpoint's
// TestCorpusEnergy) with the Silero model as the detector, the default
// wherever whisper.cpp is built in, with the same floor: it fails when
// endpointing with Silero gets worse than it is. The table is logged.
func TestCorpusSilero(t *testing.T) {
	v, err := NewVAD(shared(t, "models/ggml-silero-v6.2.0.bin"), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	// One model serves every case: the listener resets it for each.
	tb := endpointtest.Run(t, speechClip, func() endpoint.Detector { return v })
	t.Logf("Silero VAD, %d utterances:\n%s", tb.Row("clean").Cases, tb)
	for _, cond := range []string{"clean", "SNR 30", "SNR 20"} {
		if r := tb.Row(cond); r.Heard < r.Cases || r.Early > 0 || r.StartLost+r.EndLost > 0 {
			t.Errorf("%s: heard %d of %d, %d ended early, %d lost speech at the start or end; the floor is all heard, none early or lost",
				cond, r.Heard, r.Cases, r.Early, r.StartLost+r.EndLost)
		}
	}
}
