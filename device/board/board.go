// Package board names the hardware profiles Hark runs on: which GPIO line is
// the button, what LEDs there are and how they are driven, and which ALSA
// devices capture and play. Picking a profile is one configuration key
// (board = "respeaker-2mic"); device/box wires the drivers.
package board

import (
	"fmt"
	"strings"

	"github.com/harkbox/hark/pipeline/pcm"
)

// LEDKind is how a board's LEDs are driven.
type LEDKind string

// The LED kinds.
const (
	APA102   LEDKind = "apa102"   // addressable RGB LEDs on SPI
	PlainLED LEDKind = "gpio"     // one GPIO line per LED
	Terminal LEDKind = "terminal" // the simulation's status line
	NoLEDs   LEDKind = "none"
)

// Profile is one supported board.
type Profile struct {
	Name        string
	Description string
	// Button is the GPIO line of the push button ("GPIO17"), empty when the
	// keyboard stands in.
	Button string
	LEDs   LEDKind
	// LEDCount is the number of LEDs; SPI is the SPI device for APA102;
	// LEDPins are the lines of plain GPIO LEDs.
	LEDCount int
	SPI      string
	LEDPins  []string
	// Capture and Playback are ALSA device names, defined by the board's
	// asound.conf on the image (buildroot/board/<name>/asound.conf).
	Capture, Playback string
	// CaptureFormat and PlaybackFormat are what the devices take natively:
	// Hark asks for them and converts in pipeline/pcm, where ALSA's plug
	// would convert with its simpler resampler.
	CaptureFormat, PlaybackFormat pcm.Format
}

var profiles = []Profile{
	{
		Name: "sim", Description: "a desktop: Enter is the button, WAV files (or the sound card) are the microphone and speaker",
		LEDs: Terminal, LEDCount: 1,
		Capture: "default", Playback: "default", CaptureFormat: speech, PlaybackFormat: cd,
	},
	{
		Name: "respeaker-2mic", Description: "Seeed ReSpeaker 2-Mics Pi HAT: WM8960 codec on I2S, 3 APA102 LEDs, button on GPIO17",
		Button: "GPIO17", LEDs: APA102, LEDCount: 3, SPI: "/dev/spidev0.0",
		Capture: "hark_capture", Playback: "hark_playback",
		CaptureFormat:  pcm.Format{Rate: 16000, Channels: 2, Encoding: pcm.S16LE},
		PlaybackFormat: cd,
	},
	{
		Name: "generic-i2s", Description: "an I2S MEMS microphone (INMP441, googlevoicehat overlay), an I2S DAC, a button and plain GPIO LEDs",
		Button: "GPIO17", LEDs: PlainLED, LEDCount: 3, LEDPins: []string{"GPIO22", "GPIO23", "GPIO24"},
		Capture: "hark_capture", Playback: "hark_playback",
		CaptureFormat:  pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S32LE},
		PlaybackFormat: pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S32LE},
	},
	{
		Name: "usb", Description: "USB microphone and speaker for development, button and LEDs optional",
		Button: "GPIO17", LEDs: NoLEDs,
		Capture: "default", Playback: "default", CaptureFormat: speech, PlaybackFormat: cd,
	},
}

// The usual formats: what speech recognition wants, and 48 kHz stereo.
var (
	speech = pcm.Format{Rate: pcm.SpeechRate, Channels: pcm.SpeechChannels, Encoding: pcm.S16LE}
	cd     = pcm.Format{Rate: 48000, Channels: 2, Encoding: pcm.S16LE}
)

// Names lists the profiles.
func Names() []string {
	out := make([]string, len(profiles))
	for i, p := range profiles {
		out[i] = p.Name
	}
	return out
}

// Lookup returns the profile called name.
func Lookup(name string) (Profile, error) {
	for _, p := range profiles {
		if p.Name == name {
			return p, nil
		}
	}
	return Profile{}, fmt.Errorf("board: unknown profile %q (want one of %s)", name, strings.Join(Names(), ", "))
}
