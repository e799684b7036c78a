// Package netfault is a TCP proxy for tests that fails as a household's
// network does: it refuses connections, blackholes them (nothing gets
// through, nothing is refused), stalls the answers while requests still
// flow, or resets every connection. Tests put it between a node and its
// center, or the box and its model server. Only tests import it.
package netfault

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// Mode is how the proxy treats traffic.
type Mode int

// The modes.
const (
	// Pass forwards both ways.
	Pass Mode = iota
	// Refuse closes the listening socket: new connections are refused.
	Refuse
	// Blackhole forwards nothing either way and closes nothing: what was
	// sent waits in the sockets' buffers until Pass.
	Blackhole
	// Stall forwards requests but no answers.
	Stall
)

// Proxy forwards connections on Addr to a target.
type Proxy struct {
	Addr   string
	target string

	mu      sync.Mutex
	mode    Mode
	changed chan struct{}
	ln      net.Listener
	conns   map[net.Conn]bool
	closed  bool
	// Accepted counts the connections accepted.
	accepted int
}

// New starts a proxy to target on a local port, stopped when the test
// ends.
func New(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{Addr: ln.Addr().String(), target: target, ln: ln, changed: make(chan struct{}), conns: map[net.Conn]bool{}}
	go p.accept(ln)
	t.Cleanup(p.close)
	return p
}

// Set changes the mode for new and open connections alike.
func (p *Proxy) Set(m Mode) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case m == Refuse && p.ln != nil:
		p.ln.Close()
		p.ln = nil
	case m != Refuse && p.ln == nil && !p.closed:
		if ln, err := net.Listen("tcp", p.Addr); err == nil {
			p.ln = ln
			go p.accept(ln)
		}
	}
	p.mode = m
	close(p.changed)
	p.changed = make(chan struct{})
}

// Reset ends every open connection with a TCP reset, as a router that
// dropped its state does.
func (p *Proxy) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetLinger(0)
		}
		c.Close()
	}
}

// Accepted is how many connections the proxy accepted.
func (p *Proxy) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// Open is how many connections the proxy holds now, either side's.
func (p *Proxy) Open() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.conns)
}

func (p *Proxy) close() {
	p.mu.Lock()
	p.closed = true
	if p.ln != nil {
		p.ln.Close()
	}
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
}

func (p *Proxy) accept(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.accepted++
		p.conns[c] = true
		p.mu.Unlock()
		go p.serve(c)
	}
}

// serve forwards one connection. While traffic may not flow, what the
// client sends is held, as a network holds what it has not delivered: a
// client that then closes (FIN) has it delivered when the network comes
// back, one that resets has it dropped, as TCP does. The upstream
// connection is made only once traffic flows.
func (p *Proxy) serve(c net.Conn) {
	defer p.forget(c)
	requests := func(m Mode) bool { return m == Pass || m == Stall }
	held, eof, ok := p.hold(c, nil, false, requests)
	if !ok {
		reset(c)
		return
	}
	up, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[up] = true
	p.mu.Unlock()
	defer p.forget(up)
	done := make(chan struct{}, 2)
	go func() { p.copy(up, c, held, eof, requests); done <- struct{}{} }()
	go func() { p.copy(c, up, nil, false, func(m Mode) bool { return m == Pass }); done <- struct{}{} }()
	<-done
	<-done
	c.Close()
	up.Close()
}

func (p *Proxy) forget(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
}

// reset closes c with a TCP reset.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetLinger(0)
	}
	c.Close()
}

// hold reads src into held until flows(mode); it reports whether src
// ended with a FIN (eof), and false when src was reset (what was held is
// dropped) or the proxy closed.
func (p *Proxy) hold(src net.Conn, held []byte, eof bool, flows func(Mode) bool) (_ []byte, _, ok bool) {
	buf := make([]byte, 32<<10)
	for {
		p.mu.Lock()
		m, closed := p.mode, p.closed
		p.mu.Unlock()
		switch {
		case closed:
			return nil, false, false
		case flows(m):
			return held, eof, true
		case eof:
			time.Sleep(10 * time.Millisecond)
		default:
			if held, eof, ok = read(src, held, buf); !ok {
				return nil, false, false // reset: nothing held survives
			}
		}
	}
}

// read appends what src sends within a short slice of time (so that a
// change of mode takes effect between reads) to held; eof on a FIN, !ok
// on a reset.
func read(src net.Conn, held, buf []byte) (_ []byte, eof, ok bool) {
	src.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	n, err := src.Read(buf)
	held = append(held, buf[:n]...)
	var ne net.Error
	switch {
	case err == nil, errors.As(err, &ne) && ne.Timeout():
		return held, false, true
	case errors.Is(err, io.EOF):
		return held, true, true
	}
	return nil, false, false
}

// copy forwards from src to dst (held first) while flows(mode) holds,
// holding what comes meanwhile.
func (p *Proxy) copy(dst, src net.Conn, held []byte, eof bool, flows func(Mode) bool) {
	buf := make([]byte, 32<<10)
	for {
		var ok bool
		if held, eof, ok = p.hold(src, held, eof, flows); !ok {
			reset(dst)
			return
		}
		if len(held) > 0 {
			if _, err := dst.Write(held); err != nil {
				return
			}
			held = held[:0]
		}
		if eof {
			if tc, ok := dst.(*net.TCPConn); ok {
				tc.CloseWrite()
			}
			return
		}
		if held, eof, ok = read(src, held, buf); !ok {
			reset(dst)
			return
		}
	}
}

// SilentResolver is a resolver whose server (a UDP socket on this
// machine) never answers: the household's DNS gone quiet.
func SilentResolver(t testing.TB) *net.Resolver {
	t.Helper()
	dns, err := net.ListenPacket("udp", "127.0.0.1:0") // reads nothing, answers nothing
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dns.Close() })
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "udp", dns.LocalAddr().String())
	}}
}
