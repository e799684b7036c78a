// Package mdns makes the box findable on the local network without a DNS
// server: it answers multicast DNS (RFC 6762) for its host name
// (NAME.local, A and AAAA records) and DNS-based service discovery (RFC
// 6763) for its services: _http._tcp or _https._tcp for the web page,
// _hark._tcp for a command center that nodes look for. Lookup asks the
// network for a service, as a node or a test does. device/box runs a
// Responder beside the web page.
package mdns

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"net/netip"
	"slices"
	"strings"
	"sync"
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
// while it serves.
type Responder struct {
	// Host is the host name without .local: "hark".
	Host     string
	Services []Service
	// Addrs are the addresses a query for Host is answered with; nil
	// answers with the machine's own (loopback left out).
	Addrs func() []netip.Addr
	// TTL is how long others may keep the answers; default 2 minutes.
	TTL time.Duration
	Log *slog.Logger

	// listen joins an mDNS group and interfaces describes the machine's
	// interfaces, for Serve: listenGroup and interfaces, or a test's.
	listen     func(group *net.UDPAddr) (net.PacketConn, error)
	interfaces func() (string, error)

	mu      sync.Mutex
	renamed []Service                   // Services with Rename's name; nil before a Rename
	groups  map[net.PacketConn]net.Addr // the connections ServeConn announces on, to their group
}

// services are the services as they are named now.
func (r *Responder) services() []Service {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.renamed != nil {
		return r.renamed
	}
	return r.Services
}

// Rename gives every service the name a person sees (Service.Instance)
// from now on, while the responder serves: the groups it announces on are
// told the old names are gone (a goodbye, time to live 0) and are sent the
// new ones at once. A name DNS cannot carry is an error and changes
// nothing.
func (r *Responder) Rename(instance string) error {
	r.mu.Lock()
	old := r.renamed
	if old == nil {
		old = r.Services
	}
	next := slices.Clone(old)
	for i := range next {
		next[i].Instance = instance
		if _, err := dnsmessage.NewName(next[i].instanceName()); err != nil || instance == "" || len(instance) > 63 { // one DNS label
			r.mu.Unlock()
			return fmt.Errorf("mdns: %q cannot name a service", instance)
		}
	}
	r.renamed = next
	conns := maps.Clone(r.groups)
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
	hello, ok := r.announcement()
	for conn, group := range conns {
		conn.WriteTo(goodbye, group)
		if ok {
			conn.WriteTo(hello, group)
		}
	}
	return nil
}

const servicesName = "_services._dns-sd._udp.local."

func (r *Responder) hostName() string { return strings.ToLower(r.Host) + ".local." }

func (r *Responder) addrs() []netip.Addr {
	if r.Addrs != nil {
		return r.Addrs()
	}
	return Addresses()
}

// Addresses are the machine's addresses a host name stands for: every
// interface's that is up, loopback and link-local IPv6 left out.
func Addresses() []netip.Addr {
	var out []netip.Addr
	ifs, _ := net.Interfaces()
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		as, _ := ifc.Addrs()
		for _, a := range as {
			if p, err := netip.ParsePrefix(a.String()); err == nil && !p.Addr().IsLinkLocalUnicast() {
				out = append(out, p.Addr().Unmap())
			}
		}
	}
	return out
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
	resp := dnsmessage.Message{Header: dnsmessage.Header{Response: true, Authoritative: true}}
	if legacy {
		resp.ID = q.ID
		resp.Questions = q.Questions
	}
	ttl := r.ttl(legacy)
	services := r.services()
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
			for _, rr := range r.hostRecords(qu.Type, ttl) {
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
	for _, rr := range r.hostRecords(dnsmessage.TypeALL, ttl) { // where the services are
		if len(services) > 0 {
			add(&resp.Additionals, rr)
		}
	}
	return resp, true
}

