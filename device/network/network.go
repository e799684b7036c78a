// Package network is the box's network as its web page shows and changes
// it: the addresses of its interfaces, and the Wi-Fi networks it joins,
// kept in wpa_supplicant's configuration file (see WiFi). Box is the real
// board's; Sim is the simulation's stand-in, which keeps its Wi-Fi list in
// the data directory and changes nothing on the computer it runs on.
package network

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
)

// Address is one address of a network interface.
type Address struct {
	Interface string // the interface's name: wlan0, eth0
	// Address is in CIDR notation (192.168.1.20/24, fe80::1/64); "" for
	// an interface without any address, listed so that a Wi-Fi interface
	// that is down still shows.
	Address string
	Up      bool // the interface is administratively up
}

// Addresses lists the addresses of every interface but the loopback, in
// the system's order of interfaces.
func Addresses() ([]Address, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("network: list the interfaces: %w", err)
	}
	return addresses(ifs, (*net.Interface).Addrs)
}

// addresses is Addresses over given interfaces and their addresses.
func addresses(ifs []net.Interface, addrs func(*net.Interface) ([]net.Addr, error)) ([]Address, error) {
	var out []Address
	for i := range ifs {
		ifc := &ifs[i]
		if ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		up := ifc.Flags&net.FlagUp != 0
		as, err := addrs(ifc)
		if err != nil {
			return nil, fmt.Errorf("network: addresses of %s: %w", ifc.Name, err)
		}
		if len(as) == 0 {
			out = append(out, Address{Interface: ifc.Name, Up: up})
			continue
		}
		for _, a := range as {
			out = append(out, Address{Interface: ifc.Name, Address: a.String(), Up: up})
		}
	}
	return out, nil
}

// Box is the network of a real board: its interfaces' addresses, and the
// Wi-Fi networks of WiFi, whose Apply makes wpa_supplicant read them.
type Box struct {
	WiFi *WiFi // nil on a board without Wi-Fi
}

// errNoWiFi is AddWiFi's error on a board without Wi-Fi.
var errNoWiFi = errors.New("network: this speaker has no Wi-Fi to set up")

// Addresses lists the board's addresses; see the package's Addresses.
func (b *Box) Addresses(context.Context) ([]Address, error) { return Addresses() }

// Networks lists the SSIDs of the Wi-Fi networks configured; none on a
// board without Wi-Fi.
func (b *Box) Networks(context.Context) ([]string, error) {
	if b.WiFi == nil {
		return nil, nil
	}
	return b.WiFi.Networks()
}

// AddWiFi adds or replaces a Wi-Fi network and applies it; see WiFi.Add.
func (b *Box) AddWiFi(ctx context.Context, ssid, psk string) error {
	if b.WiFi == nil {
		return errNoWiFi
	}
	return b.WiFi.Add(ctx, ssid, psk)
}

// Simulated reports false: the board's network is real.
func (b *Box) Simulated() bool { return false }

// SimFile is the name of the simulation's stand-in wpa_supplicant.conf in
// its directory.
const SimFile = "wpa_supplicant.conf"

// Sim is the simulation's network: the addresses are the computer's own,
// only read; the Wi-Fi networks are a stand-in file that nothing applies,
// so that the page can be tried without touching the computer's network.
type Sim struct {
	WiFi *WiFi // its Apply is nil
}

// Simulated returns the simulation's network, keeping its Wi-Fi networks
// in SimFile inside dir (the data directory, which must exist).
func Simulated(dir string) *Sim {
	return &Sim{WiFi: &WiFi{Path: filepath.Join(dir, SimFile)}}
}

// Addresses lists this computer's addresses; see the package's Addresses.
func (s *Sim) Addresses(context.Context) ([]Address, error) { return Addresses() }

// Networks lists the SSIDs in the stand-in file.
func (s *Sim) Networks(context.Context) ([]string, error) { return s.WiFi.Networks() }

// AddWiFi adds or replaces a network in the stand-in file, checked as on
// a board, and applies nothing.
func (s *Sim) AddWiFi(ctx context.Context, ssid, psk string) error {
	return s.WiFi.Add(ctx, ssid, psk)
}

// Simulated reports true.
func (s *Sim) Simulated() bool { return true }
