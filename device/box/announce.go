package box

import (
	"context"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/mdns"
)

// hostLabel is the machine's host name as mDNS announces it: its first
// label, in lower case; "hark" for a name DNS cannot carry.
func hostLabel() string {
	h, _ := os.Hostname()
	h, _, _ = strings.Cut(strings.ToLower(h), ".")
	if h == "" || strings.Trim(h, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" || len(h) > 63 {
		return "hark"
	}
	return h
}

// instanceName is how a list of services names the box: its assistant's
// name, and its room when it has one.
func instanceName(name, room string) string {
	if room != "" {
		return name + " (" + room + ")"
	}
	return name
}

// reachable reports whether an address the box listens on is one other
// machines can reach: not loopback only.
func reachable(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil || host == "localhost" {
		return false
	}
	ip, err := netip.ParseAddr(host)
	return err != nil || !ip.IsLoopback()
}

// serveMDNS answers mDNS for the box's host name and services with r until
// ctx is done; a network without multicast costs a line in the log.
func serveMDNS(ctx context.Context, log *slog.Logger, r *mdns.Responder) {
	log.Info("announced on the local network", "name", r.Host+".local", "services", len(r.Services))
	if err := r.Serve(ctx); err != nil {
		log.Warn("not announced on the local network (mDNS)", "err", err)
	}
}

// hostName is the box's name on the local network, without .local: the
// one mDNS claimed for the page, or before it has claimed one the
// machine's (hostLabel).
func (b *Box) hostName() string {
	if h := b.named.Load(); h != nil {
		return *h
	}
	return hostLabel()
}

// setHostName keeps the name mDNS claimed for the page.
func (b *Box) setHostName(host string) { b.named.Store(&host) }

// portOf is the port of a listener's address.
func portOf(a net.Addr) uint16 {
	_, p, _ := net.SplitHostPort(a.String())
	n, _ := strconv.Atoi(p)
	return uint16(n)
}

// pageURLs are the addresses a browser opens the page at: by the name mDNS
// announces (name, without .local), then by each of addrs; the one it
// listens on when that is a single address. None when the page is off.
func pageURLs(cfg config.Web, name string, addrs []string) []string {
	if cfg.Listen == "" {
		return nil
	}
	scheme := "http"
	if (pageServing{cfg: cfg}).encrypted() {
		scheme = "https"
	}
	host, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil
	}
	if host != "" && host != "0.0.0.0" && host != "::" {
		return []string{scheme + "://" + net.JoinHostPort(host, port)}
	}
	var out []string
	if cfg.MDNS {
		out = append(out, scheme+"://"+net.JoinHostPort(name+".local", port))
	}
	for _, a := range addrs {
		out = append(out, scheme+"://"+net.JoinHostPort(a, port))
	}
	return out
}
