package mdns

import (
	"context"
	"net"
	"net/netip"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// stranger is a machine at addr that sends from port to the box at box's
// mDNS port (unicast, as a machine elsewhere on the Internet can reach a
// box's global IPv6 address, or spoof a source), and gathers for a second
// the answers the box sends back to it.
func stranger(t *testing.T, h *hub, addr string, port int, box string, m dnsmessage.Message) int {
	t.Helper()
	p := h.join(addr, 0, &net.UDPAddr{IP: net.IPv4(239, 9, 9, 9), Port: Port}) // hears no mDNS group
	p.addr.Port = port
	defer p.Close()
	b, err := m.Pack()
	if err != nil {
		t.Fatal(err)
	}
	p.WriteTo(b, &net.UDPAddr{IP: net.ParseIP(box), Port: Port})
	ctx, cancel := context.WithTimeout(t.Context(), time.Second)
	defer cancel()
	context.AfterFunc(ctx, func() { p.Close() })
	got := 0
	buf := make([]byte, 9000)
	for {
		n, _, err := p.ReadFrom(buf)
		if err != nil {
			return got
		}
		var resp dnsmessage.Message
		if resp.Unpack(buf[:n]) == nil && resp.Response && len(resp.Answers) > 0 {
			got++
		}
	}
}

// TestOffLinkQueryIsNotAnswered: a query sent straight to the box's port
// 5353 from an address on none of its links (RFC 6762 5.5, 11) is
// dropped: answered, it would tell a stranger the box's names, services,
// addresses and certificate fingerprint, and a spoofed source would turn
// the box into an amplifier aimed at another. The same query from the
// box's own subnet, or from a link-local address, is answered.
func TestOffLinkQueryIsNotAnswered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		s := sniff(t, h, "192.168.1.97")
		boxOn(t, h, "192.168.1.57", 0, nil)
		time.Sleep(claiming)
		synctest.Wait()
		q := question("_services._dns-sd._udp.local.", dnsmessage.TypePTR)
		for _, tc := range []struct {
			from string
			port int
			want bool
		}{
			{"192.168.1.99", 40000, true},  // a resolver on the box's subnet
			{"192.168.1.99", Port, true},   // a querier there
			{"169.254.7.7", 40000, true},   // link-local: on the link whatever its subnet
			{"203.0.113.5", 40000, false},  // elsewhere, a legacy query
			{"203.0.113.5", Port, false},   // elsewhere, as an mDNS querier
			{"192.168.2.99", 40000, false}, // the next subnet, through a router
		} {
			before := s.responses("192.168.1.57")
			got := stranger(t, h, tc.from, tc.port, "192.168.1.57", q)
			got += s.responses("192.168.1.57") - before // answered to the group
			if (got > 0) != tc.want {
				t.Errorf("a query from %s port %d: %d answers; want answered %v", tc.from, tc.port, got, tc.want)
			}
		}
	})
}

// TestOffLinkResponseIsNotHeard: a response from an address on none of
// the box's links that claims hark.local for another machine, sent again
// and again, does not make the box give up its name (RFC 6762 11: only
// responses from the link count), as a stranger could otherwise have it
// do time after time.
func TestOffLinkResponseIsNotHeard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		r := boxOn(t, h, "192.168.1.57", 0, nil)
		time.Sleep(claiming)
		synctest.Wait()
		resp := dnsmessage.Message{Header: dnsmessage.Header{Response: true, Authoritative: true}, Answers: []dnsmessage.Resource{{
			Header: dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName("hark.local."), Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET | 0x8000, TTL: 120},
			Body:   &dnsmessage.AResource{A: netip.MustParseAddr("203.0.113.5").As4()}}}}
		b, _ := resp.Pack()
		p := h.join("203.0.113.5", 0, &net.UDPAddr{IP: net.IPv4(239, 9, 9, 9), Port: Port})
		defer p.Close()
		for range 40 { // through the probes a first one sets off
			p.WriteTo(b, &net.UDPAddr{IP: net.ParseIP("192.168.1.57"), Port: Port})
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if r.Name() != "hark" {
			t.Errorf("after a stranger's response the box is %q; want it to keep hark", r.Name())
		}
	})
}

// TestMulticastOncePerSecond: a machine on the link that sends the same
// question over and over (each tiny) gets the answer multicast once a
// second at most (RFC 6762 6), not once a question: on Wi-Fi every
// multicast goes at the slowest rate to every machine, and a flood of
// questions would otherwise become a flood of answers many times bigger.
// A probe for a name of the box's is still answered at once (its defence).
func TestMulticastOncePerSecond(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		s := sniff(t, h, "192.168.1.97")
		boxOn(t, h, "192.168.1.57", 0, nil)
		time.Sleep(claiming + 5*time.Second)
		synctest.Wait()
		p := h.join("192.168.1.66", 0, group4)
		defer p.Close()
		ptrQ := question("_https._tcp.local.", dnsmessage.TypePTR)
		q, _ := ptrQ.Pack()
		before := s.responses("192.168.1.57")
		for range 100 { // 100 questions in 2 s
			p.WriteTo(q, group4)
			time.Sleep(20 * time.Millisecond)
			synctest.Wait()
		}
		if got := s.responses("192.168.1.57") - before; got < 1 || got > 3 {
			t.Errorf("100 questions in 2 s were answered by %d multicasts; want one a second", got)
		}

		probe := dnsmessage.Message{Questions: []dnsmessage.Question{{Name: dnsmessage.MustNewName("hark.local."), Type: dnsmessage.TypeALL, Class: dnsmessage.ClassINET}},
			Authorities: []dnsmessage.Resource{{Header: dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName("hark.local."), Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET, TTL: 120},
				Body: &dnsmessage.AResource{A: [4]byte{192, 168, 1, 66}}}}}
		b, _ := probe.Pack()
		aQ := question("hark.local.", dnsmessage.TypeA)
		a, _ := aQ.Pack()
		p.WriteTo(a, group4)
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		before = s.responses("192.168.1.57")
		p.WriteTo(b, group4)
		time.Sleep(100 * time.Millisecond)
		synctest.Wait()
		if got := s.responses("192.168.1.57") - before; got != 1 {
			t.Errorf("a probe for hark.local just after it was answered: %d answers, want the defence at once", got)
		}
	})
}
