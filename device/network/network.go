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
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
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

// Box is the network of a real board: its interfaces' addresses, the
// Wi-Fi networks of WiFi, whose Apply makes wpa_supplicant read them, and
// the box's own access point (see ap.go).
type Box struct {
	WiFi *WiFi // nil on a board without Wi-Fi
	// Interface is the Wi-Fi interface; default wlan0. APDir is where the
	// access point's configuration goes; default APDir.
	Interface, APDir string
}

func (b *Box) iface() string {
	if b.Interface == "" {
		return "wlan0"
	}
	return b.Interface
}

// Online reports whether the board is on a network; see Online.
func (b *Box) Online(ctx context.Context) (bool, error) { return Online(ctx) }

// Scan has wpa_supplicant look for networks in reach.
func (b *Box) Scan(ctx context.Context) ([]Seen, error) {
	if b.WiFi == nil {
		return nil, errNoWiFi
	}
	return scan(ctx, runWPACLI(b.iface()), 4*time.Second)
}

// Join keeps the network and waits, up to 45 s, for the board to join it.
func (b *Box) Join(ctx context.Context, ssid, psk string) (netip.Addr, error) {
	if err := b.AddWiFi(ctx, ssid, psk); err != nil {
		return netip.Addr{}, err
	}
	cli := runWPACLI(b.iface())
	cli(ctx, "select_network", "any")
	return awaitJoin(ctx, cli, ssid, 45*time.Second, time.Second, wlanAddr(b.iface()))
}

// Forget removes a kept network and applies the change.
func (b *Box) Forget(ctx context.Context, ssid string) error {
	if b.WiFi == nil {
		return errNoWiFi
	}
	return b.WiFi.Remove(ctx, ssid)
}

func (b *Box) ap() *boardAP {
	dir := b.APDir
	if dir == "" {
		dir = APDir
	}
	return &boardAP{dir: dir, iface: b.iface(), end: hostapdTerminate}
}

// OpenAP opens the board's own access point through the image's units.
func (b *Box) OpenAP(ctx context.Context, ap AP) error { return b.ap().OpenAP(ctx, ap) }

// CloseAP closes it.
func (b *Box) CloseAP(ctx context.Context) error { return b.ap().CloseAP(ctx) }

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
// its directory; SimAPDir is where its access point's configuration goes.
const (
	SimFile  = "wpa_supplicant.conf"
	SimAPDir = "ap"
)

// SimNetwork is a Wi-Fi network the simulation pretends is in reach.
type SimNetwork struct {
	Seen
	Passphrase string // what joining it takes; "" for an open one
}

// SimInReach are the networks the simulation has in reach: "Home" takes
// the passphrase "correct horse battery".
var SimInReach = []SimNetwork{
	{Seen: Seen{SSID: "Home", Signal: -48, Secure: true}, Passphrase: "correct horse battery"},
	{Seen: Seen{SSID: "Neighbours 5G", Signal: -71, Secure: true}, Passphrase: "not yours to know"},
	{Seen: Seen{SSID: "Café guest", Signal: -83}},
}

// SimAddress is the address the simulation pretends to get on a network it
// joins.
var SimAddress = netip.MustParseAddr("192.168.1.57")

// Sim is the simulation's network: the addresses are the computer's own,
// only read; the Wi-Fi networks are a stand-in file that nothing applies,
// and the networks in reach, joining them and the access point are
// pretended (its configuration is written, for a look, to SimAPDir), so
// that the page can be tried without touching the computer's network.
type Sim struct {
	WiFi *WiFi // its Apply is nil
	dir  string

	mu      sync.Mutex
	offline bool // the simulation plays a box with no network
	apOpen  bool
}

// Simulated returns the simulation's network, keeping its Wi-Fi networks
// in SimFile inside dir (the data directory, which must exist). Offline
// plays a box that is on no network until one is joined.
func Simulated(dir string, offline bool) *Sim {
	return &Sim{WiFi: &WiFi{Path: filepath.Join(dir, SimFile)}, dir: dir, offline: offline}
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

// Forget removes a network from the stand-in file.
func (s *Sim) Forget(ctx context.Context, ssid string) error { return s.WiFi.Remove(ctx, ssid) }

// Simulated reports true.
func (s *Sim) Simulated() bool { return true }

// Online reports whether the simulation plays a box on a network.
func (s *Sim) Online(context.Context) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.offline && !s.apOpen, nil
}

// Scan lists SimInReach.
func (s *Sim) Scan(context.Context) ([]Seen, error) {
	var out []Seen
	for _, n := range SimInReach {
		out = append(out, n.Seen)
	}
	return out, nil
}

// Join keeps the network in the stand-in file and pretends to join it: a
// network of SimInReach with its passphrase is joined at SimAddress; a
// wrong passphrase or a network not in reach is refused as on a board.
func (s *Sim) Join(ctx context.Context, ssid, psk string) (netip.Addr, error) {
	if err := s.WiFi.Add(ctx, ssid, psk); err != nil {
		return netip.Addr{}, err
	}
	i := slices.IndexFunc(SimInReach, func(n SimNetwork) bool { return n.SSID == ssid })
	switch {
	case i < 0:
		return netip.Addr{}, fmt.Errorf("network: %q did not answer within 45s: is it in reach?", ssid)
	case SimInReach[i].Passphrase != psk:
		return netip.Addr{}, &FieldError{"psk", "the network did not take that passphrase"}
	}
	s.mu.Lock()
	s.offline = false
	s.mu.Unlock()
	return SimAddress, nil
}

// OpenAP writes the access point's configuration to SimAPDir, as a board
// would to APDir, and pretends it is open.
func (s *Sim) OpenAP(_ context.Context, ap AP) error {
	dir := filepath.Join(s.dir, SimAPDir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("network: open the access point: %w", err)
	}
	for name, text := range map[string]string{HostapdConf: Hostapd(ap, "wlan0", APDir), DnsmasqConf: Dnsmasq(ap, "wlan0")} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			return fmt.Errorf("network: open the access point: %w", err)
		}
	}
	s.mu.Lock()
	s.apOpen = true
	s.mu.Unlock()
	return nil
}

// CloseAP pretends the access point is closed.
func (s *Sim) CloseAP(context.Context) error {
	s.mu.Lock()
	s.apOpen = false
	s.mu.Unlock()
	return nil
}
