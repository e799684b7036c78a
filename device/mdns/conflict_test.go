package mdns

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// hub is one link's multicast, in memory: what a port sends to its group
// reaches every other port on the hub that joined the group, what it
// sends to an address reaches the port at that address. A partitioned
// hub carries nothing between its sides, as two networks not yet joined.
type hub struct {
	mu          sync.Mutex
	ports       []*port
	partitioned bool
}

// port is a connection on a hub.
type port struct {
	hub   *hub
	addr  *net.UDPAddr
	group *net.UDPAddr
	side  int
	in    chan packet
	gone  chan struct{}
	once  sync.Once
}

type packet struct {
	b    []byte
	from net.Addr
}

func (h *hub) join(at string, side int, group *net.UDPAddr) *port {
	p := &port{hub: h, addr: &net.UDPAddr{IP: net.ParseIP(at), Port: Port}, group: group, side: side, in: make(chan packet, 64), gone: make(chan struct{})}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ports = append(h.ports, p)
	return p
}

func (h *hub) partition(on bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.partitioned = on
}

func (p *port) ReadFrom(b []byte) (int, net.Addr, error) {
	select {
	case pk := <-p.in:
		return copy(b, pk.b), pk.from, nil
	case <-p.gone:
		return 0, nil, net.ErrClosed
	}
}

func (p *port) WriteTo(b []byte, to net.Addr) (int, error) {
	ua := to.(*net.UDPAddr)
	p.hub.mu.Lock()
	defer p.hub.mu.Unlock()
	for _, o := range p.hub.ports {
		if o == p || (p.hub.partitioned && o.side != p.side) {
			continue
		}
		if ua.IP.Equal(o.group.IP) || (ua.IP.Equal(o.addr.IP) && ua.Port == o.addr.Port) {
			select {
			case o.in <- packet{slices.Clone(b), p.addr}:
			case <-o.gone:
			default: // a full queue drops, as a network does
			}
		}
	}
	return len(b), nil
}

func (p *port) Close() error {
	p.once.Do(func() { close(p.gone) })
	p.hub.mu.Lock()
	defer p.hub.mu.Unlock()
	p.hub.ports = slices.DeleteFunc(p.hub.ports, func(o *port) bool { return o == p })
	return nil
}

func (p *port) LocalAddr() net.Addr              { return p.addr }
func (p *port) SetDeadline(time.Time) error      { return nil }
func (p *port) SetReadDeadline(time.Time) error  { return nil }
func (p *port) SetWriteDeadline(time.Time) error { return nil }

// boxOn is a box on the hub at address at, on the hub's side side,
// telling claimed the names it claims; it serves until the test ends.
func boxOn(t *testing.T, h *hub, at string, side int, claimed func(string)) *Responder {
	return boxNamed(t, h, at, side, "Hark "+at, claimed)
}

