package mdns

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/net/dns/dnsmessage"
	"golang.org/x/net/ipv4"
	"golang.org/x/sys/unix"

	"github.com/harkbox/hark/internal/sandboxtest"
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
	c, err := listenGroup(group4, nil)
	if err != nil {
		t.Skipf("no multicast here: %v", err)
	}
	c.Close()
	r := box()
	r.Services[0].Instance = "Hark test " + time.Now().Format("150405-000000")
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	go func() { served <- r.Serve(ctx) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	time.Sleep(claiming) // it probes the name before it answers
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

// TestRename: a responder renamed while it serves tells its group that
// the old names are gone (time to live 0), announces the new ones at
// once, and answers with them from then on; a name DNS cannot carry is
// refused and changes nothing.
func TestRename(t *testing.T) {
	conn, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	group, err := net.ListenPacket("udp4", "127.0.0.1:0") // stands in for the multicast group
	if err != nil {
		t.Fatal(err)
	}
	defer group.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	r := box()
	r.Services = r.Services[:1] // the web page
	go r.ServeConn(ctx, conn, group.LocalAddr())
	read := func() dnsmessage.Message {
		t.Helper()
		group.SetReadDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 9000)
		n, _, err := group.ReadFrom(buf)
		if err != nil {
			t.Fatal(err)
		}
		var m dnsmessage.Message
		if err := m.Unpack(buf[:n]); err != nil {
			t.Fatal(err)
		}
		return m
	}
	ptrs := func(m dnsmessage.Message) []string {
		var out []string
		for _, rr := range m.Answers {
			if p, ok := rr.Body.(*dnsmessage.PTRResource); ok {
				out = append(out, fmt.Sprint(p.PTR.String(), " ttl ", rr.Header.TTL))
			}
		}
		return out
	}
	if got := ptrs(read()); !slices.Equal(got, []string{"Hark (kitchen)._https._tcp.local. ttl 120"}) {
		t.Fatalf("got the first announcement %q", got)
	}
	if err := r.Rename("Ada (kitchen)"); err != nil {
		t.Fatal(err)
	}
	if got := ptrs(read()); !slices.Equal(got, []string{"Hark (kitchen)._https._tcp.local. ttl 0"}) {
		t.Errorf("got the goodbye %q, want the old name with ttl 0", got)
	}
	if got := ptrs(read()); !slices.Equal(got, []string{"Ada (kitchen)._https._tcp.local. ttl 120"}) {
		t.Errorf("got the new announcement %q, want the new name", got)
	}
	if err := r.Rename(strings.Repeat("x", 70)); err == nil {
		t.Error("a name longer than a DNS label was taken")
	}
	resp, ok := r.answer(question("_https._tcp.local.", dnsmessage.TypePTR), false)
	if got := ptrs(resp); !ok || !slices.Equal(got, []string{"Ada (kitchen)._https._tcp.local. ttl 120"}) {
		t.Errorf("got the answer %q after the rename, want the new name", got)
	}
}

// network is the machine's network as Serve sees it, driven by the test:
// its interfaces, and whether a group can be joined on them (up).
type network struct {
	mu     sync.Mutex
	up     bool
	links  []link
	err    error // listing the interfaces fails with it
	tries  int   // joins tried
	joined []*member
}

func (n *network) listen(g *net.UDPAddr, ifc *net.Interface) (net.PacketConn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.tries++
	if !n.up {
		return nil, errors.New("setsockopt: no such device")
	}
	m := &member{gone: make(chan struct{}), on: ifc.Name, group: g}
	n.joined = append(n.joined, m)
	return m, nil
}

func (n *network) interfaces() ([]link, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.links), n.err
}

func (n *network) set(up bool, links ...link) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.up, n.links = up, links
}

func (n *network) fail(err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.err = err
}

// members are the groups joined so far, and the joins tried.
func (n *network) members() ([]*member, int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.joined), n.tries
}

// linkOf is an interface as the machine lists it.
func linkOf(index int, name string, flags net.Flags, prefixes ...string) link {
	l := link{ifc: net.Interface{Index: index, Name: name, Flags: flags, MTU: 1500}}
	for _, p := range prefixes {
		l.addrs = append(l.addrs, netip.MustParsePrefix(p))
	}
	return l
}

