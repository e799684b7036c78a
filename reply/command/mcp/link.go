package mcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// link is one server's connection, kept up by run.
type link struct {
	h   *Hub
	s   Server
	log *slog.Logger

	tried     chan struct{} // closed when the first try is over
	triedOnce sync.Once
	changed   chan struct{} // the server's tool list changed
	broken    chan struct{} // a call found the connection dead

	mu       sync.Mutex
	state    string
	err      error
	since    time.Time
	tools    []Tool
	session  *sdk.ClientSession
	restarts int
}

func newLink(h *Hub, s Server) *link {
	return &link{h: h, s: s, log: h.log.With("server", s.Name), state: "not started",
		tried: make(chan struct{}), changed: make(chan struct{}, 1), broken: make(chan struct{}, 1)}
}

func (l *link) set(state string, err error) {
	l.mu.Lock()
	l.state, l.err, l.since = state, err, time.Now()
	l.mu.Unlock()
}

func (l *link) status() Status {
	l.mu.Lock()
	defer l.mu.Unlock()
	st := Status{Name: l.s.Name, Transport: l.s.Transport(), State: l.state, Tools: append([]Tool(nil), l.tools...),
		Restarts: l.restarts, Since: l.since}
	if l.err != nil {
		st.Error = l.err.Error()
	}
	return st
}

// run keeps the server connected until ctx is done: connect, register the
// tools, serve until the connection ends, take the tools out, wait, again.
func (l *link) run(ctx context.Context) {
	defer l.triedOnce.Do(func() { close(l.tried) })
	backoff := l.h.o.MinBackoff
	for {
		l.set("connecting", nil)
		cs, err := l.connect(ctx)
		if err == nil {
			if err = l.refresh(ctx, cs); err != nil {
				cs.Close()
			}
		}
		if err == nil {
			l.set("up", nil)
			l.triedOnce.Do(func() { close(l.tried) })
			l.log.Info("mcp server up", "tools", len(l.status().Tools))
			up := time.Now()
			err = l.serve(ctx, cs)
			if ctx.Err() == nil {
				l.set("down", err) // before its tools leave: no "up" without tools
			}
			l.drop(cs)
			if time.Since(up) > time.Minute {
				backoff = l.h.o.MinBackoff // it had been well for a while
			}
		}
		if ctx.Err() != nil {
			l.set("stopped", nil)
			return
		}
		l.set("down", err)
		l.triedOnce.Do(func() { close(l.tried) })
		l.log.Warn("mcp server down; starting it again later", "in", backoff, "err", err)
		select {
		case <-ctx.Done():
			l.set("stopped", nil)
			return
		case <-time.After(backoff):
		}
		l.mu.Lock()
		l.restarts++
		l.mu.Unlock()
		backoff = min(2*backoff, l.h.o.MaxBackoff)
	}
}

// connect starts or reaches the server and does the protocol's handshake.
func (l *link) connect(ctx context.Context) (*sdk.ClientSession, error) {
	var t sdk.Transport
	if len(l.s.Command) > 0 {
		cmd := exec.Command(l.s.Command[0], l.s.Command[1:]...)
		cmd.Env = append(os.Environ(), l.s.Env...)
		cmd.Stderr = &lineLog{log: l.log}
		t = &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}
	} else {
		hc := &http.Client{}
		if l.s.TokenSecret != "" {
			token, err := l.token(ctx)
			if err != nil {
				return nil, err
			}
			hc.Transport = bearer{token: token, next: http.DefaultTransport}
		}
		t = &sdk.StreamableClientTransport{Endpoint: l.s.URL, HTTPClient: hc, MaxRetries: -1}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "hark", Version: "1"}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{}, // no roots, sampling or elicitation
		ToolListChangedHandler: func(context.Context, *sdk.ToolListChangedRequest) {
			select {
			case l.changed <- struct{}{}:
			default:
			}
		},
	})
	cctx, cancel := context.WithTimeout(ctx, l.h.o.ConnectTimeout)
	defer cancel()
	cs, err := c.Connect(cctx, t, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp: %s: connect: %w", l.s.Name, err)
	}
	return cs, nil
}

func (l *link) token(ctx context.Context) (string, error) {
	if l.h.o.Secrets == nil {
		return "", fmt.Errorf("mcp: %s: no secrets store for the token %s", l.s.Name, l.s.TokenSecret)
	}
	v, err := l.h.o.Secrets.Get(ctx, l.s.TokenSecret)
	switch {
	case err != nil:
		return "", fmt.Errorf("mcp: %s: read token: %w", l.s.Name, err)
	case v == "":
		return "", fmt.Errorf("mcp: %s: the token is not set: hark secrets set %s", l.s.Name, l.s.TokenSecret)
	}
	return v, nil
}

// bearer adds the server's token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// serve waits until the connection ends: the session closes, a ping or a
// call finds it dead, or ctx is done. A changed tool list is read again.
func (l *link) serve(ctx context.Context, cs *sdk.ClientSession) error {
	ended := make(chan error, 1)
	go func() { ended <- cs.Wait() }()
	tick := time.NewTicker(l.h.o.PingEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-ended:
			if err == nil {
				err = errors.New("the server closed the connection")
			}
			return fmt.Errorf("mcp: %s: %w", l.s.Name, err)
		case <-l.broken:
			return fmt.Errorf("mcp: %s: a call found the server gone", l.s.Name)
		case <-l.changed:
			if err := l.refresh(ctx, cs); err != nil {
				return err
			}
		case <-tick.C:
			pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			err := cs.Ping(pctx, nil)
			cancel()
			if err != nil && ctx.Err() == nil {
				return fmt.Errorf("mcp: %s: no answer to a ping: %w", l.s.Name, err)
			}
		}
	}
}