// boxNamed is boxOn with the page's service instance named instance.
func boxNamed(t *testing.T, h *hub, at string, side int, instance string, claimed func(string)) *Responder {
	r := &Responder{Host: "hark", Services: []Service{{Instance: instance, Type: "_https._tcp", Port: 8080}}, Claimed: claimed}
	l := linkOf(2, "eth0", lanFlags, at+"/24")
	r.interfaces = func() ([]link, error) { return []link{l}, nil }
	r.listen = func(g *net.UDPAddr, _ *net.Interface) (net.PacketConn, error) { return h.join(at, side, g), nil }
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Serve(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return r
}

// resolve asks the hub's group for name's IPv4 addresses, as a phone does,
// and gathers the answers for a second.
func resolve(t *testing.T, h *hub, name string) []string {
	t.Helper()
	return resolveWithin(t, h, name, time.Second)
}

// resolveWithin is resolve gathering the answers for within.
func resolveWithin(t *testing.T, h *hub, name string, within time.Duration) []string {
	t.Helper()
	return ask(t, h, "192.168.1.99", question(name, dnsmessage.TypeA), within, func(rr dnsmessage.Resource) (string, bool) {
		a, ok := rr.Body.(*dnsmessage.AResource)
		if !ok || rr.Header.Name.String() != name {
			return "", false
		}
		return netip.AddrFrom4(a.A).String(), true
	})
}

// ask sends m to the hub's group from a phone at addr and gathers, for
// within, what read makes of each live answer (time to live above 0) of
// the responses heard, sorted and each once.
func ask(t *testing.T, h *hub, addr string, m dnsmessage.Message, within time.Duration, read func(dnsmessage.Resource) (string, bool)) []string {
	t.Helper()
	phone := h.join(addr, 0, group4)
	defer phone.Close()
	q, _ := m.Pack()
	phone.WriteTo(q, group4)
	var got []string
	ctx, cancel := context.WithTimeout(t.Context(), within)
	defer cancel()
	context.AfterFunc(ctx, func() { phone.Close() })
	buf := make([]byte, 9000)
	for {
		n, _, err := phone.ReadFrom(buf)
		if err != nil {
			break
		}
		var resp dnsmessage.Message
		if resp.Unpack(buf[:n]) != nil || !resp.Response {
			continue
		}
		for _, rr := range resp.Answers {
			if v, ok := read(rr); ok && rr.Header.TTL > 0 {
				got = append(got, v)
			}
		}
	}
	slices.Sort(got)
	return slices.Compact(got)
}

// TestSecondBoxTakesTheNextName: a box that comes to a house where
// another already answers for hark.local probes the name first (RFC 6762
// 8.1), hears it defended, and claims hark-2.local instead; each name
// then stands for one box.
func TestSecondBoxTakesTheNextName(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		first := boxOn(t, h, "192.168.1.57", 0, nil)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		second := boxOn(t, h, "192.168.1.58", 0, nil)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if first.Name() != "hark" || second.Name() != "hark-2" {
			t.Errorf("the first box is %q, the second %q; want hark and hark-2", first.Name(), second.Name())
		}
		if got := resolve(t, h, "hark.local."); !slices.Equal(got, []string{"192.168.1.57"}) {
			t.Errorf("hark.local stands for %v, want the first box alone", got)
		}
		if got := resolve(t, h, "hark-2.local."); !slices.Equal(got, []string{"192.168.1.58"}) {
			t.Errorf("hark-2.local stands for %v, want the second box alone", got)
		}
	})
}

// TestBoxesStartingTogether: two boxes that power up at once (after a
// power cut) probe hark.local at the same time; the tie is broken (RFC
// 6762 8.2), one keeps the name and the other takes hark-2, and a third
// takes hark-3.
func TestBoxesStartingTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		a := boxOn(t, h, "192.168.1.57", 0, nil)
		b := boxOn(t, h, "192.168.1.58", 0, nil)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		got := []string{a.Name(), b.Name()}
		slices.Sort(got)
		if !slices.Equal(got, []string{"hark", "hark-2"}) {
			t.Fatalf("two boxes started together are named %v, want hark and hark-2", got)
		}
		c := boxOn(t, h, "192.168.1.59", 0, nil)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if c.Name() != "hark-3" {
			t.Errorf("a third box is named %q, want hark-3", c.Name())
		}
		for _, name := range []string{"hark.local.", "hark-2.local.", "hark-3.local."} {
			if got := resolve(t, h, name); len(got) != 1 {
				t.Errorf("%s stands for %v, want one box", name, got)
			}
		}
	})
}