const lanFlags = net.FlagUp | net.FlagBroadcast | net.FlagMulticast | net.FlagRunning

var loopback = linkOf(1, "lo", net.FlagUp|net.FlagLoopback|net.FlagRunning, "127.0.0.1/8", "::1/128")

// member is a group joined on one interface: it keeps what is sent to it
// and receives nothing until it is closed, or breaks.
type member struct {
	on    string // the interface's name
	group *net.UDPAddr

	mu     sync.Mutex
	sent   []dnsmessage.Message
	closed bool
	broken error
	gone   chan struct{}
	once   sync.Once
}

func (m *member) ReadFrom([]byte) (int, net.Addr, error) {
	<-m.gone
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.broken != nil {
		return 0, nil, m.broken
	}
	return 0, nil, net.ErrClosed
}

func (m *member) WriteTo(b []byte, _ net.Addr) (int, error) {
	var msg dnsmessage.Message
	if err := msg.Unpack(b); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, msg)
	return len(b), nil
}

func (m *member) Close() error {
	m.mu.Lock()
	if m.broken == nil {
		m.closed = true
	}
	m.mu.Unlock()
	m.once.Do(func() { close(m.gone) })
	return nil
}

// breaks makes its reads fail, as on an interface gone.
func (m *member) breaks() {
	m.mu.Lock()
	m.broken = errors.New("read udp4 0.0.0.0:5353: network is down")
	m.mu.Unlock()
	m.once.Do(func() { close(m.gone) })
}

// state is how many announcements (responses) were sent to the group,
// and whether it was left.
func (m *member) state() (announced int, closed bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range m.sent {
		if msg.Response {
			announced++
		}
	}
	return announced, m.closed
}

// hostAddrs are the addresses the announcements to the group gave
// hark.local, in order, each once.
func (m *member) hostAddrs() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for _, msg := range m.sent {
		if !msg.Response {
			continue
		}
		for _, rr := range append(msg.Answers, msg.Additionals...) {
			var a string
			switch b := rr.Body.(type) {
			case *dnsmessage.AResource:
				a = netip.AddrFrom4(b.A).String()
			case *dnsmessage.AAAAResource:
				a = netip.AddrFrom16(b.AAAA).String()
			default:
				continue
			}
			if !slices.Contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

func (m *member) LocalAddr() net.Addr              { return m.group }
func (m *member) SetDeadline(time.Time) error      { return nil }
func (m *member) SetReadDeadline(time.Time) error  { return nil }
func (m *member) SetWriteDeadline(time.Time) error { return nil }

// claiming is the time from a group joined to the host name claimed and
// announced on it: a wait, the probes, the announcements.
const claiming = probeEvery*(probeCount+1) + announceEvery*(announceCount-1)

// TestServeWaitsForTheNetwork: a box that boots before its router (a
// power cut) or on no network (to be set up) has no interface to join the
// mDNS group on, or the join fails. Serve keeps trying, less and less
// often, and once the network comes it joins and announces the box. It
// joins again when the interfaces change (a Wi-Fi joined instead of the
// cable) or its group stops answering, and leaves every group when ctx is
// done.
func TestServeWaitsForTheNetwork(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &network{}
		n.set(false, loopback, linkOf(2, "eth0", lanFlags, "192.168.1.57/24")) // the link is there, the join fails
		r := box()
		r.listen, r.interfaces = n.listen, n.interfaces
		ctx, cancel := context.WithCancel(t.Context())
		served := make(chan error, 1)
		go func() { served <- r.Serve(ctx) }()

		time.Sleep(10 * time.Minute)
		synctest.Wait()
		select {
		case err := <-served:
			t.Fatalf("Serve returned on no network: %v", err)
		default:
		}
		if joined, tries := n.members(); len(joined) != 0 || tries < 5 || tries > 30 {
			t.Errorf("10 minutes on no network: %d joined, %d tries; want none joined, tries backing off to one a minute", len(joined), tries)
		}

		n.set(true, loopback, linkOf(2, "eth0", lanFlags, "192.168.1.58/24")) // the router is back
		time.Sleep(recheckEvery + claiming)
		synctest.Wait()
		joined, _ := n.members()
		if len(joined) != 1 {
			t.Fatalf("a check after the network came: %d groups joined, want 1", len(joined))
		}
		if sent, _ := joined[0].state(); sent != announceCount {
			t.Errorf("joined: %d announcements sent, want %d", sent, announceCount)
		}

		n.set(true, loopback, linkOf(3, "wlan0", lanFlags, "192.168.1.59/24")) // on Wi-Fi now
		time.Sleep(recheckEvery + claiming)
		synctest.Wait()
		joined, _ = n.members()
		if _, closed := joined[0].state(); !closed || len(joined) != 2 {
			t.Fatalf("a check after the interfaces changed: the first group closed %v, %d joined; want it closed, and a second", closed, len(joined))
		}
		if sent, _ := joined[1].state(); sent != announceCount || joined[1].on != "wlan0" {
			t.Errorf("joined again: %d announcements sent on %s, want %d on wlan0", sent, joined[1].on, announceCount)
		}

		joined[1].breaks()
		time.Sleep(retryMax)
		synctest.Wait()
		if joined, _ = n.members(); len(joined) != 3 {
			t.Fatalf("a minute after the group stopped answering: %d joined, want a third", len(joined))
		}

		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		if _, closed := joined[2].state(); !closed {
			t.Error("the group is still joined after Serve returned")
		}
	})
}

