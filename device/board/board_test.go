package board

import (
	"strings"
	"testing"
)

func TestProfilesAreComplete(t *testing.T) {
	for _, name := range Names() {
		p, err := Lookup(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.CaptureFormat.Validate(); err != nil {
			t.Errorf("%s capture: %v", name, err)
		}
		if err := p.PlaybackFormat.Validate(); err != nil {
			t.Errorf("%s playback: %v", name, err)
		}
		if p.Name == "sim" {
			continue
		}
		if p.Button == "" || p.Capture == "" || p.Playback == "" {
			t.Errorf("%s: button %q, capture %q, playback %q; a board needs all three", name, p.Button, p.Capture, p.Playback)
		}
		switch p.LEDs {
		case APA102:
			if p.SPI == "" || p.LEDCount == 0 {
				t.Errorf("%s: APA102 LEDs need an SPI device and a count", name)
			}
		case PlainLED:
			if len(p.LEDPins) != p.LEDCount {
				t.Errorf("%s: %d LED pins for %d LEDs", name, len(p.LEDPins), p.LEDCount)
			}
		}
	}
}

func TestLookupUnknown(t *testing.T) {
	if _, err := Lookup("pi9"); err == nil || !strings.Contains(err.Error(), `"pi9"`) || !strings.Contains(err.Error(), "respeaker-2mic") {
		t.Errorf("err = %v, want the name and the choices", err)
	}
}

func TestOpenErrorsAreClear(t *testing.T) {
	if _, err := SPI("spi0"); err == nil || !strings.Contains(err.Error(), "/dev/spidevB.C") {
		t.Errorf("a bad SPI name: %v", err)
	}
	// This machine may have GPIO chips or not; a line that no chip has is
	// an error either way, naming it.
	if _, err := Pin("GPIO_NOT_A_LINE"); err == nil || !strings.Contains(err.Error(), "GPIO_NOT_A_LINE") {
		t.Errorf("a missing line: %v", err)
	}
}