// TestConflictSeenLater: two boxes that each claimed hark.local on
// networks apart (a Wi-Fi extender not yet bridged) meet later; the first
// answer that shows both owners sets them probing again, and one of them
// moves to hark-2. The one that moves says so through Claimed.
func TestConflictSeenLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		h.partition(true)
		var mu sync.Mutex
		var claimed []string
		tell := func(name string) {
			mu.Lock()
			defer mu.Unlock()
			claimed = append(claimed, name)
		}
		a := boxOn(t, h, "192.168.1.57", 0, tell)
		b := boxOn(t, h, "192.168.1.58", 1, tell)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if a.Name() != "hark" || b.Name() != "hark" {
			t.Fatalf("apart, the boxes are %q and %q; want both hark", a.Name(), b.Name())
		}
		h.partition(false)
		resolve(t, h, "hark.local.") // both answer
		time.Sleep(10 * time.Second)
		synctest.Wait()
		got := []string{a.Name(), b.Name()}
		slices.Sort(got)
		if !slices.Equal(got, []string{"hark", "hark-2"}) {
			t.Fatalf("after they met the boxes are named %v, want hark and hark-2", got)
		}
		if got := resolve(t, h, "hark.local."); len(got) != 1 {
			t.Errorf("hark.local stands for %v, want one box", got)
		}
		mu.Lock()
		defer mu.Unlock()
		if !slices.Contains(claimed, "hark-2") {
			t.Errorf("claimed %v: the move to hark-2 was not told", claimed)
		}
	})
}

// TestNoAnswerWhileProbing: until the name is claimed (3 probes 250 ms
// apart, RFC 6762 8.1) a query for it is not answered; after, it is.
func TestNoAnswerWhileProbing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		boxOn(t, h, "192.168.1.57", 0, nil)
		time.Sleep(100 * time.Millisecond)
		if got := resolveWithin(t, h, "hark.local.", probeEvery*probeCount-100*time.Millisecond); len(got) != 0 {
			t.Errorf("while probing, hark.local was answered with %v", got)
		}
		time.Sleep(claiming)
		if got := resolve(t, h, "hark.local."); !slices.Equal(got, []string{"192.168.1.57"}) {
			t.Errorf("after probing, hark.local stands for %v, want the box", got)
		}
	})
}

// browse asks the hub's group for the instances of typ, as a phone's
// list of services does, and gathers their names for a second.
func browse(t *testing.T, h *hub, typ string) []string {
	t.Helper()
	return ask(t, h, "192.168.1.98", question(typ, dnsmessage.TypePTR), time.Second, func(rr dnsmessage.Resource) (string, bool) {
		p, ok := rr.Body.(*dnsmessage.PTRResource)
		if !ok || rr.Header.Name.String() != typ {
			return "", false
		}
		return strings.TrimSuffix(p.PTR.String(), "."+typ), true
	})
}

// instances are the names the responders' first services are listed by.
func instances(rs ...*Responder) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.services()[0].Instance)
	}
	slices.Sort(out)
	return out
}

// TestSecondBoxRenamesItsService: two boxes in a house both offer their
// page as "Hark". The second probes its service's name as it does its
// host name (RFC 6762 8, 9), hears the first defend it, and lists its
// page as "Hark (2)" (RFC 6763 4.1); a phone's list shows both.
func TestSecondBoxRenamesItsService(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		first := boxNamed(t, h, "192.168.1.57", 0, "Hark", nil)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		second := boxNamed(t, h, "192.168.1.58", 0, "Hark", nil)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if got := []string{first.services()[0].Instance, second.services()[0].Instance}; !slices.Equal(got, []string{"Hark", "Hark (2)"}) {
			t.Errorf("the boxes' pages are listed as %q, want Hark and Hark (2)", got)
		}
		if got := browse(t, h, "_https._tcp.local."); !slices.Equal(got, []string{"Hark", "Hark (2)"}) {
			t.Errorf("a phone lists %q, want Hark and Hark (2)", got)
		}
	})
}

// TestServicesOfBoxesStartingTogether: two boxes that power up at once
// both probe "Hark"; one keeps it and the other takes "Hark (2)", and a
// third takes "Hark (3)".
func TestServicesOfBoxesStartingTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		a := boxNamed(t, h, "192.168.1.57", 0, "Hark", nil)
		b := boxNamed(t, h, "192.168.1.58", 0, "Hark", nil)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if got := instances(a, b); !slices.Equal(got, []string{"Hark", "Hark (2)"}) {
			t.Errorf("started together, the boxes' pages are listed as %q, want Hark and Hark (2)", got)
		}
		c := boxNamed(t, h, "192.168.1.59", 0, "Hark", nil)
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if got := c.services()[0].Instance; got != "Hark (3)" {
			t.Errorf("a third box's page is listed as %q, want Hark (3)", got)
		}
		if got := browse(t, h, "_https._tcp.local."); !slices.Equal(got, []string{"Hark", "Hark (2)", "Hark (3)"}) {
			t.Errorf("a phone lists %q, want Hark, Hark (2) and Hark (3)", got)
		}
	})
}

