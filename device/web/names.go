package web

import (
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// names are the host names and addresses the page answers to: the
// machine's name (and name.local), localhost, the configured names, and
// any address of the machine's own. A request for another name is a page
// elsewhere that pointed its name at the box (DNS rebinding).
type names struct {
	extra []string
	now   func() time.Time

	mu    sync.Mutex
	added []string  // names given by add
	at    time.Time // when own was read
	own   map[string]bool
	addrs map[netip.Addr]bool
}

func newNames(extra []string, now func() time.Time) *names {
	n := &names{now: now}
	for _, e := range extra {
		n.extra = append(n.extra, strings.ToLower(strings.TrimSuffix(e, ".")))
	}
	return n
}

// ours reports whether host (a request's Host, with or without its port)
// names this machine.
func (n *names) ours(host string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.ToLower(strings.TrimSuffix(strings.Trim(h, "[]"), "."))
	if h == "" {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.refresh()
	if ip, err := netip.ParseAddr(h); err == nil {
		ip = ip.Unmap().WithZone("")
		return ip.IsLoopback() || n.addrs[ip]
	}
	return n.own[h]
}

// refresh reads the machine's names and addresses again after a minute:
// a DHCP lease or a new network changes them.
func (n *names) refresh() {
	if now := n.now(); n.own != nil && now.Sub(n.at) < time.Minute {
		return
	}
	n.at = n.now()
	n.own = map[string]bool{"localhost": true}
	for _, e := range n.extra {
		n.own[e] = true
	}
	for _, e := range n.added {
		n.own[e] = true
	}
	if host, err := os.Hostname(); err == nil && host != "" {
		host = strings.ToLower(host)
		n.own[host], n.own[host+".local"] = true, true
	}
	n.addrs = map[netip.Addr]bool{}
	if as, err := net.InterfaceAddrs(); err == nil {
		for _, a := range as {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				n.addrs[p.Addr().Unmap().WithZone("")] = true
			}
		}
	}
}

// maxAdded bounds the names given by add that the page answers to: the
// last ones mDNS claimed.
const maxAdded = 8

// add makes name one of the page's from now on, in place of the one
// added first once maxAdded are.
func (n *names) add(name string) {
	name = strings.ToLower(strings.TrimSuffix(name, "."))
	n.mu.Lock()
	defer n.mu.Unlock()
	n.added = append(slices.DeleteFunc(n.added, func(a string) bool { return a == name }), name)
	if len(n.added) > maxAdded {
		n.added = slices.Delete(n.added, 0, len(n.added)-maxAdded)
	}
	n.own = nil // read again, without the names dropped
}

// sameOrigin reports whether a form came from this page: its Origin, when
// the browser sent one, is the page's own scheme and host.
func (s *Server) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true // an older browser, or not a browser: the CSRF token decides
	}
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return u.Scheme == scheme && strings.EqualFold(u.Host, r.Host)
}
