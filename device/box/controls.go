package box

import (
	"context"
	"fmt"
	"strings"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/spi"

	"github.com/harkbox/hark/device/board"
	"github.com/harkbox/hark/device/sim"
	"github.com/harkbox/hark/gpio/button"
	"github.com/harkbox/hark/gpio/leds"
	"github.com/harkbox/hark/pipeline"
)

// lines opens GPIO lines and SPI devices by name: the board's through
// periph, or a test's doubles.
type lines struct {
	pin func(name string) (gpio.PinIO, error)
	spi func(dev string) (spi.PortCloser, error)
}

func (l lines) openPin(name string) (gpio.PinIO, error) {
	if l.pin == nil {
		return board.Pin(name)
	}
	return l.pin(name)
}

func (l lines) openSPI(dev string) (spi.PortCloser, error) {
	if l.spi == nil {
		return board.SPI(dev)
	}
	return l.spi(dev)
}

// openControls opens the board's button, LEDs and mute switch. One that
// is missing or busy is a fault the box runs on without, never an exit:
// it still rings, answers hark ask, the page and the talk box. On the usb
// profile (a development machine) the keyboard stands in for the button.
func (k deviceKit) openControls(d *devices, prof board.Profile) {
	cfg := k.cfg
	events := make(chan pipeline.Event)
	d.events = events // no press comes without a button
	name := cmpOr(cfg.Button.Pin, prof.Button)
	pin, err := k.lines.openPin(name)
	if err == nil {
		var b *button.Button
		b, err = button.New(pin, button.Options{
			ActiveHigh: cfg.Button.ActiveHigh, Debounce: cfg.Button.Debounce.Duration,
			Long: cfg.Button.LongPress.Duration, Double: cfg.Button.DoublePress.Duration,
			VeryLong: cfg.Button.VeryLongPress.Duration, Log: k.log,
		})
		err = board.Explain(pin, err)
		if err == nil {
			d.gestures = make(chan button.Event, 16)
			d.task(func(ctx context.Context) { b.Run(ctx, d.gestures) })
		}
	}
	switch {
	case err != nil && prof.Name == "usb":
		term := sim.NewButton(k.in, k.screen)
		d.events, d.lights = term.Events(), sim.NewLights(k.screen)
		d.task(term.Run)
		k.screen.Println("no button (" + err.Error() + "): press Enter instead")
	case err != nil:
		d.fault(k.log, "button", fmt.Errorf("%s: %w", name, err))
	}
	if strip, err := k.openLEDs(d, prof); err != nil {
		d.fault(k.log, "leds", err)
	} else if strip != nil {
		d.display = leds.NewDisplay(strip, leds.Options{DimIdle: cfg.LEDs.Idle == "dim", Log: k.log})
		d.task(d.display.Run)
	}
	if cfg.Button.MutePin != "" {
		if err := k.openMute(d); err != nil {
			d.fault(k.log, "mute switch", fmt.Errorf("button.mute_pin %s: %w", cfg.Button.MutePin, err))
		}
	}
}

// openLEDs opens the board's LEDs; nil for a board without.
func (k deviceKit) openLEDs(d *devices, prof board.Profile) (leds.Strip, error) {
	switch prof.LEDs {
	case board.APA102:
		port, err := k.lines.openSPI(prof.SPI)
		if err != nil {
			return nil, err
		}
		strip, err := leds.NewAPA102(port, prof.LEDCount, k.cfg.LEDs.Brightness)
		if err != nil {
			port.Close()
			return nil, err
		}
		d.closers = append(d.closers, port.Close)
		return strip, nil
	case board.PlainLED:
		names := prof.LEDPins
		if len(k.cfg.LEDs.Pins) > 0 {
			names = k.cfg.LEDs.Pins
		}
		var pins []gpio.PinOut
		for _, n := range names {
			p, err := k.lines.openPin(n)
			if err != nil {
				return nil, err
			}
			pins = append(pins, p)
		}
		strip, err := leds.NewPins(pins...)
		if err != nil {
			for _, p := range pins {
				if strings.Contains(err.Error(), p.String()) {
					return nil, board.Explain(p, err)
				}
			}
			return nil, err
		}
		return strip, nil
	}
	return nil, nil
}

// openMute opens the mute switch, which mutes the microphone while on.
func (k deviceKit) openMute(d *devices) error {
	p, err := k.lines.openPin(k.cfg.Button.MutePin)
	if err != nil {
		return err
	}
	sw, err := button.New(p, button.Options{Debounce: k.cfg.Button.Debounce.Duration, Log: k.log})
	if err != nil {
		return board.Explain(p, err)
	}
	d.task(func(ctx context.Context) {
		levels := make(chan bool, 4)
		go sw.Levels(ctx, levels)
		for on := range levels {
			k.mute.set(ctx, d, on, true)
		}
	})
	return nil
}