// hostRecords are the host name's A and AAAA records of type t (TypeALL
// for both).
func (r *Responder) hostRecords(t dnsmessage.Type, ttl uint32) []dnsmessage.Resource {
	var out []dnsmessage.Resource
	name := dnsmessage.MustNewName(r.hostName())
	for _, a := range r.addrs() {
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

// Serve answers on the local network's mDNS groups (IPv4, and IPv6 where
// the machine has it) until ctx is done; it returns an error only for
// names DNS cannot carry. Another responder on the machine (Avahi) may
// answer too.
//
// A group is joined on the interface the system picks for it (the default
// route's). A box may have none yet: it booted before the router after a
// power cut, or it is on no network, to be set up through its own access
// point. Serve then tries again, waiting twice as long each time up to
// retryMax. When the machine's interfaces change (an address comes or
// goes, a cable, a Wi-Fi joined) it joins every group again, so that it
// answers on the network the machine is on now. Each time it joins a
// group it announces the records there.
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
	type member struct {
		group  *net.UDPAddr
		conn   net.PacketConn // nil while the group is not joined
		leave  context.CancelFunc
		failed bool // the last try failed, and said so
		joined bool // it was joined once
	}
	ms := []*member{{group: group4}, {group: group6}}
	var wg sync.WaitGroup
	ended := make(chan net.PacketConn) // a conn that stopped answering on its own
	leave := func(m *member) {
		if m.conn != nil {
			m.leave()
			m.conn, m.leave = nil, nil
		}
	}
	defer wg.Wait()
	defer func() {
		for _, m := range ms {
			leave(m)
		}
	}()
	// join joins the groups not joined and reports whether any is left.
	join := func() (left bool) {
		for _, m := range ms {
			if m.conn != nil {
				continue
			}
			c, err := listen(m.group)
			if err != nil {
				if !m.failed {
					log.Info("mDNS waits for a network to answer on", "group", m.group, "err", err)
				}
				m.failed, left = true, true
				continue
			}
			level := slog.LevelDebug // joined again, on the same network or another
			if !m.joined || m.failed {
				level = slog.LevelInfo
			}
			log.Log(ctx, level, "mDNS answers on the network", "group", m.group)
			cctx, cancel := context.WithCancel(ctx)
			m.conn, m.leave, m.failed, m.joined = c, cancel, false, true
			wg.Go(func() {
				defer c.Close()
				r.ServeConn(cctx, c, m.group)
				if cctx.Err() == nil {
					select {
					case ended <- c:
					case <-cctx.Done():
					}
				}
			})
		}
		return left
	}

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
			if now, err := ifaces(); err == nil {
				seen = now // what it joins on
			}
			if join() {
				retry.Reset(wait)
				wait = min(2*wait, retryMax)
			} else {
				wait = retryFirst
			}
		case c := <-ended:
			for _, m := range ms {
				if m.conn == c {
					log.Warn("mDNS stopped answering on the network; joining it again", "group", m.group)
					leave(m)
				}
			}
			retry.Reset(wait)
		case <-recheck.C:
			now, err := ifaces()
			if err != nil || now == seen {
				continue
			}
			seen = now
			log.Debug("the network interfaces changed: mDNS joins its groups again")
			for _, m := range ms {
				leave(m)
			}
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

// listenGroup joins group on the interface the system picks for it.
func listenGroup(group *net.UDPAddr) (net.PacketConn, error) {
	network := "udp4"
	if group.IP.To4() == nil {
		network = "udp6"
	}
	c, err := net.ListenMulticastUDP(network, nil, group)
	if err != nil {
		return nil, fmt.Errorf("mdns: join %v: %w", group, err)
	}
	return c, nil
}

// interfaces describes the machine's interfaces as far as the groups
// joined go: each one's index, name, flags and addresses.
func interfaces() (string, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, ifc := range ifs {
		fmt.Fprintf(&b, "%d %s %v", ifc.Index, ifc.Name, ifc.Flags)
		as, _ := ifc.Addrs()
		for _, a := range as {
			b.WriteString(" " + a.String())
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}

// ServeConn answers the queries that arrive on conn until ctx is done: a
// query from mDNS's port is answered to group (nil: to the sender), any
// other to its sender alone. It announces the records to group first.
func (r *Responder) ServeConn(ctx context.Context, conn net.PacketConn, group net.Addr) {
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()
	if group != nil {
		r.mu.Lock()
		if r.groups == nil {
			r.groups = map[net.PacketConn]net.Addr{}
		}
		r.groups[conn] = group
		r.mu.Unlock()
		defer func() {
			r.mu.Lock()
			delete(r.groups, conn)
			r.mu.Unlock()
		}()
		if b, ok := r.announcement(); ok {
			conn.WriteTo(b, group)
		}
	}
	buf := make([]byte, 9000)
	for {
		n, from, err := conn.ReadFrom(buf)
		if err != nil {
			return
		}
		var q dnsmessage.Message
		if q.Unpack(buf[:n]) != nil || q.Response || q.OpCode != 0 {
			continue
		}
		legacy := true
		if ua, ok := from.(*net.UDPAddr); ok && ua.Port == Port {
			legacy = false
		}
		resp, ok := r.answer(q, legacy)
		if !ok {
			continue
		}
		b, err := resp.Pack()
		if err != nil {
			r.logger().Warn("mDNS answer not packed", "err", err)
			continue
		}
		to := from
		if !legacy && group != nil && !unicastAsked(q) {
			to = group
		}
		conn.WriteTo(b, to)
	}
}

// unicastAsked reports whether every question asked for a unicast reply
// (the top bit of its class).
func unicastAsked(q dnsmessage.Message) bool {
	for _, qu := range q.Questions {
		if qu.Class&0x8000 == 0 {
			return false
		}
	}
	return len(q.Questions) > 0
}

// announcement is every record, unasked: sent when the responder starts,
// so that browsers see the box at once.
func (r *Responder) announcement() ([]byte, bool) {
	q := dnsmessage.Message{Questions: []dnsmessage.Question{{Name: dnsmessage.MustNewName(r.hostName()), Type: dnsmessage.TypeALL, Class: dnsmessage.ClassINET}}}
	for _, s := range r.services() {
		q.Questions = append(q.Questions, dnsmessage.Question{Name: dnsmessage.MustNewName(s.typeName()), Type: dnsmessage.TypePTR, Class: dnsmessage.ClassINET})
	}
	resp, ok := r.answer(q, false)
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
