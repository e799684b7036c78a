// Package egress is how Hark reaches other machines on the model's behalf:
// the web lookups and the MCP servers spoken to over HTTP. Its dialer
// refuses the box itself and the local network — loopback, unspecified,
// link-local, private, unique-local, CGNAT and multicast addresses — after
// the name is resolved, at connect time, so neither a redirect nor a DNS
// answer that changes gets past it (the box's own web page, a router's
// admin page). Hosts and networks the configuration names are allowed:
// a SearXNG or an MCP server on the LAN is configured, never fetched.
package egress

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrRefused is a connection to an address the policy keeps closed.
var ErrRefused = errors.New("egress: refused")

// Policy says which machines may be reached. The zero value reaches the
// public internet only.
type Policy struct {
	// Hosts are names and addresses that may be reached wherever they
	// resolve to (the configured servers' hosts).
	Hosts []string
	// Nets are networks that may be reached.
	Nets []netip.Prefix
}

// Parse makes a policy of entries that are host names, addresses or
// networks in CIDR notation ("searx.lan", "192.168.1.20",
// "192.168.1.0/24"); it names the first entry that is none.
func Parse(entries []string) (Policy, error) {
	var p Policy
	for _, e := range entries {
		e = strings.ToLower(strings.TrimSpace(e))
		switch {
		case e == "":
			return Policy{}, fmt.Errorf("egress: an empty entry")
		case strings.Contains(e, "/"):
			n, err := netip.ParsePrefix(e)
			if err != nil {
				return Policy{}, fmt.Errorf("egress: %q is not a network such as 192.168.1.0/24", e)
			}
			p.Nets = append(p.Nets, n.Masked())
		default:
			if strings.ContainsAny(e, " :@") && !isAddr(e) {
				return Policy{}, fmt.Errorf("egress: %q is not a host name or address", e)
			}
			p.Hosts = append(p.Hosts, strings.Trim(e, "[]"))
		}
	}
	return p, nil
}

func isAddr(s string) bool { _, err := netip.ParseAddr(strings.Trim(s, "[]")); return err == nil }

// WithHostsOf is p allowing the hosts of the given URLs too: the servers
// the configuration names.
func (p Policy) WithHostsOf(urls ...string) Policy {
	out := Policy{Hosts: append([]string(nil), p.Hosts...), Nets: p.Nets}
	for _, u := range urls {
		if i := strings.Index(u, "://"); i >= 0 {
			u = u[i+3:]
		}
		u, _, _ = strings.Cut(u, "/")
		if _, h, ok := strings.Cut(u, "@"); ok {
			u = h
		}
		if h, _, err := net.SplitHostPort(u); err == nil {
			u = h
		}
		if u = strings.ToLower(strings.Trim(u, "[]")); u != "" {
			out.Hosts = append(out.Hosts, u)
		}
	}
	return out
}

// Permits reports whether ip may be reached by a name the policy does not
// name.
func (p Policy) Permits(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	for _, n := range p.Nets {
		if n.Contains(ip) {
			return true
		}
	}
	return !closed(ip)
}

// cgnat is the carrier-grade NAT range, private in all but name.
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// closed reports the addresses of the box itself and its networks.
func closed(ip netip.Addr) bool {
	return !ip.IsValid() || ip.IsLoopback() || ip.IsUnspecified() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || cgnat.Contains(ip)
}

func (p Policy) named(host string) bool {
	host = strings.ToLower(strings.Trim(host, "[]"))
	for _, h := range p.Hosts {
		if h == host {
			return true
		}
	}
	return false
}

// DialContext dials addr ("host:port"): directly when the policy names
// the host, else only to addresses it permits, checked on the address
// actually connected to.
func (p Policy) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("egress: %w", err)
	}
	if !p.named(host) {
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s is not an address", ErrRefused, address)
			}
			if !p.Permits(ap.Addr()) {
				return fmt.Errorf("%w: %s is %s, on this box or its local network, which the model's tools may not reach (a host the configuration names may)", ErrRefused, host, ap.Addr())
			}
			return nil
		}
	}
	return d.DialContext(ctx, network, addr)
}

// Client is an HTTP client through the policy's dialer, with no proxy
// from the environment (the proxy's address would be all it checked),
// timing out after timeout.
func (p Policy) Client(timeout time.Duration) *http.Client {
	return &http.Client{Timeout: timeout, Transport: p.Transport()}
}

// Transport is an HTTP transport through the policy's dialer.
func (p Policy) Transport() *http.Transport {
	return &http.Transport{
		DialContext:         p.DialContext,
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: 10 * time.Second,
		IdleConnTimeout:     60 * time.Second,
		MaxIdleConns:        16,
	}
}
