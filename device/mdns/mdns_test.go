package mdns

import (
	"context"
	"net"
	"net/netip"
	"slices"
	"testing"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

func box() *Responder {
	return &Responder{Host: "hark", Services: []Service{
		{Instance: "Hark (kitchen)", Type: "_https._tcp", Port: 8080, Text: []string{"path=/"}},
		{Instance: "Hark center", Type: "_hark._tcp", Port: 8765, Text: []string{"fingerprint=sha256:ab"}},
	}, Addrs: func() []netip.Addr {
		return []netip.Addr{netip.MustParseAddr("192.168.1.20"), netip.MustParseAddr("fd00::20")}
	}}
}

func question(name string, t dnsmessage.Type) dnsmessage.Message {
	return dnsmessage.Message{Header: dnsmessage.Header{ID: 7}, Questions: []dnsmessage.Question{{Name: dnsmessage.MustNewName(name), Type: t, Class: dnsmessage.ClassINET}}}
}

// kinds is each record's owner and type, as "hark.local. A".
func kinds(rrs []dnsmessage.Resource) []string {
	var out []string
	for _, rr := range rrs {
		out = append(out, rr.Header.Name.String()+" "+rr.Header.Type.String())
	}
	return out
}

func TestAnswer(t *testing.T) {
	r := box()
	for _, tc := range []struct {
		name        string
		q           dnsmessage.Message
		answers     []string
		additionals []string
	}{
		// the other family of addresses comes along (RFC 6762 6.2)
		{"the host's IPv4", question("hark.local.", dnsmessage.TypeA), []string{"hark.local. TypeA"}, []string{"hark.local. TypeAAAA"}},
		{"the host in capitals", question("HARK.local.", dnsmessage.TypeAAAA), []string{"hark.local. TypeAAAA"}, []string{"hark.local. TypeA"}},
		{"the web page", question("_https._tcp.local.", dnsmessage.TypePTR), []string{"_https._tcp.local. TypePTR"},
			[]string{"Hark (kitchen)._https._tcp.local. TypeSRV", "Hark (kitchen)._https._tcp.local. TypeTXT", "hark.local. TypeA", "hark.local. TypeAAAA"}},
		{"a center for nodes", question("_hark._tcp.local.", dnsmessage.TypePTR), []string{"_hark._tcp.local. TypePTR"},
			[]string{"Hark center._hark._tcp.local. TypeSRV", "Hark center._hark._tcp.local. TypeTXT", "hark.local. TypeA", "hark.local. TypeAAAA"}},
		{"the services", question(servicesName, dnsmessage.TypePTR), []string{servicesName + " TypePTR", servicesName + " TypePTR"},
			[]string{"hark.local. TypeA", "hark.local. TypeAAAA"}},
		{"an instance's SRV", question("Hark (kitchen)._https._tcp.local.", dnsmessage.TypeSRV), []string{"Hark (kitchen)._https._tcp.local. TypeSRV"},
			[]string{"Hark (kitchen)._https._tcp.local. TypeTXT", "hark.local. TypeA", "hark.local. TypeAAAA"}},
	} {
		resp, ok := r.answer(tc.q, true)
		if !ok || !slices.Equal(kinds(resp.Answers), tc.answers) || !slices.Equal(kinds(resp.Additionals), tc.additionals) {
			t.Errorf("%s: answers %v, additionals %v; want %v, %v", tc.name, kinds(resp.Answers), kinds(resp.Additionals), tc.answers, tc.additionals)
		}
		if ok && (resp.ID != 7 || len(resp.Questions) != 1 || resp.Answers[0].Header.TTL != 10) {
			t.Errorf("%s: a unicast query's answer has id %d, %d questions, ttl %d", tc.name, resp.ID, len(resp.Questions), resp.Answers[0].Header.TTL)
		}
	}
	for _, q := range []dnsmessage.Message{question("other.local.", dnsmessage.TypeA), question("_http._tcp.local.", dnsmessage.TypePTR)} {
		if _, ok := r.answer(q, false); ok {
			t.Errorf("answered %v, which is not ours", q.Questions[0].Name)
		}
	}
	if resp, _ := r.answer(question("hark.local.", dnsmessage.TypeA), false); resp.ID != 0 || len(resp.Questions) != 0 || resp.Answers[0].Header.TTL != 120 {
		t.Errorf("a multicast answer: id %d, %d questions, ttl %d", resp.ID, len(resp.Questions), resp.Answers[0].Header.TTL)
	}
	if err := (&Responder{Host: "my box"}).check(); err == nil {
		t.Error("a host name with a space was taken")
	}
}

// TestLookupFindsTheCenter: a node's lookup of _hark._tcp, sent to a
// responder over UDP, finds the center's instance, host, port, text and
// addresses.
func TestLookupFindsTheCenter(t *testing.T) {
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go box().ServeConn(ctx, conn, nil)
	ask, stop := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer stop()
	found, err := Ask(ask, conn.LocalAddr(), "_hark._tcp")
	if err != nil {
		t.Fatal(err)
	}
	want := Found{Instance: "Hark center", Host: "hark.local", Port: 8765, Text: []string{"fingerprint=sha256:ab"},
		Addrs: []netip.Addr{netip.MustParseAddr("192.168.1.20"), netip.MustParseAddr("fd00::20")}}
	if len(found) != 1 || found[0].Instance != want.Instance || found[0].Host != want.Host || found[0].Port != want.Port ||
		!slices.Equal(found[0].Text, want.Text) || !slices.Equal(found[0].Addrs, want.Addrs) {
		t.Errorf("found %+v, want %+v", found, want)
	}
}

// BenchmarkAnswerOverUDP is the time from a query sent to a responder on
// the loopback to its answer read: what a phone waits for hark.local.
func BenchmarkAnswerOverUDP(b *testing.B) {
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	go box().ServeConn(ctx, conn, nil)
	c, err := net.Dial("udp4", conn.LocalAddr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	m := question("hark.local.", dnsmessage.TypeA)
	q, _ := m.Pack()
	buf := make([]byte, 1500)
	for b.Loop() {
		c.Write(q)
		if _, err := c.Read(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// TestOnTheNetwork: on a machine whose network carries multicast, the
// responder joins the mDNS group and a lookup sent to the group finds the
// web page's service. It skips where no interface can join.
func TestOnTheNetwork(t *testing.T) {
	r := box()
	r.Services[0].Instance = "Hark test " + time.Now().Format("150405-000000")
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- r.Serve(ctx) }()
	defer func() { cancel(); <-served }()
	time.Sleep(100 * time.Millisecond)
	select {
	case err := <-served:
		t.Skipf("no multicast here: %v", err)
	default:
	}
	ask, stop := context.WithTimeout(t.Context(), time.Second)
	defer stop()
	began := time.Now()
	found, err := Lookup(ask, "_https._tcp")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		if f.Instance == r.Services[0].Instance && f.Port == 8080 {
			t.Logf("found %q at %s:%d (the lookup listens %v for every answer)", f.Instance, f.Host, f.Port, time.Since(began).Round(time.Millisecond))
			t.Logf("hark.local answered over the multicast group in %v", firstAnswer(t))
			return
		}
	}
	t.Skipf("the group did not carry the query back on this machine (found %+v)", found)
}

// firstAnswer is the time from a query for hark.local sent to the mDNS
// group to the first answer.
func firstAnswer(t *testing.T) time.Duration {
	c, err := net.ListenPacket("udp4", ":0")
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	m := question("hark.local.", dnsmessage.TypeA)
	q, _ := m.Pack()
	c.SetReadDeadline(time.Now().Add(time.Second))
	began := time.Now()
	c.WriteTo(q, group4)
	buf := make([]byte, 1500)
	if _, _, err := c.ReadFrom(buf); err != nil {
		t.Fatalf("no answer: %v", err)
	}
	return time.Since(began)
}
