package network

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestAddresses(t *testing.T) {
	ifs := []net.Interface{
		{Index: 1, Name: "lo", Flags: net.FlagUp | net.FlagLoopback},
		{Index: 2, Name: "eth0", Flags: net.FlagUp},
		{Index: 3, Name: "wlan0"},
	}
	addrs := map[string][]net.Addr{
		"lo":   {&net.IPNet{IP: net.IPv4(127, 0, 0, 1), Mask: net.CIDRMask(8, 32)}},
		"eth0": {&net.IPNet{IP: net.IPv4(192, 168, 1, 20), Mask: net.CIDRMask(24, 32)}, &net.IPNet{IP: net.ParseIP("fe80::1"), Mask: net.CIDRMask(64, 128)}},
	}
	got, err := addresses(ifs, func(i *net.Interface) ([]net.Addr, error) { return addrs[i.Name], nil })
	want := []Address{{"eth0", "192.168.1.20/24", true}, {"eth0", "fe80::1/64", true}, {"wlan0", "", false}}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("addresses = %v, %v; want %v", got, err, want)
	}
	_, err = addresses(ifs, func(*net.Interface) ([]net.Addr, error) {
		return nil, errors.New("route ip+net: netlinkrib: permission denied")
	})
	if err == nil || err.Error() != "network: addresses of eth0: route ip+net: netlinkrib: permission denied" {
		t.Errorf("a failing interface: %v", err)
	}
	// This computer's: never the loopback.
	real, err := Addresses()
	if err != nil {
		t.Skipf("this computer's interfaces cannot be listed here: %v", err)
	}
	for _, a := range real {
		if ip, _, err := net.ParseCIDR(a.Address); a.Address != "" && (err != nil || ip.IsLoopback()) {
			t.Errorf("Addresses() has %v", a)
		}
	}
}

func TestSimAndBox(t *testing.T) {
	dir := t.TempDir()
	s := Simulated(dir, false)
	if !s.Simulated() || s.WiFi.Apply != nil {
		t.Fatal("the simulation is not simulated, or applies its networks")
	}
	if err := s.AddWiFi(t.Context(), "Home", "12345678"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, SimFile)); err != nil {
		t.Errorf("the stand-in file: %v", err)
	}
	if got, err := s.Networks(t.Context()); err != nil || !slices.Equal(got, []string{"Home"}) {
		t.Errorf("the simulation's networks: %q, %v", got, err)
	}

	b := &Box{WiFi: &WiFi{Path: filepath.Join(dir, "box.conf")}}
	if b.Simulated() {
		t.Error("the box says it is simulated")
	}
	if err := b.AddWiFi(t.Context(), "Office", ""); err != nil {
		t.Fatal(err)
	}
	if got, err := b.Networks(t.Context()); err != nil || !slices.Equal(got, []string{"Office"}) {
		t.Errorf("the box's networks: %q, %v", got, err)
	}
	none := &Box{}
	if got, err := none.Networks(t.Context()); err != nil || got != nil {
		t.Errorf("a box without Wi-Fi: %q, %v", got, err)
	}
	if err := none.AddWiFi(t.Context(), "Office", ""); err == nil {
		t.Error("a box without Wi-Fi added a network")
	}
}
