package mdns

import (
	"bytes"
	"cmp"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/net/dns/dnsmessage"
)

// How Serve claims its host name and its services' instance names (RFC
// 6762 8 and 9): it waits up to
// probeEvery, sends probeCount probes probeEvery apart, and, when no
// other machine answered for the name, announces it announceCount times
// announceEvery apart. A machine that probes the same name at the same
// time and wins the tie is given deferToWinner before the name is probed
// again. After conflictBurst conflicts in conflictWindow it waits
// conflictPause before the next probe, so that two broken responders do
// not flood the network.
const (
	probeEvery     = 250 * time.Millisecond
	probeCount     = 3
	announceEvery  = time.Second
	announceCount  = 2
	deferToWinner  = time.Second
	conflictBurst  = 15
	conflictWindow = 10 * time.Second
	conflictPause  = 5 * time.Second
)

// message is a message heard on a connection, and the addresses the host
// name stands for there.
type message struct {
	msg   dnsmessage.Message
	addrs []netip.Addr
}

// claim is Serve's claim of the host name. Only Serve's goroutine uses
// it; the name itself is in the Responder, for its answers.
type claim struct {
	r     *Responder
	log   *slog.Logger
	base  string
	timer *time.Timer // the next probe or announcement

	tries     int // the name probed is nameFor(base, tries)
	probes    int // probes sent since probing began
	announced int // announcements sent since the name was claimed
	told      string
	toldSvc   []string    // the services' names when they were last claimed
	conflicts []time.Time // recent ones, for conflictBurst
}

func (r *Responder) newClaim(log *slog.Logger) *claim {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return &claim{r: r, log: log, base: strings.ToLower(r.Host), tries: 1, timer: t}
}

// nameFor is the n-th host name to try: base, then base-2, base-3...,
// base shortened to keep a DNS label's 63 bytes.
func nameFor(base string, n int) string {
	if n <= 1 {
		return base
	}
	suffix := "-" + strconv.Itoa(n)
	if len(base)+len(suffix) > 63 {
		base = base[:63-len(suffix)]
	}
	return base + suffix
}

// probe begins probing the name after delay; until it is claimed the
// responder answers nothing.
func (c *claim) probe(delay time.Duration) {
	c.r.mu.Lock()
	c.r.probing, c.r.name = true, nameFor(c.base, c.tries)
	c.r.mu.Unlock()
	c.probes, c.announced = 0, 0
	c.timer.Reset(delay)
}

// renamed probes the services' new names (Rename): with the host name
// when that is still probed, alone when it is claimed. The probes begin
// again, so that each new name is probed probeCount times.
func (c *claim) renamed() {
	c.probes, c.announced = 0, 0
	c.timer.Reset(rand.N(probeEvery))
}

// probeServices begins probing the services' names alone after delay:
// the host name is claimed, and answered meanwhile.
func (c *claim) probeServices(delay time.Duration) {
	c.r.mu.Lock()
	c.r.probingSvc = true
	c.r.mu.Unlock()
	c.probes, c.announced = 0, 0
	c.timer.Reset(delay)
}

// probed reports which names are probed: the host name (and with it the
// services'), the services' names.
func (c *claim) probed() (host, services bool) {
	c.r.mu.Lock()
	defer c.r.mu.Unlock()
	return c.r.probing, c.r.probing || c.r.probingSvc
}

// next sends the next probe or announcement, when its time came.
func (c *claim) next() {
	switch {
	case c.probes < probeCount:
		first := c.probes == 0
		c.send(func(addrs []netip.Addr) ([]byte, bool) { return c.r.probe(addrs, first) })
		c.probes++
		c.timer.Reset(probeEvery)
	case c.announced < announceCount:
		if c.announced == 0 {
			c.won()
			c.wonServices()
		}
		c.send(c.r.announcement)
		c.announced++
		if c.announced < announceCount {
			c.timer.Reset(announceEvery)
		}
	}
}

// won makes the name probed the responder's, and says so when it is new.
func (c *claim) won() {
	c.r.mu.Lock()
	c.r.probing, c.r.probingSvc = false, false
	name := c.r.name
	c.r.mu.Unlock()
	if name == c.told {
		return
	}
	c.told = name
	if c.tries > 1 {
		c.log.Warn("mDNS: another machine has the host name; this box is found by another", "wanted", c.base+".local", "name", name+".local")
	} else {
		c.log.Info("mDNS claimed the host name", "name", name+".local")
	}
	if c.r.Claimed != nil {
		c.r.Claimed(name)
	}
}

// wonServices says so when a service is listed under another name than
// the one wanted, the first time it is.
func (c *claim) wonServices() {
	var names []string
	for _, s := range c.r.services() {
		names = append(names, s.Instance)
	}
	if slices.Equal(names, c.toldSvc) {
		return
	}
	c.toldSvc = names
	c.r.mu.Lock()
	nth := slices.Clone(c.r.nth)
	c.r.mu.Unlock()
	for i, n := range nth {
		if n > 1 && i < len(names) {
			c.log.Warn("mDNS: another machine has the service's name; this box's is listed by another", "name", names[i])
		}
	}
}

