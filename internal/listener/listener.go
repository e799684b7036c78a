// Package listener shapes what a server accepts: Capped bounds the
// connections one address may hold open, and all addresses together (a
// slow or idle flood, from one address or many, costs the box no more), and Split serves TLS and plain HTTP on one port, so a browser
// sent to http:// is told to come back on https://. Pipe serves
// in-memory connections, for an in-process client and for tests.
package listener

import (
	"net"
	"net/netip"
	"sync"
	"time"
)

// Capped returns l accepting at most perAddr connections open at once from
// one address (an IPv6 host's /64 counts as one) and at most total from all
// of them; more are closed at once.
func Capped(l net.Listener, perAddr, total int) net.Listener {
	return &capped{Listener: l, max: perAddr, total: total, open: map[string]int{}}
}

type capped struct {
	net.Listener
	max, total int

	mu   sync.Mutex
	open map[string]int
	all  int
}

func (c *capped) Accept() (net.Conn, error) {
	for {
		conn, err := c.Listener.Accept()
		if err != nil {
			return nil, err
		}
		src := source(conn.RemoteAddr())
		c.mu.Lock()
		ok := c.open[src] < c.max && c.all < c.total
		if ok {
			c.open[src]++
			c.all++
		}
		c.mu.Unlock()
		if ok {
			return &counted{Conn: conn, release: func() { c.release(src) }}, nil
		}
		conn.Close()
	}
}

func (c *capped) release(src string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.all--
	if c.open[src]--; c.open[src] <= 0 {
		delete(c.open, src)
	}
}

type counted struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *counted) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// source is the address connections are counted by.
func source(a net.Addr) string {
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return a.String()
	}
	ip := ap.Addr().Unmap()
	if ip.Is6() {
		p, _ := ip.Prefix(64)
		return p.String()
	}
	return ip.String()
}

// sniffFor bounds the wait for a connection's first byte.
const sniffFor = 10 * time.Second

// Split serves one listener two ways: connections whose first byte starts
// a TLS handshake are accepted from tlsL, the others from plain. A
// connection that sends nothing within ten seconds is closed. Closing
// either closes l.
func Split(l net.Listener) (tlsL, plain net.Listener) {
	s := &split{l: l, tls: make(chan net.Conn), plain: make(chan net.Conn), done: make(chan struct{})}
	go s.run()
	return &half{s: s, c: s.tls}, &half{s: s, c: s.plain}
}

type split struct {
	l           net.Listener
	tls, plain  chan net.Conn
	done        chan struct{}
	once        sync.Once
	errMu       sync.Mutex
	acceptError error
}

func (s *split) run() {
	for {
		conn, err := s.l.Accept()
		if err != nil {
			s.errMu.Lock()
			s.acceptError = err
			s.errMu.Unlock()
			s.close()
			return
		}
		go s.sniff(conn)
	}
}

func (s *split) sniff(conn net.Conn) {
	conn.SetReadDeadline(time.Now().Add(sniffFor))
	b := make([]byte, 1)
	if _, err := conn.Read(b); err != nil {
		conn.Close()
		return
	}
	conn.SetReadDeadline(time.Time{})
	to := s.plain
	if b[0] == 0x16 { // a TLS record of the handshake type
		to = s.tls
	}
	select {
	case to <- &peeked{Conn: conn, first: b}:
	case <-s.done:
		conn.Close()
	}
}

func (s *split) close() error {
	var err error
	s.once.Do(func() {
		close(s.done)
		err = s.l.Close()
	})
	return err
}

type half struct {
	s *split
	c chan net.Conn
}

func (h *half) Accept() (net.Conn, error) {
	select {
	case c := <-h.c:
		return c, nil
	case <-h.s.done:
		h.s.errMu.Lock()
		defer h.s.errMu.Unlock()
		if h.s.acceptError != nil {
			return nil, h.s.acceptError
		}
		return nil, net.ErrClosed
	}
}

func (h *half) Close() error   { return h.s.close() }
func (h *half) Addr() net.Addr { return h.s.l.Addr() }

// peeked gives back the byte the split read.
type peeked struct {
	net.Conn
	first []byte
}

func (p *peeked) Read(b []byte) (int, error) {
	if len(p.first) > 0 {
		n := copy(b, p.first)
		p.first = p.first[n:]
		return n, nil
	}
	return p.Conn.Read(b)
}
