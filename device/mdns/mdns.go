// Package mdns makes the box findable on the local network without a DNS
// server: it answers multicast DNS (RFC 6762) for its host name
// (NAME.local, A and AAAA records; claimed by probing first, NAME-2.local
// when another machine has it) and DNS-based service discovery (RFC
// 6763) for its services: _http._tcp or _https._tcp for the web page,
// _hark._tcp for a command center that nodes look for. Service instance
// names are probed as the host name is, and listed as "Hark (2)" when
// another machine offers "Hark". Lookup asks the
// network for a service, as a node or a test does. device/box runs a
// Responder beside the web page.
package mdns

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/dns/dnsmessage"
)

// Port is mDNS's UDP port.
const Port = 5353

var (
	group4 = &net.UDPAddr{IP: net.IPv4(224, 0, 0, 251), Port: Port}
	group6 = &net.UDPAddr{IP: net.ParseIP("ff02::fb"), Port: Port}
)

// Service is one service the box offers, as DNS-SD names it.
type Service struct {
	// Instance is the name a person sees in a browser of services:
	// "Hark (kitchen)". Dots are taken out.
	Instance string
	// Type is the service type with its protocol: "_https._tcp".
	Type string
	Port uint16
	// Text are the service's key=value pairs ("path=/").
	Text []string
}

func (s Service) typeName() string { return s.Type + ".local." }
func (s Service) instanceName() string {
	return strings.ReplaceAll(s.Instance, ".", " ") + "." + s.typeName()
}

// Responder answers for a host name and its services. Its fields are set
// before Serve and not changed after; Rename changes the services' name
// while it serves (Serve probes the new name first), and Serve the host
// name, or a service's name ("Hark (2)"), when another machine claims it.
type Responder struct {
	// Host is the host name wanted, without .local: "hark". Serve claims
	// it, or when another machine has it "hark-2", "hark-3"...; Name is
	// the one claimed.
	Host     string
	Services []Service
	// Addrs are the addresses a query for Host is answered with; nil
	// answers with the machine's own (loopback left out).
	Addrs func() []netip.Addr
	// TTL is how long others may keep the answers; default 2 minutes.
	TTL time.Duration
	Log *slog.Logger
	// Claimed, when set, is called by Serve with the host name (without
	// .local) each time it claims one other than the last: the first
	// time, and after a conflict. It must not block.
	Claimed func(host string)

	// listen joins an mDNS group on one interface and interfaces lists
	// the machine's interfaces, for Serve: listenGroup and interfaces, or
	// a test's.
	listen     func(group *net.UDPAddr, ifc *net.Interface) (net.PacketConn, error)
	interfaces func() ([]link, error)

	mu      sync.Mutex
	renamed []Service                 // Services with Rename's name; nil before a Rename
	nth     []int                     // each service's name is instanceFor(its name, nth[i]); nil: its own
	groups  map[net.PacketConn]joined // the connections the responder announces on
	name    string                    // the host name Serve probes or claimed; "" before: Host
	probing bool                      // Serve probes name: nothing is answered
	// probingSvc: Serve probes the services' names alone (after a
	// Rename); the host name is answered, the services are not.
	probingSvc bool
	// renames, while Serve serves, tells its claim that Rename gave the
	// services new names to probe; nil when no Serve claims the names.
	renames chan struct{}
	// multicast is when each record (by recordKey) was last multicast on
	// each connection announced on, for answering a QU question (RFC
	// 6762 5.4).
	multicast map[net.PacketConn]map[string]time.Time
	// local are the prefixes of the machine's links, which a message must
	// come from to be heard (onLink): Serve's last listing of the
	// interfaces, or ServeConn's when it starts; nil before.
	local atomic.Pointer[[]netip.Prefix]
}

// Name is the host name the responder answers for, without .local: Host,
// or the one Serve claimed instead.
func (r *Responder) Name() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.name != "" {
		return r.name
	}
	return strings.ToLower(r.Host)
}

// joined is a connection the responder announces on: its group, and the
// addresses it answers for the host name with there.
type joined struct {
	group net.Addr
	addrs func() []netip.Addr
}

// services are the services as they are named now: by Rename's name or
// their own, and " (2)", " (3)"... when another machine has that.
func (r *Responder) services() []Service {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.servicesLocked()
}

