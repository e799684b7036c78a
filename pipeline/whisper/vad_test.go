//go:build whisper && cgo

package whisper

import (
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/endpoint"
	"github.com/harkbox/hark/pipeline/endpoint/endpointtest"
)

// The Silero model as the endpoint detector: on real speech padded with
// silence, the utterance ends the configured silence after the speech.
func TestSileroEndpointing(t *testing.T) {
	v, err := NewVAD(shared(t, "models/ggml-silero-v6.2.0.bin"), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	var _ endpoint.Detector = v
	speechPart := speech(t, "testdata/speech/librispeech-mini/1089-134691-0000.wav").Samples // "he could wait no longer"
	lead := make([]float32, 16000)
	audio := append(append(lead, speechPart...), make([]float32, 3*16000)...)

	// Where the speech is, by the model alone.
	var first, last time.Duration = -1, -1
	frame := time.Duration(v.FrameSize()) * time.Second / 16000
	for i := 0; i+v.FrameSize() <= len(audio); i += v.FrameSize() {
		if v.Speech(audio[i:i+v.FrameSize()]) >= 0.5 {
			at := time.Duration(i/v.FrameSize()) * frame
			if first < 0 {
				first = at
			}
			last = at + frame
		}
	}
	clipEnd := time.Second + time.Duration(len(speechPart))*time.Second/16000
	if first < 900*time.Millisecond || last > clipEnd || last < time.Second+time.Second/2 {
		t.Fatalf("the model heard speech from %v to %v; the clip runs from 1s to %v", first, last, clipEnd)
	}

	v.Reset()
	ep := &endpoint.Endpointer{Silence: 700 * time.Millisecond, StartTimeout: 5 * time.Second}
	var ended time.Duration
	for i := 0; i+v.FrameSize() <= len(audio); i += v.FrameSize() {
		if d := ep.Push(v.Speech(audio[i:i+v.FrameSize()]), frame); d == endpoint.Ended {
			ended = time.Duration(i/v.FrameSize()+1) * frame
			break
		}
	}
	if late := ended - last - 700*time.Millisecond; ended == 0 || late < 0 || late > 200*time.Millisecond {
		t.Errorf("ended at %v; speech ended at %v: %v after the 700 ms of silence", ended, last, late)
	}
	t.Logf("speech %v to %v, utterance ended at %v", first, last, ended)
}

// TestGatedSileroOnSpeech: the Silero model under the voice gate, as the
// box listens, on the real recordings the energy detector is held to:
// the gate cuts no one short. Silero places the end of speech apart from
// the recording's energy, so its lateness is bounded more loosely.
func TestGatedSileroOnSpeech(t *testing.T) {
	v, err := NewVAD(shared(t, "models/ggml-silero-v6.2.0.bin"), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer v.Close()
	endpointtest.OnSpeech(t, speechClip, func() endpoint.Detector { return endpoint.Gate(v) }, 400*time.Millisecond)
}

// A detector used after Close, on the goroutine that closed it, hears
// nothing: it never hands whisper.cpp the freed model. (Close while
// another goroutine scores is still a race: VAD is not safe for concurrent
// use, and its owner stops the recording first.)
func TestSileroClosedHearsNothing(t *testing.T) {
	v, err := NewVAD(shared(t, "models/ggml-silero-v6.2.0.bin"), 1)
	if err != nil {
		t.Fatal(err)
	}
	words := speech(t, "testdata/speech/librispeech-mini/1089-134691-0000.wav").Samples
	v.Close()
	v.Reset()
	for i := 0; i+v.FrameSize() <= len(words); i += v.FrameSize() {
		if p := v.Speech(words[i : i+v.FrameSize()]); p != 0 {
			t.Fatalf("a closed detector scored %v", p)
		}
	}
}
