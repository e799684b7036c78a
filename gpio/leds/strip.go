package leds

import (
	"fmt"
	"math"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/devices/v3/apa102"
)

// APA102 is a chain of APA102 pixels on an SPI port, through periph's
// driver (which applies its intensity and colour-temperature correction).
type APA102 struct {
	dev *apa102.Dev
	n   int
	buf []byte
}

var _ Strip = (*APA102)(nil)

// NewAPA102 drives n pixels on port at brightness (0 to 1; 0 takes 0.5),
// which becomes the driver's intensity.
func NewAPA102(port spi.Port, n int, brightness float64) (*APA102, error) {
	if brightness <= 0 {
		brightness = 0.5
	}
	o := apa102.DefaultOpts
	o.NumPixels = n
	o.Intensity = uint8(math.Round(min(brightness, 1) * 255))
	dev, err := apa102.New(port, &o)
	if err != nil {
		return nil, fmt.Errorf("leds: APA102 on %s: %w", port, err)
	}
	return &APA102{dev: dev, n: n, buf: make([]byte, 3*n)}, nil
}

// Len is the number of pixels.
func (a *APA102) Len() int { return a.n }

// Show lights the pixels.
func (a *APA102) Show(c []Color) error {
	for i, col := range c[:min(len(c), a.n)] {
		a.buf[3*i], a.buf[3*i+1], a.buf[3*i+2] = col.R, col.G, col.B
	}
	if _, err := a.dev.Write(a.buf); err != nil {
		return fmt.Errorf("leds: APA102: %w", err)
	}
	return nil
}

// Pins are plain LEDs, one GPIO line each. They cannot dim: an LED is lit
// when the pattern has it at least 40 % bright, so a spin shows one LED
// going round, a pulse shows as a slow blink and a dim idle as off.
type Pins struct {
	pins []gpio.PinOut
}

var _ Strip = (*Pins)(nil)

// NewPins drives plain LEDs on pins, and turns them off.
func NewPins(pins ...gpio.PinOut) (*Pins, error) {
	for _, p := range pins {
		if err := p.Out(gpio.Low); err != nil {
			return nil, fmt.Errorf("leds: LED on %s: %w", p, err)
		}
	}
	return &Pins{pins: pins}, nil
}

// Len is the number of LEDs.
func (p *Pins) Len() int { return len(p.pins) }

// Show switches each LED on or off.
func (p *Pins) Show(c []Color) error {
	for i, pin := range p.pins {
		on := gpio.Low
		if i < len(c) && max(c[i].R, c[i].G, c[i].B) >= 102 {
			on = gpio.High
		}
		if err := pin.Out(on); err != nil {
			return fmt.Errorf("leds: LED on %s: %w", pin, err)
		}
	}
	return nil
}