func (r *Responder) servicesLocked() []Service {
	out := r.Services
	if r.renamed != nil {
		out = r.renamed
	}
	if r.nth == nil {
		return out
	}
	out = slices.Clone(out)
	for i := range out {
		out[i].Instance = instanceFor(out[i].Instance, r.nth[i])
	}
	return out
}

// nextInstances names the services svcs (their index) by the next names
// to try.
func (r *Responder) nextInstances(svcs []int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, i := range svcs {
		if r.nth == nil {
			r.nth = make([]int, len(r.Services))
			for j := range r.nth {
				r.nth[j] = 1
			}
		}
		r.nth[i]++
	}
}

// Rename gives every service the name a person sees (Service.Instance)
// from now on, while the responder serves: the groups it announces on are
// told the old names are gone (a goodbye, time to live 0). Under Serve the
// new names are probed first, as the first ones were (RFC 6762 8.1), and
// announced once no other machine answered for them; a service whose new
// name another machine has is listed as "name (2)" instead. Under
// ServeConn alone, which claims nothing, they are announced at once. A
// service listed as "name (2)" because another machine had its old name
// tries the new name itself. A name DNS cannot carry is an error and
// changes nothing. Rename does not wait for the probes.
func (r *Responder) Rename(instance string) error {
	r.mu.Lock()
	old := r.servicesLocked()
	next := slices.Clone(r.Services)
	for i := range next {
		next[i].Instance = instance
		if _, err := dnsmessage.NewName(next[i].instanceName()); err != nil || instance == "" || len(instance) > 63 { // one DNS label
			r.mu.Unlock()
			return fmt.Errorf("mdns: %q cannot name a service", instance)
		}
	}
	r.renamed, r.nth = next, nil
	renames := r.renames
	if renames != nil {
		r.probingSvc = true // not ours until probed: not answered
	}
	groups := maps.Clone(r.groups)
	r.mu.Unlock()
	bye := dnsmessage.Message{Header: dnsmessage.Header{Response: true, Authoritative: true}}
	for _, s := range old {
		bye.Answers = append(bye.Answers, ptr(s.typeName(), s.instanceName(), 0))
		bye.Answers = append(bye.Answers, r.instanceRecords(s, 0)...)
	}
	goodbye, err := bye.Pack()
	if err != nil {
		return fmt.Errorf("mdns: rename: %w", err)
	}
	for conn, j := range groups {
		r.toGroup(conn, j.group, goodbye)
		if renames != nil {
			continue // Serve's claim announces them once probed
		}
		if hello, ok := r.announcement(j.addrs()); ok {
			r.toGroup(conn, j.group, hello)
		}
	}
	if renames != nil {
		select {
		case renames <- struct{}{}:
		default: // a rename already waits to be probed: it probes the latest names
		}
	}
	return nil
}

const servicesName = "_services._dns-sd._udp.local."

func (r *Responder) hostName() string { return r.Name() + ".local." }

// addrs are the addresses the host name stands for where the responder
// does not know the interface a query came in on (ServeConn): Addrs, or
// every one of the machine's. What cannot be listed is logged.
func (r *Responder) addrs() []netip.Addr {
	if r.Addrs != nil {
		return r.Addrs()
	}
	as, err := Addresses()
	if err != nil {
		r.logger().Warn("mDNS answers with the addresses it could list", "err", err)
	}
	return as
}

// Addresses are the machine's addresses a host name stands for: every
// interface's that is up, loopback and link-local addresses left out.
// An interface that cannot be listed is an error; the addresses of the
// others come with it.
func Addresses() ([]netip.Addr, error) {
	ls, err := interfaces()
	var out []netip.Addr
	for _, l := range ls {
		if l.ifc.Flags&net.FlagUp != 0 && l.ifc.Flags&net.FlagLoopback == 0 {
			out = append(out, l.own()...)
		}
	}
	return out, err
}

// link is one of the machine's interfaces and its addresses.
type link struct {
	ifc   net.Interface
	addrs []netip.Prefix
}

// own are the link's addresses a host name stands for: link-local ones
// left out (a phone's browser does not take them).
func (l link) own() []netip.Addr {
	var out []netip.Addr
	for _, p := range l.addrs {
		if a := p.Addr().Unmap(); !a.IsLinkLocalUnicast() {
			out = append(out, a)
		}
	}
	return out
}