// refresh reads the server's tools and puts the allowed ones in the
// catalogue in place of those it had.
func (l *link) refresh(ctx context.Context, cs *sdk.ClientSession) error {
	lctx, cancel := context.WithTimeout(ctx, l.h.o.ConnectTimeout)
	defer cancel()
	var remote []*sdk.Tool
	for t, err := range cs.Tools(lctx, nil) {
		if err != nil {
			return fmt.Errorf("mcp: %s: list tools: %w", l.s.Name, err)
		}
		if t != nil && l.s.allowed(t.Name) {
			remote = append(remote, t)
		}
	}
	h := l.h
	h.names.Lock()
	defer h.names.Unlock()
	l.mu.Lock()
	var old []string
	for _, t := range l.tools {
		old = append(old, t.Name)
	}
	l.mu.Unlock()
	var cmds []*command.Command
	var tools []Tool
	reg := &pending{Catalogue: h.o.Catalogue, freeing: old}
	for _, t := range remote {
		name := uniqueName(reg, l.s.Name, t.Name)
		c, err := convert(l, t, name)
		if err != nil {
			l.log.Warn("mcp tool left out", "tool", t.Name, "err", err)
			continue
		}
		reg.adding = append(reg.adding, name)
		cmds = append(cmds, c)
		tools = append(tools, Tool{Name: name, Remote: t.Name})
	}
	if err := h.o.Catalogue.Replace(old, cmds...); err != nil {
		return fmt.Errorf("mcp: %s: register tools: %w", l.s.Name, err)
	}
	l.mu.Lock()
	l.tools, l.session = tools, cs
	l.mu.Unlock()
	return nil
}

// pending is the catalogue as it will be: the server's old names free,
// the names about to be registered taken.
type pending struct {
	Catalogue
	adding, freeing []string
}

func (p *pending) Lookup(n string) (*command.Command, bool) {
	if slices.Contains(p.adding, n) {
		return nil, true
	}
	if slices.Contains(p.freeing, n) {
		return nil, false
	}
	return p.Catalogue.Lookup(n)
}

// drop takes the server's tools out of the catalogue and closes cs.
func (l *link) drop(cs *sdk.ClientSession) {
	l.h.names.Lock()
	l.unregister()
	l.h.names.Unlock()
	cs.Close()
}

// unregister takes the tools out; the caller holds h.names.
func (l *link) unregister() {
	l.mu.Lock()
	var names []string
	for _, t := range l.tools {
		names = append(names, t.Name)
	}
	l.tools, l.session = nil, nil
	l.mu.Unlock()
	l.h.o.Catalogue.Replace(names) // removing alone cannot fail
}

// call runs the server's tool remote, named name in the catalogue.
func (l *link) call(ctx context.Context, remote, name string, args map[string]any) command.Response {
	l.mu.Lock()
	cs := l.session
	l.mu.Unlock()
	what := spokenName(name)
	say := locale.Speaking(ctx)
	if cs == nil {
		return command.Response{Kind: command.Failure, Spoken: say.T("The %s tool isn't connected right now.", what),
			Data: map[string]any{"error": "mcp server " + l.s.Name + " is down"}}
	}
	cctx, cancel := context.WithTimeout(ctx, l.s.Timeout)
	defer cancel()
	began := time.Now()
	res, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: remote, Arguments: args})
	l.log.Debug("mcp call", "tool", remote, "ms", time.Since(began).Milliseconds(), "err", err)
	switch {
	case err != nil && ctx.Err() != nil:
		return command.Response{Kind: command.Failure, Spoken: say.T("Stopped."), Data: map[string]any{"error": ctx.Err().Error()}}
	case err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		l.log.Warn("mcp call timed out", "tool", remote, "timeout", l.s.Timeout)
		return command.Response{Kind: command.Failure, Spoken: say.T("The %s tool took too long to answer.", what),
			Data: map[string]any{"error": fmt.Sprintf("no answer within %v", l.s.Timeout)}}
	case err != nil:
		l.log.Warn("mcp call failed", "tool", remote, "err", err)
		go l.check(cs)
		return command.Response{Kind: command.Failure, Spoken: say.T("The %s tool gave an answer I can't use.", what),
			Data: map[string]any{"error": err.Error()}}
	case res.IsError:
		return command.Response{Kind: command.Failure, Spoken: say.T("The %s tool reported a problem.", what),
			Data: map[string]any{"error": command.Fence("the "+l.s.Name+" server", text(res), l.h.o.MaxChars)}}
	}
	out := text(res)
	if out == "" {
		out = "(done; the tool returned nothing)"
	}
	return command.Response{Data: map[string]any{"result": command.Fence("the "+l.s.Name+" server", out, l.h.o.MaxChars)}}
}

// check pings a server after a failed call and, when it does not answer,
// has run start it again.
func (l *link) check(cs *sdk.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if cs.Ping(ctx, nil) != nil {
		select {
		case l.broken <- struct{}{}:
		default:
		}
	}
}

func spokenName(name string) string { return strings.ReplaceAll(name, "_", " ") }

// lineLog logs a stdio server's standard error, line by line.
type lineLog struct {
	log *slog.Logger
	buf []byte
}

func (w *lineLog) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.log.Debug("mcp server says", "line", string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 64<<10 { // a line that never ends
		w.log.Debug("mcp server says", "line", string(w.buf))
		w.buf = w.buf[:0]
	}
	return len(p), nil
}
