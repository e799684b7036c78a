// Package sim is the desktop stand-in for Hark's hardware, so the whole
// appliance runs on a laptop: the Enter key is the button, a WAV file or typed
// text is the microphone, WAV files in the data directory are the speaker, and
// one line of the terminal shows the LEDs.
package sim

import (
	"context"
	"errors"

	"github.com/harkbox/hark/pipeline"
)

// ErrNoEngine reports recorded audio with no speech-to-text engine to hear it.
var ErrNoEngine = errors.New("no speech-to-text engine is built in; type what you would say instead")

// Typed is the transcriber of the simulation without a speech-to-text engine:
// what the user typed is what they said.
type Typed struct{}

var _ pipeline.Transcriber = Typed{}

// Transcribe returns the typed text of u.
func (Typed) Transcribe(ctx context.Context, u pipeline.Utterance) (pipeline.Transcript, error) {
	switch {
	case u.Typed != "":
		return pipeline.Transcript{Text: u.Typed}, nil
	case len(u.Audio.Samples) > 0:
		return pipeline.Transcript{}, ErrNoEngine
	}
	return pipeline.Transcript{}, pipeline.ErrNoSpeech
}