// answers reports whether mDNS is answered on the link: it is up, carries
// multicast and is not the loopback.
func (l link) answers() bool {
	f := l.ifc.Flags
	return f&net.FlagUp != 0 && f&net.FlagMulticast != 0 && f&net.FlagLoopback == 0
}

// has reports whether the link has an address of the group's family, which
// the group is joined with.
func (l link) has(group *net.UDPAddr) bool {
	v4 := group.IP.To4() != nil
	for _, p := range l.addrs {
		if p.Addr().Unmap().Is4() == v4 {
			return true
		}
	}
	return false
}

func (r *Responder) ttl(legacy bool) uint32 {
	t := r.TTL
	if t <= 0 {
		t = 2 * time.Minute
	}
	if legacy && t > 10*time.Second {
		t = 10 * time.Second // RFC 6762 6.7: a unicast resolver caches no longer
	}
	return uint32(t / time.Second)
}

// answer is the response to a query, and whether there is one. legacy
// marks a query from a resolver that is not mDNS's own (its source port
// is not 5353): its answer echoes the id and question, and lives briefly.
func (r *Responder) answer(q dnsmessage.Message, legacy bool) (dnsmessage.Message, bool) {
	return r.answerWith(q, legacy, r.addrs())
}

// answerWith is answer with the host name standing for addrs.
func (r *Responder) answerWith(q dnsmessage.Message, legacy bool, addrs []netip.Addr) (dnsmessage.Message, bool) {
	r.mu.Lock()
	probing, probingSvc := r.probing, r.probingSvc
	r.mu.Unlock()
	if probing {
		return dnsmessage.Message{}, false // the name is not ours yet
	}
	resp := dnsmessage.Message{Header: dnsmessage.Header{Response: true, Authoritative: true}}
	if legacy {
		resp.ID = q.ID
		resp.Questions = q.Questions
	}
	ttl := r.ttl(legacy)
	services := r.services()
	if probingSvc {
		services = nil // their names are not ours yet
	}
	seen := map[string]bool{}
	add := func(to *[]dnsmessage.Resource, rr dnsmessage.Resource) {
		key := rr.Header.Name.String() + rr.Header.Type.String() + rr.Body.GoString()
		if !seen[key] {
			seen[key] = true
			*to = append(*to, rr)
		}
	}
	for _, qu := range q.Questions {
		if qu.Class&0x7fff != dnsmessage.ClassINET && qu.Class&0x7fff != dnsmessage.ClassANY {
			continue
		}
		name := strings.ToLower(qu.Name.String())
		switch {
		case name == r.hostName():
			for _, rr := range r.hostRecords(qu.Type, ttl, addrs) {
				add(&resp.Answers, rr)
			}
		case name == servicesName && (qu.Type == dnsmessage.TypePTR || qu.Type == dnsmessage.TypeALL):
			for _, s := range services {
				add(&resp.Answers, ptr(servicesName, s.typeName(), ttl))
			}
		default:
			for _, s := range services {
				switch {
				case name == strings.ToLower(s.typeName()) && (qu.Type == dnsmessage.TypePTR || qu.Type == dnsmessage.TypeALL):
					add(&resp.Answers, ptr(s.typeName(), s.instanceName(), ttl))
					for _, rr := range r.instanceRecords(s, ttl) {
						add(&resp.Additionals, rr)
					}
				case name == strings.ToLower(s.instanceName()):
					for _, rr := range r.instanceRecords(s, ttl) {
						if qu.Type == dnsmessage.TypeALL || rr.Header.Type == qu.Type {
							add(&resp.Answers, rr)
						} else {
							add(&resp.Additionals, rr)
						}
					}
				}
			}
		}
	}
	if len(resp.Answers) == 0 {
		return dnsmessage.Message{}, false
	}
	for _, rr := range r.hostRecords(dnsmessage.TypeALL, ttl, addrs) { // where the services are
		if len(services) > 0 {
			add(&resp.Additionals, rr)
		}
	}
	return resp, true
}

