package network

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/internal/sandboxtest"
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

// TestOnlineInHarkServiceSandbox: the daemon runs under hark.service's
// RestrictAddressFamilies=, and Go lists the interfaces over AF_NETLINK.
// On a box on no network (a namespace with only its loopback) Online says
// offline rather than failing, and a hotspot with no Wi-Fi kept opens its
// access point at once, for a phone to set the box up.
func TestOnlineInHarkServiceSandbox(t *testing.T) {
	fams := sandboxtest.Families(t, "../../systemd/hark.service")
	sandboxtest.Run(t, func(t *testing.T) {
		sandboxtest.Restrict(t, fams)
		if online, err := Online(t.Context()); err != nil || online {
			t.Errorf("RestrictAddressFamilies=%s, on no network: Online = %v, %v; want false, nil", strings.Join(fams, " "), online, err)
		}
		synctest.Test(t, func(t *testing.T) {
			r := &radio{}
			h, _ := NewHotspot(HotspotOptions{Link: boardLink{r}, AP: r, Own: testAP})
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			go h.Run(ctx)
			time.Sleep(time.Second)
			synctest.Wait()
			if !h.State().Open {
				t.Errorf("RestrictAddressFamilies=%s, on no network with no Wi-Fi kept: the access point is not open", strings.Join(fams, " "))
			}
		})
	})
}

// boardLink is the test radio with a board's Online.
type boardLink struct{ *radio }

func (boardLink) Online(ctx context.Context) (bool, error) { return Online(ctx) }