// send sends what build makes for each connection's addresses to its
// group.
func (c *claim) send(build func([]netip.Addr) ([]byte, bool)) {
	c.r.mu.Lock()
	groups := maps.Clone(c.r.groups)
	c.r.mu.Unlock()
	for conn, j := range groups {
		if b, ok := build(j.addrs()); ok {
			c.r.toGroup(conn, j.group, b)
		}
	}
}

// heard looks at a message heard on a connection for the names claimed:
// a response that gives the host name another machine's address, or a
// service instance name other records, is a conflict; a probe for one of
// them from another machine while they are probed here is a tie, which
// the greater records win (RFC 6762 8.2).
func (c *claim) heard(m message) {
	name := c.r.hostName()
	if m.msg.Response {
		rrs := append(slices.Clone(m.msg.Answers), m.msg.Additionals...)
		host, svcs := c.foreign(rrs, name), c.clashes(rrs)
		if host || len(svcs) > 0 {
			c.conflict(host, svcs)
		}
		return
	}
	hostProbed, svcProbed := c.probed()
	if !svcProbed {
		return // claimed: serveConn answered the probe, which defends the names
	}
	lose := false
	var theirs []dnsmessage.Resource
	for _, rr := range m.msg.Authorities {
		if strings.EqualFold(rr.Header.Name.String(), name) && addrOf(rr).IsValid() {
			theirs = append(theirs, rr)
		}
	}
	if hostProbed && c.foreign(theirs, name) && rank(c.r.hostRecords(dnsmessage.TypeALL, 0, m.addrs), theirs) < 0 {
		lose = true
	}
	for _, s := range c.r.services() {
		ours := c.r.instanceRecords(s, 0)
		if theirs := named(m.msg.Authorities, s.instanceName()); len(theirs) > 0 && rank(ours, theirs) < 0 {
			lose = true
		}
	}
	if lose {
		c.log.Debug("mDNS: another machine probes a name too, and wins the tie; probing again in a second", "name", name)
		c.probes, c.announced = 0, 0
		c.timer.Reset(deferToWinner)
	}
}

// named are the SRV and TXT records among rrs for the instance name
// name, goodbyes (time to live 0) left out.
func named(rrs []dnsmessage.Resource, name string) []dnsmessage.Resource {
	var out []dnsmessage.Resource
	for _, rr := range rrs {
		if (rr.Header.Type == dnsmessage.TypeSRV || rr.Header.Type == dnsmessage.TypeTXT) && rr.Header.TTL > 0 && strings.EqualFold(rr.Header.Name.String(), name) {
			out = append(out, rr)
		}
	}
	return out
}

// clashes are the services (their index) whose instance name a record
// among rrs gives other data than this machine's: another machine offers
// a service by the same name. Records the same as this machine's are its
// own, or agree.
func (c *claim) clashes(rrs []dnsmessage.Resource) []int {
	var out []int
	for i, s := range c.r.services() {
		ours := c.r.instanceRecords(s, 0)
		for _, rr := range named(rrs, s.instanceName()) {
			if !slices.ContainsFunc(ours, func(o dnsmessage.Resource) bool {
				return o.Header.Type == rr.Header.Type && bytes.Equal(rdata(o), rdata(rr))
			}) {
				out = append(out, i)
				break
			}
		}
	}
	return out
}

// conflict starts probing again: the next name for each name in conflict
// (the host name when host, the services svcs) when that name was still
// probed, the same one when it was claimed (the other machine may be
// gone, or give way). A conflict on the services' names alone while the
// host name is claimed probes the services' names alone.
func (c *claim) conflict(host bool, svcs []int) {
	now := time.Now()
	c.conflicts = append(slices.DeleteFunc(c.conflicts, func(t time.Time) bool { return now.Sub(t) > conflictWindow }), now)
	delay := rand.N(probeEvery)
	if len(c.conflicts) >= conflictBurst {
		delay = conflictPause
	}
	name := c.r.Name()
	hostProbed, svcProbed := c.probed()
	switch {
	case host && hostProbed:
		c.tries++
		c.log.Info("mDNS: another machine answers for the host name; probing the next", "name", name+".local", "next", nameFor(c.base, c.tries)+".local")
	case !svcProbed || host:
		c.log.Info("mDNS: another machine answers for a name of this box's too; probing it again", "name", name+".local")
	}
	if svcProbed {
		c.r.nextInstances(svcs)
	}
	if host || hostProbed {
		c.probe(delay)
		return
	}
	c.probeServices(delay)
}

// foreign reports whether a record among rrs gives name an address that
// is none of this machine's: another machine claims it. A goodbye (time
// to live 0) claims nothing.
func (c *claim) foreign(rrs []dnsmessage.Resource, name string) bool {
	c.r.mu.Lock()
	groups := slices.Collect(maps.Values(c.r.groups))
	c.r.mu.Unlock()
	own := map[netip.Addr]bool{}
	for _, j := range groups {
		for _, a := range j.addrs() {
			own[a] = true
		}
	}
	for _, rr := range rrs {
		if a := addrOf(rr); a.IsValid() && rr.Header.TTL > 0 && strings.EqualFold(rr.Header.Name.String(), name) && !own[a] {
			return true
		}
	}
	return false
}