// hostRecords are the host name's A and AAAA records of type t (TypeALL
// for both), for addrs.
func (r *Responder) hostRecords(t dnsmessage.Type, ttl uint32, addrs []netip.Addr) []dnsmessage.Resource {
	var out []dnsmessage.Resource
	name := dnsmessage.MustNewName(r.hostName())
	for _, a := range addrs {
		h := dnsmessage.ResourceHeader{Name: name, Class: dnsmessage.ClassINET | 0x8000, TTL: ttl} // cache-flush: the box owns its name
		switch {
		case a.Is4() && (t == dnsmessage.TypeA || t == dnsmessage.TypeALL):
			h.Type = dnsmessage.TypeA
			out = append(out, dnsmessage.Resource{Header: h, Body: &dnsmessage.AResource{A: a.As4()}})
		case a.Is6() && (t == dnsmessage.TypeAAAA || t == dnsmessage.TypeALL):
			h.Type = dnsmessage.TypeAAAA
			out = append(out, dnsmessage.Resource{Header: h, Body: &dnsmessage.AAAAResource{AAAA: a.As16()}})
		}
	}
	return out
}

// instanceRecords are a service instance's SRV and TXT records.
func (r *Responder) instanceRecords(s Service, ttl uint32) []dnsmessage.Resource {
	name := dnsmessage.MustNewName(s.instanceName())
	txt := s.Text
	if len(txt) == 0 {
		txt = []string{""}
	}
	return []dnsmessage.Resource{
		{Header: dnsmessage.ResourceHeader{Name: name, Type: dnsmessage.TypeSRV, Class: dnsmessage.ClassINET | 0x8000, TTL: ttl},
			Body: &dnsmessage.SRVResource{Port: s.Port, Target: dnsmessage.MustNewName(r.hostName())}},
		{Header: dnsmessage.ResourceHeader{Name: name, Type: dnsmessage.TypeTXT, Class: dnsmessage.ClassINET | 0x8000, TTL: ttl},
			Body: &dnsmessage.TXTResource{TXT: txt}},
	}
}

func ptr(from, to string, ttl uint32) dnsmessage.Resource {
	return dnsmessage.Resource{Header: dnsmessage.ResourceHeader{Name: dnsmessage.MustNewName(from), Type: dnsmessage.TypePTR, Class: dnsmessage.ClassINET, TTL: ttl},
		Body: &dnsmessage.PTRResource{PTR: dnsmessage.MustNewName(to)}}
}

// check refuses a Responder whose names DNS cannot carry.
func (r *Responder) check() error {
	if _, err := dnsmessage.NewName(r.hostName()); err != nil || r.Host == "" || strings.ContainsAny(r.Host, ". ") {
		return fmt.Errorf("mdns: %q is not a host name", r.Host)
	}
	for _, s := range r.services() {
		if _, err := dnsmessage.NewName(s.instanceName()); err != nil || !strings.HasPrefix(s.Type, "_") {
			return fmt.Errorf("mdns: service %q of type %q cannot be named", s.Instance, s.Type)
		}
	}
	return nil
}

