package mdns

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// offers is a response offering instance of _hark._tcp.
func offers(t *testing.T, instance string) []byte {
	t.Helper()
	m := dnsmessage.Message{Header: dnsmessage.Header{ID: 1, Response: true, Authoritative: true},
		Answers: []dnsmessage.Resource{ptr("_hark._tcp.local.", instance+"._hark._tcp.local.", 120)}}
	b, err := m.Pack()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// listenAt is a UDP socket at addr on the loopback, or a skip.
func listenAt(t *testing.T, addr string) net.PacketConn {
	t.Helper()
	c, err := net.ListenPacket("udp4", addr)
	if err != nil {
		t.Skipf("cannot listen at %s on the loopback: %v", addr, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestLookupHearsTheLinkAlone: a lookup takes the answers that come from
// mDNS's port and from an address on one of the machine's links (RFC
// 6762 6 and 11), and the answer of the responder it asked itself; an
// answer from another port, or from an address on none of its links (a
// stranger's, or a spoofed one), is not taken. Real sockets on the
// loopback, with 127.0.0.1/32 as the machine's one link and a free port
// standing for 5353.
func TestLookupHearsTheLinkAlone(t *testing.T) {
	asked := listenAt(t, "127.0.0.1:0")
	mdnsPort := listenAt(t, "127.0.0.1:0")
	port := mdnsPort.LocalAddr().(*net.UDPAddr).Port
	offLink := listenAt(t, net.JoinHostPort("127.0.0.2", strconv.Itoa(port)))
	otherPort := listenAt(t, "127.0.0.1:0")
	go func() {
		buf := make([]byte, 1500)
		_, from, err := asked.ReadFrom(buf)
		if err != nil {
			return
		}
		mdnsPort.WriteTo(offers(t, "On the link"), from)
		offLink.WriteTo(offers(t, "Off the link"), from)
		otherPort.WriteTo(offers(t, "From another port"), from)
		asked.WriteTo(offers(t, "The one asked"), from)
	}()
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	l := lookup{local: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}, port: port}
	found, err := l.ask(ctx, asked.LocalAddr(), "_hark._tcp")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, f.Instance)
	}
	slices.Sort(got)
	if want := []string{"On the link", "The one asked"}; !slices.Equal(got, want) {
		t.Errorf("found %q, want %q", got, want)
	}
}
