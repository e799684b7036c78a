package box

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/gpio/gpiotest"
	"periph.io/x/conn/v3/spi"

	"github.com/harkbox/hark/device/board"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/sim"
)

// heldPin is a GPIO line another program requested: every request of it
// fails as the kernel's does, and its consumer label names the holder.
type heldPin struct {
	gpiotest.Pin
	holder string
}

func (p *heldPin) In(gpio.Pull, gpio.Edge) error {
	return errors.New("line_request ioctl: device or resource busy")
}
func (p *heldPin) Out(gpio.Level) error {
	return errors.New("line_request ioctl: device or resource busy")
}
func (p *heldPin) Consumer() string { return p.holder }

// A board whose button line another program holds, and whose LEDs' SPI
// device is missing, still opens: the button and the LEDs are faults the
// self-test names (the holder included), not an exit.
func TestBusyButtonAndMissingSPIAreFaultsNotAnExit(t *testing.T) {
	cfg, _ := configure(t, "", nil)
	k := deviceKit{cfg: cfg, log: slog.New(slog.DiscardHandler), screen: sim.NewScreen(&strings.Builder{}, false),
		lines: lines{
			pin: func(name string) (gpio.PinIO, error) {
				return &heldPin{Pin: gpiotest.Pin{N: name}, holder: "fan-control"}, nil
			},
			spi: func(dev string) (spi.PortCloser, error) {
				return nil, errors.New("board: SPI " + dev + ": no such file or directory")
			},
		}}
	prof, _ := board.Lookup("respeaker-2mic")
	d := &devices{}
	k.openControls(d, prof)
	if d.events == nil || d.gestures != nil || d.display != nil {
		t.Errorf("events %v, gestures %v, display %v; want a box without button or LEDs that still takes events", d.events, d.gestures, d.display)
	}
	got := map[string]string{}
	for _, c := range d.faults {
		got[c.Name] = c.Detail
	}
	if !strings.Contains(got["button"], `held by "fan-control"`) || !strings.Contains(got["button"], "GPIO17") {
		t.Errorf("button fault %q; want it to name GPIO17 and its holder", got["button"])
	}
	if !strings.Contains(got["leds"], "/dev/spidev0.0") {
		t.Errorf("LED fault %q; want the SPI device named", got["leds"])
	}
	st := health.New(health.Options{Storage: func(context.Context) error { return nil }, Devices: d.faults, Ready: true, State: "idle"}).Status(t.Context())
	if ok, why := st.Healthy(); ok || !strings.Contains(why, "button") {
		t.Errorf("Healthy = %v %q; want the button's fault", ok, why)
	}
}

// A board whose LED lines another program holds: the LEDs are a fault
// that names the holder, the button works.
func TestBusyLEDLineNamesItsHolder(t *testing.T) {
	cfg, _ := configure(t, "", nil)
	k := deviceKit{cfg: cfg, log: slog.New(slog.DiscardHandler), screen: sim.NewScreen(&strings.Builder{}, false),
		lines: lines{pin: func(name string) (gpio.PinIO, error) {
			if name == "GPIO23" {
				return &heldPin{Pin: gpiotest.Pin{N: name}, holder: "led-daemon"}, nil
			}
			return &gpiotest.Pin{N: name, EdgesChan: make(chan gpio.Level)}, nil
		}}}
	prof, _ := board.Lookup("generic-i2s")
	d := &devices{}
	k.openControls(d, prof)
	if d.gestures == nil {
		t.Error("the button did not open")
	}
	if len(d.faults) != 1 || d.faults[0].Name != "leds" || !strings.Contains(d.faults[0].Detail, `GPIO23 is held by "led-daemon"`) {
		t.Errorf("faults %+v; want the LEDs', naming GPIO23 and its holder", d.faults)
	}
}