// Serve answers on the local network's mDNS groups until ctx is done; it
// returns an error only for names DNS cannot carry. Another responder on
// the machine (Avahi) may answer too.
//
// It joins the groups (IPv4's, and IPv6's where the interface has IPv6)
// on every interface that is up and carries multicast, the loopback left
// out: the household's network, and the box's own access point, which
// has no route, for a phone that sets the box up. A query that comes in
// on an interface is answered there with that interface's addresses (or
// with Addrs, when set), so that a phone is never sent to an address it
// cannot reach.
//
// A box may have no interface yet: it booted before the router after a
// power cut, or it is on no network at all. A join that fails is tried
// again, waiting twice as long each time up to retryMax. When the
// machine's interfaces change (an address comes or goes, a cable, a
// Wi-Fi joined, the access point opened) it joins every group again.
// Each time it joins a group it announces the records there.
func (r *Responder) Serve(ctx context.Context) error {
	if err := r.check(); err != nil {
		return err
	}
	listen, ifaces := r.listen, r.interfaces
	if listen == nil {
		listen = listenGroup
	}
	if ifaces == nil {
		ifaces = interfaces
	}
	log := r.logger()
	type key struct {
		index int
		group *net.UDPAddr
	}
	type member struct {
		conn  net.PacketConn
		on    string // the interface's name
		leave context.CancelFunc
	}
	members := map[key]member{}
	failed := map[key]bool{} // the last try failed, and said so
	once := map[key]bool{}   // it was joined once
	var wg sync.WaitGroup
	ended := make(chan net.PacketConn) // a conn that stopped answering on its own
	leaveAll := func() {
		for k, m := range members {
			m.leave()
			delete(members, k)
		}
	}
	defer wg.Wait()
	defer leaveAll()
	waiting := false   // it said it waits for an interface
	joinedNew := false // join joined a group: the name is probed again
	heard := make(chan message)
	// join joins the groups not joined on links and reports whether one
	// is left to try again: a join failed, or there is no interface.
	join := func(links []link) (left bool) {
		some := false
		for _, l := range links {
			if !l.answers() {
				continue
			}
			addrs := func() []netip.Addr { return l.own() }
			if r.Addrs != nil {
				addrs = r.Addrs
			}
			for _, g := range []*net.UDPAddr{group4, group6} {
				k := key{l.ifc.Index, g}
				if !l.has(g) || members[k].conn != nil {
					some = some || l.has(g)
					continue
				}
				some = true
				ifc := l.ifc
				c, err := listen(g, &ifc)
				if err != nil {
					if !failed[k] {
						log.Info("mDNS cannot answer on an interface yet", "interface", ifc.Name, "group", g, "err", err)
					}
					failed[k], left = true, true
					continue
				}
				level := slog.LevelDebug // joined again, on the same network or another
				if !once[k] || failed[k] {
					level = slog.LevelInfo
				}
				log.Log(ctx, level, "mDNS answers on the network", "interface", ifc.Name, "group", g)
				cctx, cancel := context.WithCancel(ctx)
				members[k] = member{c, ifc.Name, cancel}
				delete(failed, k)
				once[k] = true
				r.track(c, g, addrs)
				joinedNew = true
				wg.Go(func() {
					defer c.Close()
					defer r.untrack(c)
					r.serveConn(cctx, c, g, addrs, func(m dnsmessage.Message) {
						select {
						case heard <- message{m, addrs()}:
						case <-cctx.Done():
						}
					})
					if cctx.Err() == nil {
						select {
						case ended <- c:
						case <-cctx.Done():
						}
					}
				})
			}
		}
		if !some && !waiting {
			log.Info("mDNS waits for a network to answer on")
		}
		waiting = !some
		return left || !some
	}
	listErr := "" // the error listing the interfaces last said
	list := func() ([]link, bool) {
		links, err := ifaces()
		if err != nil {
			if err.Error() != listErr {
				log.Warn("mDNS cannot list the network interfaces", "err", err)
			}
			listErr = err.Error()
			return nil, false
		}
		listErr = ""
		r.setLocal(links)
		return links, true
	}

	cl := r.newClaim(log)
	defer cl.timer.Stop()
	renames := make(chan struct{}, 1)
	r.mu.Lock()
	r.renames = renames
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.renames, r.probingSvc = nil, false
		r.mu.Unlock()
	}()
	var seen string // the interfaces when it last tried to join
	wait := retryFirst
	retry := time.NewTimer(0)
	defer retry.Stop()
	recheck := time.NewTicker(recheckEvery)
	defer recheck.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-retry.C:
			links, ok := list()
			if ok {
				seen = describe(links) // what it joins on
			}
			if !ok || join(links) {
				retry.Reset(wait)
				wait = min(2*wait, retryMax)
			} else {
				wait = retryFirst
			}
			if joinedNew {
				joinedNew = false
				cl.probe(rand.N(probeEvery))
			}
		case <-cl.timer.C:
			cl.next()
		case <-renames:
			cl.renamed()
		case m := <-heard:
			cl.heard(m)
		case c := <-ended:
			for k, m := range members {
				if m.conn == c {
					log.Warn("mDNS stopped answering on the network; joining it again", "interface", m.on, "group", k.group)
					m.leave()
					delete(members, k)
				}
			}
			retry.Reset(wait)
		case <-recheck.C:
			links, ok := list()
			if !ok || describe(links) == seen {
				continue
			}
			seen = describe(links)
			log.Debug("the network interfaces changed: mDNS joins its groups again")
			leaveAll()
			wait = retryFirst
			retry.Reset(0)
		}
	}
}

