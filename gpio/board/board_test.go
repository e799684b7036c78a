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
