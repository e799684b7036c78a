package network

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Online reports whether the machine is on a network: an interface that is
// up has an address other machines can reach (not loopback, not
// link-local, not the box's own access point's).
func Online(ctx context.Context) (bool, error) {
	addrs, err := Addresses()
	if err != nil {
		return false, err
	}
	return online(addrs), nil
}

func online(addrs []Address) bool {
	for _, a := range addrs {
		p, err := netip.ParsePrefix(a.Address)
		if err != nil || !a.Up {
			continue
		}
		ip := p.Addr()
		if ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip == DefaultAPAddress.Addr() {
			continue
		}
		return true
	}
	return false
}

// wpaCLI runs wpa_cli on the interface and returns what it printed.
type wpaCLI func(ctx context.Context, args ...string) (string, error)

// runWPACLI is wpaCLI on a board.
func runWPACLI(iface string) wpaCLI {
	return func(ctx context.Context, args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, "wpa_cli", append([]string{"-i", iface}, args...)...).CombinedOutput()
		said := strings.TrimSpace(string(out))
		if err == nil && strings.HasPrefix(said, "FAIL") {
			err = errors.New("it answered FAIL")
		}
		if err != nil {
			return said, fmt.Errorf("network: wpa_cli %s: %w %s", strings.Join(args, " "), err, said)
		}
		return said, nil
	}
}

// scan has wpa_supplicant scan and reads what it found.
func scan(ctx context.Context, cli wpaCLI, wait time.Duration) ([]Seen, error) {
	if _, err := cli(ctx, "scan"); err != nil && !strings.Contains(err.Error(), "FAIL-BUSY") {
		return nil, err
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(wait):
	}
	out, err := cli(ctx, "scan_results")
	if err != nil {
		return nil, err
	}
	return parseScan(out), nil
}

// parseScan reads wpa_cli's scan_results: a header, then a line a network
// of bssid, frequency, signal level, flags and SSID, tab-separated. Hidden
// networks are left out, and each name is listed once, at its strongest.
func parseScan(out string) []Seen {
	best := map[string]Seen{}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		f := strings.SplitN(sc.Text(), "\t", 5)
		if len(f) < 5 || f[4] == "" {
			continue
		}
		level, err := strconv.Atoi(f[2])
		if err != nil {
			continue
		}
		ssid := string(unescape(f[4]))
		s := Seen{SSID: ssid, Signal: level, Secure: strings.Contains(f[3], "WPA") || strings.Contains(f[3], "WEP") || strings.Contains(f[3], "SAE")}
		if old, ok := best[ssid]; !ok || s.Signal > old.Signal {
			best[ssid] = s
		}
	}
	var seen []Seen
	for _, s := range best {
		seen = append(seen, s)
	}
	slices.SortFunc(seen, func(a, b Seen) int {
		if a.Signal != b.Signal {
			return b.Signal - a.Signal
		}
		return strings.Compare(a.SSID, b.SSID)
	})
	return seen
}

// status reads wpa_cli's status: key=value lines.
func status(ctx context.Context, cli wpaCLI) (map[string]string, error) {
	out, err := cli(ctx, "status")
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		// Not trimmed of spaces: an SSID may end in one.
		if k, v, ok := strings.Cut(strings.TrimSuffix(line, "\r"), "="); ok {
			m[k] = v
		}
	}
	return m, nil
}

// awaitJoin waits until wpa_supplicant has joined ssid and the interface
// has an address, or says why not: a passphrase refused (the 4-way
// handshake failed) or no answer within limit. Status prints the SSID
// escaped as scan_results does (Caf\xc3\xa9, Bob's \"net\"): it is
// unescaped before it is compared.
func awaitJoin(ctx context.Context, cli wpaCLI, ssid string, limit, every time.Duration, addr func() (netip.Addr, bool)) (netip.Addr, error) {
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	handshakes := 0
	for {
		st, err := status(ctx, cli)
		if err == nil && string(unescape(st["ssid"])) == ssid {
			switch st["wpa_state"] {
			case "COMPLETED":
				if a, ok := addr(); ok {
					return a, nil
				}
				if ip, err := netip.ParseAddr(st["ip_address"]); err == nil {
					return ip, nil
				}
			case "4WAY_HANDSHAKE":
				handshakes++
			}
		}
		select {
		case <-ctx.Done():
			if handshakes >= 3 {
				return netip.Addr{}, &FieldError{"psk", "the network did not take that passphrase"}
			}
			return netip.Addr{}, fmt.Errorf("network: %q did not answer within %v: is it in reach?", ssid, limit)
		case <-time.After(every):
		}
	}
}

// wlanAddr is the IPv4 address of iface, once it has one.
func wlanAddr(iface string) func() (netip.Addr, bool) {
	return func() (netip.Addr, bool) {
		ifc, err := net.InterfaceByName(iface)
		if err != nil {
			return netip.Addr{}, false
		}
		as, _ := ifc.Addrs()
		for _, a := range as {
			if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Is4() && !p.Addr().IsLinkLocalUnicast() && p.Addr() != DefaultAPAddress.Addr() {
				return p.Addr(), true
			}
		}
		return netip.Addr{}, false
	}
}