// How Serve waits for a network: it tries again after retryFirst, then
// twice as long each time up to retryMax, and looks whether the
// interfaces changed every recheckEvery.
const (
	retryFirst   = time.Second
	retryMax     = time.Minute
	recheckEvery = 5 * time.Second
)

// listenGroup joins group on ifc (nil: the one the system picks), to be
// answered there alone: the connection hears the group on ifc only, and
// sends to it through ifc.
func listenGroup(group *net.UDPAddr, ifc *net.Interface) (net.PacketConn, error) {
	network := "udp4"
	if group.IP.To4() == nil {
		network = "udp6"
	}
	on := "the system's pick"
	if ifc != nil {
		on = ifc.Name
	}
	c, err := net.ListenMulticastUDP(network, ifc, group)
	if err != nil {
		return nil, fmt.Errorf("mdns: join %v on %s: %w", group, on, err)
	}
	if err := hearOnlyJoined(c, network == "udp6"); err != nil {
		c.Close()
		return nil, fmt.Errorf("mdns: join %v on %s: %w", group, on, err)
	}
	return c, nil
}

// interfaces lists the machine's interfaces with their addresses. An
// interface whose addresses cannot be listed is an error; the others
// come with it.
func interfaces() ([]link, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("mdns: list the network interfaces: %w", err)
	}
	var out []link
	var errs []error
	for _, ifc := range ifs {
		l := link{ifc: ifc}
		as, err := ifc.Addrs()
		if err != nil {
			errs = append(errs, fmt.Errorf("mdns: list the addresses of %s: %w", ifc.Name, err))
		}
		for _, a := range as {
			if p, err := netip.ParsePrefix(a.String()); err == nil {
				l.addrs = append(l.addrs, p)
			}
		}
		out = append(out, l)
	}
	return out, errors.Join(errs...)
}

// describe is the interfaces as far as the groups joined go: each one's
// index, name, flags and addresses.
func describe(links []link) string {
	var b strings.Builder
	for _, l := range links {
		fmt.Fprintf(&b, "%d %s %v", l.ifc.Index, l.ifc.Name, l.ifc.Flags)
		for _, p := range l.addrs {
			b.WriteString(" " + p.String())
		}
		b.WriteString("\n")
	}
	return b.String()
}

// ServeConn answers the queries that arrive on conn until ctx is done: a
// query from mDNS's port is answered to group (nil: to the sender), its
// questions that ask for a unicast answer to the sender alone when their
// records were multicast to group within a quarter of their time to live
// (RFC 6762 5.4); any other query to its sender alone. It
// announces the records to group first. Only messages from the subnets
// of the machine's interfaces as they are when it starts, and from
// link-local addresses, are heard (see onLink).
func (r *Responder) ServeConn(ctx context.Context, conn net.PacketConn, group net.Addr) {
	if r.local.Load() == nil {
		links, err := interfaces()
		if err != nil {
			r.logger().Warn("mDNS hears its own subnets alone, as far as it can list them", "err", err)
		}
		r.setLocal(links)
	}
	if group != nil {
		r.track(conn, group, r.addrs)
		defer r.untrack(conn)
		if b, ok := r.announcement(r.addrs()); ok {
			r.toGroup(conn, group, b)
		}
	}
	r.serveConn(ctx, conn, group, r.addrs, nil)
}

// track keeps conn among the connections announced on, to group with
// addrs; untrack takes it out.
func (r *Responder) track(conn net.PacketConn, group net.Addr, addrs func() []netip.Addr) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.groups == nil {
		r.groups = map[net.PacketConn]joined{}
	}
	r.groups[conn] = joined{group, addrs}
}

func (r *Responder) untrack(conn net.PacketConn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.groups, conn)
	delete(r.multicast, conn)
}

