package network

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/harkbox/hark/internal/atomicfile"
)

// The box's own access point on a board: hostapd makes wlan0 an access
// point and dnsmasq gives the phones that join an address and answers
// every name with the box's, so that a phone's captive-portal check lands
// on the box's page. Both run as systemd units of the image
// (hark-ap.service, hark-ap-dhcp.service), started by hark-ap.path when
// the daemon writes the Wanted file beside their configuration in APDir;
// the daemon, which is not root, stops them by asking hostapd to end over
// its control socket, after removing Wanted.

// APDir is where the access point's configuration is written on a board.
const APDir = "/run/hark/ap"

// Files in APDir.
const (
	HostapdConf = "hostapd.conf"
	DnsmasqConf = "dnsmasq.conf"
	Wanted      = "wanted" // its existence starts the units
	ctrlDir     = "ctrl"   // hostapd's control sockets
)

// Hostapd is hostapd's configuration for ap on iface: WPA2 with a
// passphrase, on channel 6 of 2.4 GHz (what every phone and Pi Zero 2 W
// has), with a control socket the hark group may use.
func Hostapd(ap AP, iface, dir string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# The box's own access point, written by hark: do not edit.\n")
	fmt.Fprintf(&b, "interface=%s\ndriver=nl80211\n", iface)
	fmt.Fprintf(&b, "ctrl_interface=%s\nctrl_interface_group=hark\n", filepath.Join(dir, ctrlDir))
	fmt.Fprintf(&b, "ssid2=%s\nutf8_ssid=1\n", quoteSSID(ap.SSID))
	b.WriteString("hw_mode=g\nchannel=6\nieee80211n=1\nwmm_enabled=1\n")
	b.WriteString("auth_algs=1\nignore_broadcast_ssid=0\n")
	b.WriteString("wpa=2\nwpa_key_mgmt=WPA-PSK\nrsn_pairwise=CCMP\n")
	fmt.Fprintf(&b, "wpa_passphrase=%s\n", ap.Passphrase)
	return b.String()
}

// quoteSSID is an SSID as hostapd's ssid2 takes it: quoted printable
// ASCII, else hex (P"..." escapes would do too, hex needs none).
func quoteSSID(ssid string) string {
	if s := encodeSSID(ssid); strings.HasPrefix(s, `"`) {
		return s
	}
	return fmt.Sprintf("%x", ssid)
}

// Dnsmasq is dnsmasq's configuration for ap on iface: addresses for up to
// ninety phones for ten minutes each, every name answered with the box's
// address, and the captive portal's address told to phones that ask (RFC
// 8910).
func Dnsmasq(ap AP, iface string) string {
	box := ap.Address.Addr()
	base := box.As4()
	from, to := base, base
	from[3], to[3] = 10, 100
	mask := net.CIDRMask(ap.Address.Bits(), 32)
	var b strings.Builder
	b.WriteString("# The box's own access point, written by hark: do not edit.\n")
	fmt.Fprintf(&b, "interface=%s\nbind-interfaces\nlisten-address=%s\n", iface, box)
	b.WriteString("no-resolv\nno-hosts\ndhcp-authoritative\n")
	fmt.Fprintf(&b, "dhcp-range=%s,%s,%d.%d.%d.%d,10m\n", netip.AddrFrom4(from), netip.AddrFrom4(to), mask[0], mask[1], mask[2], mask[3])
	fmt.Fprintf(&b, "dhcp-option=option:router,%s\ndhcp-option=option:dns-server,%s\n", box, box)
	fmt.Fprintf(&b, "dhcp-option=114,http://%s/\n", box)
	fmt.Fprintf(&b, "address=/#/%s\n", box)
	return b.String()
}

// boardAP is the access point of a board, through the image's units.
type boardAP struct {
	dir   string
	iface string
	// end asks the running hostapd to end; hostapdTerminate on a board.
	end func(ctx context.Context, ctrl string) error
}

// OpenAP writes the configuration and asks systemd (through hark-ap.path)
// to start the access point.
func (a *boardAP) OpenAP(_ context.Context, ap AP) error {
	if err := os.MkdirAll(a.dir, 0o750); err != nil {
		return fmt.Errorf("network: open the access point: %w", err)
	}
	for name, text := range map[string]string{HostapdConf: Hostapd(ap, a.iface, a.dir), DnsmasqConf: Dnsmasq(ap, a.iface)} {
		if err := atomicfile.Write(filepath.Join(a.dir, name), []byte(text), 0o640); err != nil {
			return fmt.Errorf("network: open the access point: %w", err)
		}
	}
	if err := os.WriteFile(filepath.Join(a.dir, Wanted), nil, 0o640); err != nil {
		return fmt.Errorf("network: open the access point: %w", err)
	}
	return nil
}

// CloseAP takes back the wish for the access point and has hostapd end;
// its unit then gives wlan0 back to wpa_supplicant.
func (a *boardAP) CloseAP(ctx context.Context) error {
	if err := os.Remove(filepath.Join(a.dir, Wanted)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("network: close the access point: %w", err)
	}
	return a.end(ctx, filepath.Join(a.dir, ctrlDir, a.iface))
}

// hostapdTerminate asks the hostapd listening on the control socket ctrl
// to end (its TERMINATE command), from a socket of the daemon's own beside
// it.
func hostapdTerminate(ctx context.Context, ctrl string) error {
	local := filepath.Join(filepath.Dir(filepath.Dir(ctrl)), fmt.Sprintf("hark-%d", os.Getpid()))
	os.Remove(local)
	defer os.Remove(local)
	c, err := net.DialUnix("unixgram", &net.UnixAddr{Name: local, Net: "unixgram"}, &net.UnixAddr{Name: ctrl, Net: "unixgram"})
	if errors.Is(err, os.ErrNotExist) {
		return nil // not running
	}
	if err != nil {
		return fmt.Errorf("network: hostapd at %s: %w", ctrl, err)
	}
	defer c.Close()
	deadline := time.Now().Add(5 * time.Second)
	if d, ok := ctx.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	c.SetDeadline(deadline)
	if _, err := c.Write([]byte("TERMINATE")); err != nil {
		return fmt.Errorf("network: hostapd at %s: %w", ctrl, err)
	}
	buf := make([]byte, 64)
	n, err := c.Read(buf)
	if err != nil {
		return fmt.Errorf("network: hostapd at %s: no answer: %w", ctrl, err)
	}
	if got := strings.TrimSpace(string(buf[:n])); got != "OK" {
		return fmt.Errorf("network: hostapd at %s answered %q", ctrl, got)
	}
	return nil
}