// TestServiceConflictSeenLater: two boxes that each listed their page as
// "Hark" on networks apart meet later; one of them moves to "Hark (2)".
func TestServiceConflictSeenLater(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		h.partition(true)
		a := boxNamed(t, h, "192.168.1.57", 0, "Hark", nil)
		b := boxNamed(t, h, "192.168.1.58", 1, "Hark", nil)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		h.partition(false)
		browse(t, h, "_https._tcp.local.") // both answer
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if got := instances(a, b); !slices.Equal(got, []string{"Hark", "Hark (2)"}) {
			t.Errorf("after they met the boxes' pages are listed as %q, want Hark and Hark (2)", got)
		}
	})
}

func TestInstanceFor(t *testing.T) {
	long := strings.Repeat("é", 31) // 62 bytes
	for _, tc := range []struct {
		base string
		n    int
		want string
	}{{"Hark", 1, "Hark"}, {"Hark", 2, "Hark (2)"}, {"Hark (kitchen)", 3, "Hark (kitchen) (3)"}, {long, 2, strings.Repeat("é", 29) + " (2)"}} {
		if got := instanceFor(tc.base, tc.n); got != tc.want {
			t.Errorf("instanceFor(%q, %d) = %q, want %q", tc.base, tc.n, got, tc.want)
		}
	}
}

func TestNameFor(t *testing.T) {
	for _, tc := range []struct {
		base string
		n    int
		want string
	}{{"hark", 1, "hark"}, {"hark", 2, "hark-2"}, {"hark", 12, "hark-12"}, {string(make63('a')), 3, string(make63('a'))[:61] + "-3"}} {
		if got := nameFor(tc.base, tc.n); got != tc.want {
			t.Errorf("nameFor(%q, %d) = %q, want %q", tc.base, tc.n, got, tc.want)
		}
	}
}

func make63(c byte) []byte {
	b := make([]byte, 63)
	for i := range b {
		b[i] = c
	}
	return b
}

// sniffer is a machine on the hub that keeps every message sent to the
// group (and to its own address), with the address it came from.
type sniffer struct {
	mu   sync.Mutex
	seen []heardFrom
}

type heardFrom struct {
	from string
	msg  dnsmessage.Message
}

// sniff puts a sniffer on the hub at at until the test ends.
func sniff(t *testing.T, h *hub, at string) *sniffer {
	s := &sniffer{}
	p := h.join(at, 0, group4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 9000)
		for {
			n, from, err := p.ReadFrom(buf)
			if err != nil {
				return
			}
			var m dnsmessage.Message
			if m.Unpack(buf[:n]) != nil {
				continue
			}
			s.mu.Lock()
			s.seen = append(s.seen, heardFrom{from.(*net.UDPAddr).IP.String(), m})
			s.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		p.Close()
		<-done
	})
	return s
}

// about is what the machine at from sent that names name, in order: "probe"
// for a query that asks for it, "announce" for a response with a live
// record of it (or a PTR to it).
func (s *sniffer) about(from, name string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, h := range s.seen {
		if h.from != from {
			continue
		}
		if !h.msg.Response {
			if slices.ContainsFunc(h.msg.Questions, func(q dnsmessage.Question) bool { return strings.EqualFold(q.Name.String(), name) }) {
				out = append(out, "probe")
			}
			continue
		}
		if slices.ContainsFunc(append(slices.Clone(h.msg.Answers), h.msg.Additionals...), func(rr dnsmessage.Resource) bool {
			p, ok := rr.Body.(*dnsmessage.PTRResource)
			return rr.Header.TTL > 0 && (strings.EqualFold(rr.Header.Name.String(), name) || ok && strings.EqualFold(p.PTR.String(), name))
		}) {
			out = append(out, "announce")
		}
	}
	return out
}