// addrOf is an A or AAAA record's address; the zero Addr for another.
func addrOf(rr dnsmessage.Resource) netip.Addr {
	switch b := rr.Body.(type) {
	case *dnsmessage.AResource:
		return netip.AddrFrom4(b.A)
	case *dnsmessage.AAAAResource:
		return netip.AddrFrom16(b.AAAA).Unmap()
	}
	return netip.Addr{}
}

// rank compares two machines' records for a name as RFC 6762 8.2 does:
// each set sorted, then record by record by class (the cache-flush bit
// left out), type and data as bytes; a set that runs out first is the
// lesser. It is negative when ours lose.
func rank(ours, theirs []dnsmessage.Resource) int {
	type key struct {
		class, typ uint16
		data       []byte
	}
	keys := func(rrs []dnsmessage.Resource) []key {
		var out []key
		for _, rr := range rrs {
			if data := rdata(rr); data != nil {
				out = append(out, key{uint16(rr.Header.Class) &^ 0x8000, uint16(rr.Header.Type), data})
			}
		}
		slices.SortFunc(out, func(a, b key) int {
			return cmp.Or(cmp.Compare(a.class, b.class), cmp.Compare(a.typ, b.typ), bytes.Compare(a.data, b.data))
		})
		return out
	}
	a, b := keys(ours), keys(theirs)
	for i := range min(len(a), len(b)) {
		if c := cmp.Or(cmp.Compare(a[i].class, b[i].class), cmp.Compare(a[i].typ, b[i].typ), bytes.Compare(a[i].data, b[i].data)); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// rdata is an A, AAAA, SRV or TXT record's data as it goes on the wire,
// names uncompressed and in lower case; nil for another record.
func rdata(rr dnsmessage.Resource) []byte {
	switch b := rr.Body.(type) {
	case *dnsmessage.AResource:
		return b.A[:]
	case *dnsmessage.AAAAResource:
		return b.AAAA[:]
	case *dnsmessage.SRVResource:
		out := []byte{byte(b.Priority >> 8), byte(b.Priority), byte(b.Weight >> 8), byte(b.Weight), byte(b.Port >> 8), byte(b.Port)}
		for _, l := range strings.Split(strings.TrimSuffix(strings.ToLower(b.Target.String()), "."), ".") {
			out = append(append(out, byte(len(l))), l...)
		}
		return append(out, 0)
	case *dnsmessage.TXTResource:
		out := []byte{}
		for _, t := range b.TXT {
			out = append(append(out, byte(len(t))), t...)
		}
		return out
	}
	return nil
}

// probe is the query that probes the host name and the services'
// instance names (the services' alone after a Rename, the host name
// claimed): any record of them, with the records the responder would
// claim for addrs (cache-flush bit clear). The first of a claim's probes
// asks for a unicast answer (qu, the "QU" bit; RFC 6762 8.1): a machine
// that has a name may then defend it to the box alone, at its address and
// port 5353, which the group's connections hear too (they are bound to
// any address of the machine).
func (r *Responder) probe(addrs []netip.Addr, qu bool) ([]byte, bool) {
	r.mu.Lock()
	host := r.probing || !r.probingSvc // the services' alone after a Rename
	r.mu.Unlock()
	class := dnsmessage.ClassINET
	if qu {
		class |= 0x8000
	}
	var recs []dnsmessage.Resource
	var q dnsmessage.Message
	if host {
		recs = r.hostRecords(dnsmessage.TypeALL, r.ttl(false), addrs)
		q.Questions = []dnsmessage.Question{{Name: dnsmessage.MustNewName(r.hostName()), Type: dnsmessage.TypeALL, Class: class}}
	}
	for _, s := range r.services() {
		q.Questions = append(q.Questions, dnsmessage.Question{Name: dnsmessage.MustNewName(s.instanceName()), Type: dnsmessage.TypeALL, Class: class})
		recs = append(recs, r.instanceRecords(s, r.ttl(false))...)
	}
	for i := range recs {
		recs[i].Header.Class &^= 0x8000
	}
	if len(q.Questions) == 0 {
		return nil, false
	}
	q.Authorities = recs
	b, err := q.Pack()
	return b, err == nil
}

// instanceFor is the n-th service instance name to try: base, then
// "base (2)", "base (3)"... (RFC 6763 4.1), base shortened, a whole
// character at a time, to keep a DNS label's 63 bytes.
func instanceFor(base string, n int) string {
	if n <= 1 {
		return base
	}
	suffix := " (" + strconv.Itoa(n) + ")"
	for len(base)+len(suffix) > 63 {
		_, size := utf8.DecodeLastRuneInString(base)
		base = base[:len(base)-size]
	}
	return base + suffix
}
