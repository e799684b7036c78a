package mdns

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// Found is one instance of a service found on the network.
type Found struct {
	Instance string // "Hark (kitchen)"
	Host     string // "hark.local"
	Port     uint16
	Addrs    []netip.Addr
	Text     []string
}

// Lookup asks the local network for the instances of a service type
// ("_hark._tcp") and gathers the answers until ctx is done.
func Lookup(ctx context.Context, typ string) ([]Found, error) {
	return Ask(ctx, group4, typ)
}

// Ask is Lookup asking at server: the mDNS group, or one responder. It
// takes the answers of responders on the machine's links alone (RFC 6762
// 6 and 11): sent from mDNS's port, from a link-local address or one in
// the subnet of an address of the machine's; and the answer of server
// itself, a responder asked at its own address. Any other, from a
// stranger elsewhere or with a spoofed source, is not taken.
func Ask(ctx context.Context, server net.Addr, typ string) ([]Found, error) {
	links, err := interfaces()
	if links == nil && err != nil {
		return nil, fmt.Errorf("mdns: ask for %s: %w", typ, err)
	}
	return lookup{local: prefixes(links), port: Port}.ask(ctx, server, typ)
}

// lookup is how Ask hears answers: from port on a subnet of local.
type lookup struct {
	local []netip.Prefix
	port  int
}

// heard reports whether an answer from from is taken, to a question sent
// to server.
func (l lookup) heard(from, server net.Addr) bool {
	ua, ok := from.(*net.UDPAddr)
	if !ok {
		return false
	}
	if s, ok := server.(*net.UDPAddr); ok && s.IP.Equal(ua.IP) && s.Port == ua.Port && !s.IP.IsMulticast() {
		return true // the responder asked, answering from where it was asked
	}
	return ua.Port == l.port && onLink(l.local, from)
}

func (l lookup) ask(ctx context.Context, server net.Addr, typ string) ([]Found, error) {
	conn, err := net.ListenPacket("udp4", ":0")
	if err != nil {
		return nil, fmt.Errorf("mdns: ask for %s: %w", typ, err)
	}
	defer conn.Close()
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Now()) })
	defer stop()
	name, err := dnsmessage.NewName(typ + ".local.")
	if err != nil {
		return nil, fmt.Errorf("mdns: ask for %s: %w", typ, err)
	}
	q := dnsmessage.Message{Header: dnsmessage.Header{ID: 1}, Questions: []dnsmessage.Question{{Name: name, Type: dnsmessage.TypePTR, Class: dnsmessage.ClassINET}}}
	b, err := q.Pack()
	if err != nil {
		return nil, err
	}
	if _, err := conn.WriteTo(b, server); err != nil {
		return nil, fmt.Errorf("mdns: ask for %s: %w", typ, err)
	}
	found := map[string]*Found{}
	var order []string
	addrs := map[string][]netip.Addr{}
	buf := make([]byte, 9000)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			break // ctx is done
		}
		var m dnsmessage.Message
		if !l.heard(from, server) || m.Unpack(buf[:n]) != nil || !m.Response {
			continue
		}
		for _, rr := range append(m.Answers, m.Additionals...) {
			owner := strings.ToLower(rr.Header.Name.String())
			switch body := rr.Body.(type) {
			case *dnsmessage.PTRResource:
				if owner == strings.ToLower(name.String()) {
					inst := body.PTR.String()
					if found[inst] == nil {
						found[inst] = &Found{Instance: strings.TrimSuffix(inst, "."+typ+".local.")}
						order = append(order, inst)
					}
				}
			case *dnsmessage.SRVResource:
				if f := found[rr.Header.Name.String()]; f != nil {
					f.Host, f.Port = strings.TrimSuffix(body.Target.String(), "."), body.Port
				}
			case *dnsmessage.TXTResource:
				if f := found[rr.Header.Name.String()]; f != nil {
					f.Text = body.TXT
				}
			case *dnsmessage.AResource:
				addrs[owner] = append(addrs[owner], netip.AddrFrom4(body.A))
			case *dnsmessage.AAAAResource:
				addrs[owner] = append(addrs[owner], netip.AddrFrom16(body.AAAA))
			}
		}
	}
	var out []Found
	for _, inst := range order {
		f := found[inst]
		f.Addrs = dedupe(addrs[strings.ToLower(f.Host)+"."])
		out = append(out, *f)
	}
	return out, nil
}

func dedupe(as []netip.Addr) []netip.Addr {
	var out []netip.Addr
	seen := map[netip.Addr]bool{}
	for _, a := range as {
		if !seen[a] {
			seen[a] = true
			out = append(out, a)
		}
	}
	return out
}