// toGroup sends b to conn's group and, when b is a response and conn is
// still announced on, keeps when each of its records was multicast
// there; a goodbye (time to live 0) forgets it.
func (r *Responder) toGroup(conn net.PacketConn, group net.Addr, b []byte) {
	conn.WriteTo(b, group)
	var m dnsmessage.Message
	if m.Unpack(b) != nil || !m.Response {
		return
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.groups[conn]; !ok {
		return // left meanwhile: untrack forgot it
	}
	if r.multicast == nil {
		r.multicast = map[net.PacketConn]map[string]time.Time{}
	}
	sent := r.multicast[conn]
	if sent == nil {
		sent = map[string]time.Time{}
		r.multicast[conn] = sent
	}
	for _, rr := range append(m.Answers, m.Additionals...) {
		if rr.Header.TTL == 0 {
			delete(sent, recordKey(rr))
		} else {
			sent[recordKey(rr)] = now
		}
	}
}

// multicastLately reports whether every answer of resp was multicast on
// conn within a quarter of its time to live: a question that asks for a
// unicast answer may then have one (RFC 6762 5.4); otherwise the answer
// is multicast, for the other machines' caches and their conflict checks.
func (r *Responder) multicastLately(conn net.PacketConn, resp dnsmessage.Message) bool {
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	sent := r.multicast[conn]
	for _, rr := range resp.Answers {
		at, ok := sent[recordKey(rr)]
		if !ok || now.Sub(at) > time.Duration(rr.Header.TTL)*time.Second/4 {
			return false
		}
	}
	return len(resp.Answers) > 0
}

// notAnsweredLately is resp without the records multicast in answer to a
// question within the last second (answered says when each was), and
// false when no answer is left: RFC 6762 6 forbids multicasting a record
// again so soon. A machine that asks the same question over and over, a
// few bytes each, then gets one multicast answer a second, not one each,
// which on Wi-Fi go at the slowest rate to every machine. Announcements
// do not count: a machine that joins just after one is answered.
func notAnsweredLately(resp dnsmessage.Message, answered map[string]time.Time, now time.Time) (dnsmessage.Message, bool) {
	keep := func(rrs []dnsmessage.Resource) []dnsmessage.Resource {
		var out []dnsmessage.Resource
		for _, rr := range rrs {
			if at, ok := answered[recordKey(rr)]; !ok || now.Sub(at) >= time.Second {
				out = append(out, rr)
			}
		}
		return out
	}
	resp.Answers, resp.Additionals = keep(resp.Answers), keep(resp.Additionals)
	if len(resp.Answers) == 0 {
		return dnsmessage.Message{}, false
	}
	for _, rr := range append(resp.Answers, resp.Additionals...) {
		answered[recordKey(rr)] = now
	}
	return resp, true
}

// recordKey names a record for multicastLately: its owner, type and
// data; its time to live left out.
func recordKey(rr dnsmessage.Resource) string {
	return strings.ToLower(rr.Header.Name.String()) + " " + rr.Header.Type.String() + " " + rr.Body.GoString()
}

// serveConn answers the queries on conn, the host name standing for
// addrs, until ctx is done, as ServeConn says. heard, when set, gets
// every response and every probe (a query with records to claim) that
// comes in: Serve's claim of the host name looks at them.
func (r *Responder) serveConn(ctx context.Context, conn net.PacketConn, group net.Addr, addrs func() []netip.Addr, heard func(dnsmessage.Message)) {
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	buf := make([]byte, 9000)
	answered := map[string]time.Time{} // when each record was last multicast in answer to a question
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			return
		}
		var q dnsmessage.Message
		if !r.onLink(from) || q.Unpack(buf[:n]) != nil || q.OpCode != 0 {
			continue
		}
		if heard != nil && (q.Response || len(q.Authorities) > 0) {
			heard(q)
		}
		if q.Response {
			continue
		}
		legacy := true
		if ua, ok := from.(*net.UDPAddr); ok && ua.Port == Port {
			legacy = false
		}
		as := addrs()
		unicast := legacy || group == nil
		if !unicast {
			// The questions that ask for a unicast answer have one when
			// their records were multicast lately; the others' answer,
			// and theirs otherwise, is multicast (RFC 6762 5.4).
			if qu, qm := byUnicast(q); len(qu.Questions) > 0 {
				if resp, ok := r.answerWith(qu, false, as); ok && r.multicastLately(conn, resp) {
					r.send(conn, from, resp)
					q.Questions = qm.Questions
				}
			}
			if len(q.Questions) == 0 {
				continue
			}
		}
		resp, ok := r.answerWith(q, legacy, as)
		if !ok {
			continue
		}
		if !unicast && len(q.Authorities) == 0 { // a probe's defence goes at once
			if resp, ok = notAnsweredLately(resp, answered, time.Now()); !ok {
				continue
			}
		}
		if unicast {
			r.send(conn, from, resp)
			continue
		}
		b, err := resp.Pack()
		if err != nil {
			r.logger().Warn("mDNS answer not packed", "err", err)
			continue
		}
		r.toGroup(conn, group, b)
	}
}

