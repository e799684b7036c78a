package llm

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// ParseHost reads a server address written the way OLLAMA_HOST is: a bare
// host ("box.lan"), host and port ("box.lan:11434"), or a URL
// ("https://box.lan/ollama"). A missing scheme is http; a missing port is
// 11434, or 80/443 when the scheme is written out; an empty string is
// http://127.0.0.1:11434. Unlike Ollama, which falls back to the default port
// with a warning, an invalid port is an error.
func ParseHost(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	scheme, hostport, explicit := strings.Cut(s, "://")
	port := "11434"
	switch {
	case !explicit:
		scheme, hostport = "http", s
		if s == "ollama.com" {
			scheme, hostport = "https", "ollama.com:443"
		}
	case scheme == "http":
		port = "80"
	case scheme == "https":
		port = "443"
	default:
		return nil, fmt.Errorf("llm: host %q: scheme %q is not http or https", s, scheme)
	}
	hostport, path, _ := strings.Cut(hostport, "/")
	if at := strings.LastIndex(hostport, "@"); at >= 0 {
		shown := hostport[at+1:]
		if user, _, secret := strings.Cut(hostport[:at], ":"); secret {
			shown = user + ":…@" + shown
		} else {
			shown = user + "@" + shown
		}
		if explicit {
			shown = scheme + "://" + shown
		}
		return nil, fmt.Errorf("llm: host %q: a user name or password in the address is not supported (Ollama reads none): give the server's address alone", shown)
	}
	host, p, err := net.SplitHostPort(hostport)
	if err != nil {
		host = "127.0.0.1"
		if ip := net.ParseIP(strings.Trim(hostport, "[]")); ip != nil {
			host = ip.String()
		} else if hostport != "" {
			host = hostport
		}
	} else {
		n, err := strconv.ParseInt(p, 10, 32)
		if err != nil || n < 0 || n > 65535 {
			return nil, fmt.Errorf("llm: host %q: invalid port %q", s, p)
		}
		port = p
	}
	if host != "" && !hostName(host) { // "" is Ollama's own reading of ":11434"
		return nil, fmt.Errorf("llm: host %q: %q is not a host name or an IP address", s, host)
	}
	return &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port), Path: path}, nil
}

// hostName reports whether h is an IP address or a host name: labels of
// letters, digits, hyphens and underscores, joined by dots.
func hostName(h string) bool {
	if _, err := netip.ParseAddr(h); err == nil {
		return true
	}
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(h, "."), ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}