// TestServeOnEveryInterface: a box on the household's network (eth0, with
// the default route) that also opens its own access point for setting it
// up (ap0, no route) joins the groups on both, and announces on each the
// addresses a phone on that network can reach: eth0's on eth0, ap0's on
// ap0. An interface that is down, carries no multicast (a VPN tunnel) or
// is the loopback is left alone; IPv6's group is joined where the
// interface has IPv6.
func TestServeOnEveryInterface(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &network{}
		n.set(true, loopback,
			linkOf(2, "eth0", lanFlags, "192.168.1.57/24", "fd00::57/64", "fe80::57/64"),
			linkOf(3, "ap0", lanFlags, "10.42.0.1/24"),
			linkOf(4, "tun0", net.FlagUp|net.FlagPointToPoint|net.FlagRunning, "10.8.0.2/24"),
			linkOf(5, "wlan1", net.FlagBroadcast|net.FlagMulticast, "192.168.7.2/24"))
		r := &Responder{Host: "hark", Services: box().Services}
		r.listen, r.interfaces = n.listen, n.interfaces
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go r.Serve(ctx)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		joined, _ := n.members()
		var got []string
		for _, m := range joined {
			got = append(got, fmt.Sprintf("%s %v %v", m.on, m.group.IP, m.hostAddrs()))
		}
		slices.Sort(got)
		want := []string{"ap0 224.0.0.251 [10.42.0.1]", "eth0 224.0.0.251 [192.168.1.57 fd00::57]", "eth0 ff02::fb [192.168.1.57 fd00::57]"}
		if !slices.Equal(got, want) {
			t.Errorf("joined and announced:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

// TestServeSaysWhyItCannotList: when the interfaces cannot be listed
// (AF_NETLINK refused), Serve says so in the log once, with the error,
// and keeps trying.
func TestServeSaysWhyItCannotList(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logged strings.Builder
		n := &network{}
		n.fail(errors.New("route ip+net: netlinkrib: address family not supported by protocol"))
		r := box()
		r.Log = slog.New(slog.NewTextHandler(&logged, nil))
		r.listen, r.interfaces = n.listen, n.interfaces
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		go r.Serve(ctx)
		time.Sleep(time.Minute)
		synctest.Wait()
		if got := strings.Count(logged.String(), "netlinkrib"); got != 1 {
			t.Errorf("a minute without the interfaces: the error is in the log %d times, want once:\n%s", got, logged.String())
		}
		n.fail(nil)
		n.set(true, loopback, linkOf(2, "eth0", lanFlags, "192.168.1.57/24"))
		time.Sleep(retryMax)
		synctest.Wait()
		if joined, _ := n.members(); len(joined) != 1 {
			t.Errorf("once the interfaces can be listed: %d joined, want 1", len(joined))
		}
	})
}

// ip runs ip(8) commands, or skips.
func ip(t *testing.T, cmds ...string) {
	t.Helper()
	for _, c := range cmds {
		if out, err := exec.Command("ip", strings.Fields(c)...).CombinedOutput(); err != nil {
			t.Skipf("ip %s: %v %s", c, err, out)
		}
	}
}

// lan gives a namespace of its own the network of a box at home: eth0 at
// 192.168.1.57/24 (a veth pair) with a default route.
func lan(t *testing.T) {
	ip(t, "link set lo up", "link add eth0 type veth peer name router", "addr add 192.168.1.57/24 dev eth0",
		"link set router up", "link set eth0 up", "route add default via 192.168.1.1 dev eth0")
}

// TestHostNameInHarkServiceSandbox: hark.local stands for the box's
// addresses, read over AF_NETLINK. Under hark.service's
// RestrictAddressFamilies=, a box at 192.168.1.57 answers a query for
// hark.local with that address.
func TestHostNameInHarkServiceSandbox(t *testing.T) {
	fams := sandboxtest.Families(t, "../../systemd/hark.service")
	sandboxtest.Run(t, func(t *testing.T) {
		lan(t)
		sandboxtest.Restrict(t, fams)
		r := &Responder{Host: "hark"}
		resp, ok := r.answer(question("hark.local.", dnsmessage.TypeA), true)
		want := "192.168.1.57"
		if !ok || len(resp.Answers) != 1 || netip.AddrFrom4(resp.Answers[0].Body.(*dnsmessage.AResource).A).String() != want {
			as, err := Addresses()
			t.Errorf("RestrictAddressFamilies=%s: hark.local answered %v (Addresses() = %v, %v), want %s", strings.Join(fams, " "), resp.Answers, as, err, want)
		}
	})
}

// TestServeOnceTheNetworkComes: a box on no network at first (only its
// loopback, no route for the mDNS group) answers hark.local over the
// group once its network comes, without a restart.
func TestServeOnceTheNetworkComes(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T) {
		ip(t, "link set lo up")
		r := &Responder{Host: "hark", Addrs: func() []netip.Addr { return []netip.Addr{netip.MustParseAddr("192.168.1.57")} }}
		ctx, cancel := context.WithCancel(t.Context())
		served := make(chan error, 1)
		go func() { served <- r.Serve(ctx) }()
		defer func() {
			cancel()
			if err := <-served; err != nil {
				t.Errorf("Serve: %v", err)
			}
		}()
		time.Sleep(300 * time.Millisecond) // it tried, and found no network
		lan(t)
		c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(192, 168, 1, 57)})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		m := question("hark.local.", dnsmessage.TypeA)
		q, _ := m.Pack()
		buf := make([]byte, 1500)
		for range 10 { // 10 s: it tries again after 1 s, and looks at the interfaces every 5 s
			c.WriteTo(q, group4)
			c.SetReadDeadline(time.Now().Add(time.Second))
			if _, _, err := c.ReadFrom(buf); err == nil {
				return
			}
		}
		t.Error("10 s after the network came, a query for hark.local over the group got no answer")
	})
}

