package listener

import (
	"context"
	"net"
	"sync"
)

// Pipe is a listener of in-memory connections: each DialContext makes a
// net.Pipe and hands Accept its far end. A server on it answers in the
// same process without a socket (the control client when no daemon runs;
// tests inside a synctest bubble, where a socket's reads would not count
// as blocked). It is safe for concurrent use.
type Pipe struct {
	addr  net.Addr
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// NewPipe returns a Pipe whose Addr is addr; nil is "in process".
func NewPipe(addr net.Addr) *Pipe {
	if addr == nil {
		addr = pipeAddr{}
	}
	return &Pipe{addr: addr, conns: make(chan net.Conn), done: make(chan struct{})}
}

// DialContext connects to the listener, blocking until Accept takes the
// connection, the listener is closed (net.ErrClosed) or ctx is done. Its
// signature is http.Transport.DialContext's; network and address are not
// used.
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

// Accept waits for the next DialContext; after Close it returns
// net.ErrClosed.
func (p *Pipe) Accept() (net.Conn, error) {
	select {
	case c := <-p.conns:
		return c, nil
	case <-p.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and DialContext; connections made before stay open.
func (p *Pipe) Close() error {
	p.once.Do(func() { close(p.done) })
	return nil
}

// Addr is the address NewPipe was given.
func (p *Pipe) Addr() net.Addr { return p.addr }

var _ net.Listener = (*Pipe)(nil)

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "in process" }
