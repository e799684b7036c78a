package listener

import (
	"context"
	"net"
	"sync"
)

// Pipe is a listener of in-memory connections (net.Pipe): a server in the
// same process serves it, and its client's transport dials it with
// DialContext. Nothing blocks on the network, so a test in a
// testing/synctest bubble can serve HTTP over it.
type Pipe struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// NewPipe returns a Pipe whose Addr is addr, or "in process" when addr is
// nil.
func NewPipe(addr net.Addr) *Pipe {
	if addr == nil {
		addr = pipeAddr{}
	}
	return &Pipe{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// DialContext hands the server the far end of a new pipe and returns the
// near one; it waits until the server accepts it, the listener is closed
// (net.ErrClosed) or ctx is done. Network and address are ignored: it has
// the signature of http.Transport's DialContext.
func (p *Pipe) DialContext(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case p.conns <- server:
		return client, nil
	case <-p.done:
	case <-ctx.Done():
		client.Close()
		server.Close()
		return nil, ctx.Err()
	}
	client.Close()
	server.Close()
	return nil, net.ErrClosed
}

// Accept waits for the next DialContext, or the listener's Close.
func (p *Pipe) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.done:
		return nil, net.ErrClosed
	}
}

// Close ends Accept and DialContext; connections already made stay open.
func (p *Pipe) Close() error {
	p.once.Do(func() { close(p.done) })
	return nil
}

// Addr is the address NewPipe was given.
func (p *Pipe) Addr() net.Addr { return p.addr }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "in process" }

var _ net.Listener = (*Pipe)(nil)
