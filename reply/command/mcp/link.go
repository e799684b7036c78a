package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harkbox/hark/internal/egress"
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
	restarts int
	session  *sdk.ClientSession
	proc     *proc       // a stdio server's process; nil for HTTP
	remote   []*sdk.Tool // the server's allowed tools, while connected
	about    string      // the server's instructions, clipped
	warnings []string
	// tools and cmds are what the catalogue holds of the server; the hub
	// writes them under h.names.
	tools []Tool
	cmds  map[string]built
}

// built is a command made from one of the server's tools.
type built struct {
	from *sdk.Tool
	cmd  *command.Command
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
		Restarts: l.restarts, Since: l.since, Warnings: append([]string(nil), l.warnings...)}
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
			l.h.memo.note(l.s.Name, true)
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
		l.h.memo.note(l.s.Name, false)
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
	var p *proc
	if len(l.s.Command) > 0 {
		var err error
		if p, err = startProc(l.s, l.log); err != nil {
			return nil, err
		}
		t = p.transport()
	} else {
		// The configured server's host is reached wherever it is; a
		// redirect elsewhere on the box or its network is not.
		var next http.RoundTripper = egress.Policy{}.WithHostsOf(l.s.URL).Transport()
		hc := &http.Client{Transport: next}
		if l.s.TokenSecret != "" {
			token, err := l.token(ctx)
			if err != nil {
				return nil, err
			}
			hc.Transport = bearer{token: token, next: next}
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
		if p != nil {
			p.stop()
			if why := p.why(0); why != "" {
				err = fmt.Errorf("%w (%s)", err, why)
			}
		}
		return nil, fmt.Errorf("mcp: %s: connect: %w", l.s.Name, err)
	}
	l.mu.Lock()
	l.proc = p
	l.about = ""
	if r := cs.InitializeResult(); r != nil {
		l.about = clipSentence(r.Instructions, 300)
	}
	l.mu.Unlock()
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
			return fmt.Errorf("mcp: %s: %w%s", l.s.Name, err, l.why())
		case <-l.broken:
			return fmt.Errorf("mcp: %s: a call found the server gone%s", l.s.Name, l.why())
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

// why is how a stdio server's process ended, in brackets, when it has
// within a moment; "" for an HTTP server or one still running.
func (l *link) why() string {
	l.mu.Lock()
	p := l.proc
	l.mu.Unlock()
	if p == nil {
		return ""
	}
	if w := p.why(500 * time.Millisecond); w != "" {
		return " (" + w + ")"
	}
	return ""
}

// refresh reads the server's tools, keeps the allowed ones and has the
// hub name them and put them in the catalogue.
func (l *link) refresh(ctx context.Context, cs *sdk.ClientSession) error {
	lctx, cancel := context.WithTimeout(ctx, l.h.o.ConnectTimeout)
	defer cancel()
	var all, remote []*sdk.Tool
	for t, err := range cs.Tools(lctx, nil) {
		if err != nil {
			return fmt.Errorf("mcp: %s: list tools: %w", l.s.Name, err)
		}
		if t == nil {
			continue
		}
		all = append(all, t)
		if l.s.allowed(t.Name) {
			remote = append(remote, t)
		}
	}
	warnings := l.s.unknown(all)
	for _, w := range warnings {
		l.log.Warn("mcp: check the server's configuration", "problem", w)
	}
	l.mu.Lock()
	l.remote, l.session, l.warnings = remote, cs, warnings
	l.mu.Unlock()
	if err := l.h.assign(); err != nil {
		l.mu.Lock()
		l.remote, l.session = nil, nil
		l.mu.Unlock()
		return err
	}
	return nil
}

// drop takes the server's tools out of the catalogue and closes cs.
func (l *link) drop(cs *sdk.ClientSession) {
	l.mu.Lock()
	l.remote, l.session = nil, nil
	l.mu.Unlock()
	if err := l.h.assign(); err != nil {
		l.log.Warn("mcp: catalogue not updated", "err", err)
	}
	cs.Close()
	l.mu.Lock()
	l.proc = nil
	l.mu.Unlock()
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
		l.h.runs.Go(func() { l.check(cs) }) // a wedged server is started again
		return command.Response{Kind: command.Failure, Spoken: say.T("The %s tool took too long to answer.", what),
			Data: map[string]any{"error": fmt.Sprintf("no answer within %v", l.s.Timeout)}}
	case err != nil:
		l.log.Warn("mcp call failed", "tool", remote, "err", err)
		l.h.runs.Go(func() { l.check(cs) })
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
