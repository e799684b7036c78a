package listener

import (
	"context"
	"net"
	"sync"
)

// Pipe is a listener of in-memory connections (net.Pipe): each DialContext
// hands Accept the far end of a new pipe. A server on it runs in process
// without a socket, and in a synctest bubble, where a goroutine waiting on
// a real socket is not durably blocked.
type Pipe struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
	addr  net.Addr
}

// NewPipe returns a Pipe whose Addr is addr (nil: "pipe", "in process").
func NewPipe(addr net.Addr) *Pipe {
	if addr == nil {
		addr = pipeAddr{}
	}
	return &Pipe{conns: make(chan net.Conn), done: make(chan struct{}), addr: addr}
}

// DialContext connects to the listener, as an http.Transport's
// DialContext does; the network and address are ignored. It fails with
// net.ErrClosed once the listener is closed.
func (p *Pipe) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case p.conns <- server:
		return client, nil
	case <-p.done:
		return nil, net.ErrClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Accept waits for a DialContext.
func (p *Pipe) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and DialContext; connections already made stay open.
func (p *Pipe) Close() error {
	p.once.Do(func() { close(p.done) })
	return nil
}

// Addr is the address NewPipe was given.
func (p *Pipe) Addr() net.Addr { return p.addr }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "in process" }
