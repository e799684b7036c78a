// Package sim is the desktop stand-in for Hark's hardware, so the whole
// appliance runs on a laptop: the Enter key is the button, a WAV file or typed
// text is the microphone, WAV files in the data directory are the speaker, and
// one line of the terminal shows the LEDs.
package sim

import "errors"

// ErrNoEngine reports recorded audio with no speech-to-text engine to hear it.
var ErrNoEngine = errors.New("sim: no speech-to-text engine is built in; type what you would say instead")