// send sends resp to to alone.
func (r *Responder) send(conn net.PacketConn, to net.Addr, resp dnsmessage.Message) {
	b, err := resp.Pack()
	if err != nil {
		r.logger().Warn("mDNS answer not packed", "err", err)
		return
	}
	conn.WriteTo(b, to)
}

// setLocal keeps the prefixes of links as those a message must come from.
func (r *Responder) setLocal(links []link) {
	local := prefixes(links)
	r.local.Store(&local)
}

// prefixes are the subnets of links' addresses.
func prefixes(links []link) []netip.Prefix {
	var local []netip.Prefix
	for _, l := range links {
		for _, p := range l.addrs {
			local = append(local, netip.PrefixFrom(p.Addr().Unmap().WithZone(""), p.Bits()))
		}
	}
	return local
}

// onLink reports whether a message from from came from a link of the
// machine's: from a link-local address, or one in the subnet of an
// address of the machine's (RFC 6762 5.5, 11). Any other, sent to the
// box's address from elsewhere (its global IPv6 address is reached from
// the Internet where the router lets it through) or with a spoofed
// source, is dropped: answered, it would tell a stranger the box's
// names, services and addresses, or send an answer many times its size
// at another machine; heard, a stranger's response would make the box
// give up its name. Any link's subnet will do, not only the connection's
// own: the sockets of all links share port 5353, and a message sent to
// one of the machine's addresses reaches any one of them.
func (r *Responder) onLink(from net.Addr) bool {
	local := r.local.Load()
	if local == nil {
		return linkLocal(from)
	}
	return onLink(*local, from)
}

// onLink reports whether from is a link-local address or one in a subnet
// of local.
func onLink(local []netip.Prefix, from net.Addr) bool {
	src, ok := sourceOf(from)
	if !ok {
		return false
	}
	if src.IsLinkLocalUnicast() {
		return true
	}
	for _, p := range local {
		if p.Contains(src) {
			return true
		}
	}
	return false
}

func linkLocal(from net.Addr) bool {
	src, ok := sourceOf(from)
	return ok && src.IsLinkLocalUnicast()
}

// sourceOf is a UDP sender's address, without its zone.
func sourceOf(from net.Addr) (netip.Addr, bool) {
	ua, ok := from.(*net.UDPAddr)
	if !ok {
		return netip.Addr{}, false
	}
	src, ok := netip.AddrFromSlice(ua.IP)
	return src.Unmap().WithZone(""), ok
}

// byUnicast parts q's questions into those that ask for a unicast
// answer (the top bit of the class, "QU") and the others.
func byUnicast(q dnsmessage.Message) (qu, qm dnsmessage.Message) {
	qu, qm = q, q
	qu.Questions, qm.Questions = nil, nil
	for _, question := range q.Questions {
		if question.Class&0x8000 != 0 {
			qu.Questions = append(qu.Questions, question)
		} else {
			qm.Questions = append(qm.Questions, question)
		}
	}
	return qu, qm
}

// announcement is every record, unasked, the host name standing for
// addrs: sent when the responder starts, so that browsers see the box at
// once.
func (r *Responder) announcement(addrs []netip.Addr) ([]byte, bool) {
	q := dnsmessage.Message{Questions: []dnsmessage.Question{{Name: dnsmessage.MustNewName(r.hostName()), Type: dnsmessage.TypeALL, Class: dnsmessage.ClassINET}}}
	for _, s := range r.services() {
		q.Questions = append(q.Questions, dnsmessage.Question{Name: dnsmessage.MustNewName(s.typeName()), Type: dnsmessage.TypePTR, Class: dnsmessage.ClassINET})
	}
	resp, ok := r.answerWith(q, false, addrs)
	if !ok {
		return nil, false
	}
	b, err := resp.Pack()
	return b, err == nil
}

func (r *Responder) logger() *slog.Logger {
	if r.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return r.Log.With("pkg", "mdns")
}