// TestAddressesSaysWhyNot: without AF_NETLINK the interfaces cannot be
// listed; Addresses says so rather than answering with no address.
func TestAddressesSaysWhyNot(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T) {
		lan(t)
		sandboxtest.Restrict(t, []string{"AF_UNIX", "AF_INET", "AF_INET6"})
		if as, err := Addresses(); err == nil || !strings.HasPrefix(err.Error(), "mdns: ") {
			t.Errorf("without AF_NETLINK: Addresses() = %v, %v; want an error of mdns's", as, err)
		}
	})
}

// askOn sends a query for hark.local's IPv4 address to the group from
// from, out through the interface named on, and returns the addresses of
// the first answer, or an error once every try went unanswered.
func askOn(on string, from netip.Addr) ([]netip.Addr, error) {
	ifc, err := net.InterfaceByName(on)
	if err != nil {
		return nil, err
	}
	c, err := net.ListenUDP("udp4", &net.UDPAddr{IP: from.AsSlice()})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if err := ipv4.NewPacketConn(c).SetMulticastInterface(ifc); err != nil {
		return nil, err
	}
	m := question("hark.local.", dnsmessage.TypeA)
	q, _ := m.Pack()
	buf := make([]byte, 1500)
	for range 10 {
		c.WriteTo(q, group4)
		c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		n, _, err := c.ReadFrom(buf)
		if err != nil {
			continue
		}
		var resp dnsmessage.Message
		if err := resp.Unpack(buf[:n]); err != nil {
			return nil, err
		}
		var out []netip.Addr
		for _, rr := range resp.Answers {
			if a, ok := rr.Body.(*dnsmessage.AResource); ok {
				out = append(out, netip.AddrFrom4(a.A))
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("no answer on %s in 5 s", on)
}

// TestAnswersOnTheAccessPoint: a box on the household's network (eth0,
// the default route) with its own access point open (ap0, no route) is
// found by a phone on either: a query for hark.local that comes in on ap0
// is answered with ap0's address, one on eth0 with eth0's.
func TestAnswersOnTheAccessPoint(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T) {
		lan(t)
		ip(t, "link add ap0 type veth peer name phone", "addr add 10.42.0.1/24 dev ap0", "link set phone up", "link set ap0 up")
		r := &Responder{Host: "hark"}
		ctx, cancel := context.WithCancel(t.Context())
		served := make(chan error, 1)
		go func() { served <- r.Serve(ctx) }()
		defer func() {
			cancel()
			if err := <-served; err != nil {
				t.Errorf("Serve: %v", err)
			}
		}()
		for _, tc := range []struct{ on, at string }{{"ap0", "10.42.0.1"}, {"eth0", "192.168.1.57"}} {
			got, err := askOn(tc.on, netip.MustParseAddr(tc.at))
			if err != nil || len(got) != 1 || got[0].String() != tc.at {
				t.Errorf("a query for hark.local on %s: answered %v, %v; want %s alone", tc.on, got, err, tc.at)
			}
		}
	})
}

// listenOnGroup is a socket that hears mDNS's IPv4 group on the interface
// named on and nothing sent to an address of the machine: it is bound to
// the group's address itself, where a responder's is bound to any (Go's
// net binds a group's socket to any, so this one is made by hand).
func listenOnGroup(t *testing.T, on string) net.PacketConn {
	t.Helper()
	ifc, err := net.InterfaceByName(on)
	if err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := os.NewFile(uintptr(fd), "group")
	defer f.Close()
	for _, opt := range []int{unix.SO_REUSEADDR, unix.SO_REUSEPORT} {
		if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, opt, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: Port, Addr: [4]byte{224, 0, 0, 251}}); err != nil {
		t.Fatal(err)
	}
	if err := unix.SetsockoptIPMreqn(fd, unix.IPPROTO_IP, unix.IP_ADD_MEMBERSHIP, &unix.IPMreqn{Multiaddr: [4]byte{224, 0, 0, 251}, Ifindex: int32(ifc.Index)}); err != nil {
		t.Fatal(err)
	}
	c, err := net.FilePacketConn(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestUnicastDefenceReachesTheBox: the box's sockets hear an answer sent
// by unicast to port 5353 at its own address, as a machine that has
// hark.local sends its defence to a probe that asks for a unicast answer:
// the box claims hark-2. The box and the other machine are the two ends
// of a veth pair in a network namespace of their own.
func TestUnicastDefenceReachesTheBox(t *testing.T) {
	sandboxtest.Run(t, func(t *testing.T) {
		lan(t)
		// The other machine hears the box's probes on the veth's other end:
		// the box's sockets do not loop their multicast back (Go's
		// net.ListenMulticastUDP). Its end takes packets from the box's
		// address, which is this namespace's own.
		for f, v := range map[string]string{"conf/router/accept_local": "1", "conf/router/rp_filter": "0", "conf/all/rp_filter": "0"} {
			if err := os.WriteFile("/proc/sys/net/ipv4/"+f, []byte(v), 0o644); err != nil {
				t.Skipf("the other machine cannot hear the box: %v", err)
			}
		}
		d := listenOnGroup(t, "router")
		defer d.Close()
		go defend(d, netip.MustParseAddr("192.168.1.60"))
		r := &Responder{Host: "hark"}
		ctx, cancel := context.WithCancel(t.Context())
		served := make(chan error, 1)
		go func() { served <- r.Serve(ctx) }()
		defer func() {
			cancel()
			if err := <-served; err != nil {
				t.Errorf("Serve: %v", err)
			}
		}()
		for range 50 {
			if r.Name() == "hark-2" {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("5 s beside a machine that defends hark.local by unicast, the box is %q; want hark-2", r.Name())
	})
}
