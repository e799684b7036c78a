// Package netdial connects to the household's servers (the model server,
// the command center) with every wait bounded: the name's lookup gets its
// own short budget, so a resolver that says nothing is named as DNS's
// failure rather than taken for a slow server; the connection attempt has
// its own. The reply/llm and reply/center clients dial through it.
package netdial

import (
	"context"
	"fmt"
	"net"
	"time"
)

// Options configure a dialer. Zero values take the defaults.
type Options struct {
	// Lookup bounds a name's lookup; default 5 s.
	Lookup time.Duration
	// Connect bounds the connection attempt; default 3 s.
	Connect time.Duration
	// KeepAlive is the TCP keep-alive period; 0 for Go's default.
	KeepAlive time.Duration
	// Reset closes connections with a TCP reset instead of a FIN, so that
	// a request given up on is dropped with its connection rather than
	// delivered when the network comes back.
	Reset bool
	// Resolver looks names up; default the system's.
	Resolver *net.Resolver
}

// Dialer returns a DialContext for an http.Transport. A lookup that fails
// or takes longer than its budget returns a *net.DNSError naming the host.
func Dialer(o Options) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if o.Lookup == 0 {
		o.Lookup = 5 * time.Second
	}
	if o.Connect == 0 {
		o.Connect = 3 * time.Second
	}
	if o.Resolver == nil {
		o.Resolver = net.DefaultResolver
	}
	d := &net.Dialer{Timeout: o.Connect, KeepAlive: o.KeepAlive}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if net.ParseIP(host) == nil {
			lctx, cancel := context.WithTimeout(ctx, o.Lookup)
			addrs, err := o.Resolver.LookupHost(lctx, host)
			cancel()
			switch {
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case err != nil:
				return nil, &net.DNSError{Err: fmt.Sprintf("no address from the resolver within %v (%v)", o.Lookup, err), Name: host, IsTimeout: lctx.Err() != nil}
			}
			host = addrs[0]
		}
		c, err := d.DialContext(ctx, network, net.JoinHostPort(host, port))
		if tc, ok := c.(*net.TCPConn); ok && o.Reset {
			tc.SetLinger(0)
		}
		return c, err
	}
}