// TestRenameProbesTheNewName: a household renames its box to a name
// another box in the house already lists its page by. The renamed box
// probes the new name before it lists its page by it (RFC 6762 8.1),
// hears the other defend it, and lists its page as "Ada (2)"; the other
// keeps "Ada", and the name is never announced by two boxes. A new name
// no other box has is probed, then announced; the box's host name is
// answered all the while.
func TestRenameProbesTheNewName(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		first := boxNamed(t, h, "192.168.1.57", 0, "Ada", nil)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		second := boxNamed(t, h, "192.168.1.58", 0, "Hark", nil)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		s := sniff(t, h, "192.168.1.97")
		if err := second.Rename("Ada"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if got := []string{first.services()[0].Instance, second.services()[0].Instance}; !slices.Equal(got, []string{"Ada", "Ada (2)"}) {
			t.Errorf("after the second box was renamed Ada, the pages are listed as %q, want Ada and Ada (2)", got)
		}
		if got := s.about("192.168.1.58", "Ada._https._tcp.local."); len(got) == 0 || slices.Contains(got, "announce") {
			t.Errorf("the renamed box sent %v about Ada; want probes alone", got)
		}
		if got := browse(t, h, "_https._tcp.local."); !slices.Equal(got, []string{"Ada", "Ada (2)"}) {
			t.Errorf("a phone lists %q, want Ada and Ada (2)", got)
		}

		if err := second.Rename("Bea"); err != nil {
			t.Fatal(err)
		}
		if got := resolveWithin(t, h, "hark-2.local.", probeEvery*probeCount-100*time.Millisecond); !slices.Equal(got, []string{"192.168.1.58"}) {
			t.Errorf("while its page's new name is probed, hark-2.local stands for %v, want the renamed box", got)
		}
		time.Sleep(10 * time.Second)
		synctest.Wait()
		want := append(slices.Repeat([]string{"probe"}, probeCount), slices.Repeat([]string{"announce"}, announceCount)...)
		if got := s.about("192.168.1.58", "Bea._https._tcp.local."); !slices.Equal(got, want) {
			t.Errorf("renamed Bea, which no other box has, the box sent %v about it; want %v", got, want)
		}
		if got := browse(t, h, "_https._tcp.local."); !slices.Equal(got, []string{"Ada", "Bea"}) {
			t.Errorf("a phone lists %q, want Ada and Bea", got)
		}
	})
}

// unicastDefence is how a machine that has hark.local at owner answers a
// question for it that asks for a unicast answer (the "QU" bit): with
// its address record, to be sent to the asker alone (RFC 6762 5.4). It
// answers no other question.
func unicastDefence(q dnsmessage.Message, owner netip.Addr) ([]byte, bool) {
	if q.Response || !slices.ContainsFunc(q.Questions, func(qu dnsmessage.Question) bool {
		return strings.EqualFold(qu.Name.String(), "hark.local.") && qu.Class&0x8000 != 0
	}) {
		return nil, false
	}
	resp := dnsmessage.Message{Header: dnsmessage.Header{Response: true, Authoritative: true}, Answers: []dnsmessage.Resource{{
		Header: dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName("hark.local."), Type: dnsmessage.TypeA, Class: dnsmessage.ClassINET | 0x8000, TTL: 120},
		Body:   &dnsmessage.AResource{A: owner.As4()}}}}
	b, err := resp.Pack()
	return b, err == nil
}

// defend answers on c, until it is closed, each question that asks for a
// unicast answer about hark.local by unicast, as the machine at owner
// that has the name; it multicasts nothing.
func defend(c net.PacketConn, owner netip.Addr) {
	buf := make([]byte, 9000)
	for {
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			return
		}
		var q dnsmessage.Message
		if q.Unpack(buf[:n]) != nil {
			continue
		}
		if b, ok := unicastDefence(q, owner); ok {
			c.WriteTo(b, from)
		}
	}
}

