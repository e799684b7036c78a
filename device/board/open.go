package board

import (
	"fmt"
	"strings"
	"sync"

	"periph.io/x/conn/v3/driver/driverreg"
	"periph.io/x/conn/v3/gpio"
	"periph.io/x/conn/v3/pin"
	"periph.io/x/conn/v3/spi"
	"periph.io/x/host/v3/gpioioctl"
	"periph.io/x/host/v3/sysfs"
)

var hostInit = sync.OnceValue(func() error {
	_, err := driverreg.Init()
	return err
})

// Pin opens the GPIO line called name ("GPIO17") through the kernel's GPIO
// character device (/dev/gpiochip*), periph's gpioioctl driver.
func Pin(name string) (gpio.PinIO, error) {
	if err := hostInit(); err != nil {
		return nil, fmt.Errorf("board: GPIO: %w", err)
	}
	if len(gpioioctl.Chips) == 0 {
		return nil, fmt.Errorf("board: GPIO line %s: no GPIO chips (/dev/gpiochip*) on this machine", name)
	}
	for _, chip := range gpioioctl.Chips {
		if line := chip.ByName(name); line != nil {
			return line, nil
		}
	}
	return nil, fmt.Errorf("board: no GPIO line named %s on %d chips", name, len(gpioioctl.Chips))
}

// SPI opens an SPI device by its path ("/dev/spidev0.0").
func SPI(dev string) (spi.PortCloser, error) {
	var bus, cs int
	if _, err := fmt.Sscanf(dev, "/dev/spidev%d.%d", &bus, &cs); err != nil {
		return nil, fmt.Errorf("board: SPI device %q is not /dev/spidevB.C", dev)
	}
	p, err := sysfs.NewSPI(bus, cs)
	if err != nil {
		return nil, fmt.Errorf("board: SPI %s: %w", dev, err)
	}
	return p, nil
}

// Explain is err from using the GPIO line p with who holds it, when the
// line is busy: the consumer label the kernel keeps for the program that
// requested it (gpioinfo shows the same).
func Explain(p pin.Pin, err error) error {
	if err == nil || !strings.Contains(err.Error(), "busy") {
		return err
	}
	holder := ""
	if c, ok := p.(interface{ Consumer() string }); ok {
		holder = c.Consumer()
	}
	if holder == "" {
		return fmt.Errorf("board: GPIO line %s is held by another program (its label is empty; gpioinfo lists the holders): %w", p.Name(), err)
	}
	return fmt.Errorf("board: GPIO line %s is held by %q: %w", p.Name(), holder, err)
}