// TestUnicastDefenceIsHeard: the machine that has hark.local answers a
// probe that asks for a unicast answer by unicast alone, to the prober's
// address and port (RFC 6762 5.4, 8.1). The box asks so in its first
// probe, hears the answer as a conflict, and claims hark-2.
func TestUnicastDefenceIsHeard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		d := h.join("192.168.1.60", 0, group4)
		done := make(chan struct{})
		go func() {
			defer close(done)
			defend(d, netip.MustParseAddr("192.168.1.60"))
		}()
		defer func() {
			d.Close()
			<-done
		}()
		r := boxOn(t, h, "192.168.1.58", 0, nil)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if r.Name() != "hark-2" {
			t.Errorf("the box claimed %q beside a machine that defends hark.local by unicast; want hark-2", r.Name())
		}
	})
}

// TestFirstProbeAsksForUnicast: of a claim's probes the first alone asks
// for unicast answers (RFC 6762 8.1), every question of it; the others
// ask for multicast ones, as a probe begun again after a rename does.
func TestFirstProbeAsksForUnicast(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		s := sniff(t, h, "192.168.1.97")
		r := boxOn(t, h, "192.168.1.58", 0, nil)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if err := r.Rename("Ada"); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Second)
		synctest.Wait()
		var got []string
		s.mu.Lock()
		for _, h := range s.seen {
			if h.msg.Response || len(h.msg.Authorities) == 0 {
				continue
			}
			qu := 0
			for _, q := range h.msg.Questions {
				if q.Class&0x8000 != 0 {
					qu++
				}
			}
			got = append(got, fmt.Sprintf("%d of %d QU", qu, len(h.msg.Questions)))
		}
		s.mu.Unlock()
		want := []string{"2 of 2 QU", "0 of 2 QU", "0 of 2 QU", "1 of 1 QU", "0 of 1 QU", "0 of 1 QU"}
		if !slices.Equal(got, want) {
			t.Errorf("the probes asked %q, want %q", got, want)
		}
	})
}

// responses is how many responses the machine at from sent that the
// sniffer heard.
func (s *sniffer) responses(from string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, h := range s.seen {
		if h.from == from && h.msg.Response {
			n++
		}
	}
	return n
}

// TestUnicastAnswerWhenMulticastLately: a question that asks for a
// unicast answer (QU) is answered to the asker alone when the box
// multicast the records lately, within a quarter of their time to live;
// otherwise the answer is multicast, to keep the other machines' caches
// up to date and let them see a conflict (RFC 6762 5.4).
func TestUnicastAnswerWhenMulticastLately(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := &hub{}
		s := sniff(t, h, "192.168.1.97")
		boxOn(t, h, "192.168.1.58", 0, nil)
		time.Sleep(claiming)
		synctest.Wait()
		qu := question("hark.local.", dnsmessage.TypeA)
		qu.Questions[0].Class |= 0x8000
		read := func(rr dnsmessage.Resource) (string, bool) {
			a, ok := rr.Body.(*dnsmessage.AResource)
			if !ok {
				return "", false
			}
			return netip.AddrFrom4(a.A).String(), true
		}
		for _, tc := range []struct {
			after     time.Duration
			multicast bool
		}{
			{0, false},                // announced a moment ago
			{time.Minute, true},       // more than 30 s ago: multicast
			{time.Second, false},      // that answer multicast them 2 s ago (each question is heard for a second)
			{25 * time.Second, false}, // 28 s ago
			{5 * time.Second, true},   // 34 s ago
		} {
			time.Sleep(tc.after)
			before := s.responses("192.168.1.58")
			got := ask(t, h, "192.168.1.99", qu, time.Second, read)
			multicast := s.responses("192.168.1.58") > before
			if !slices.Equal(got, []string{"192.168.1.58"}) || multicast != tc.multicast {
				t.Errorf("a QU question %v later: answered %v, multicast %v; want the box's address, multicast %v", tc.after, got, multicast, tc.multicast)
			}
		}
	})
}
