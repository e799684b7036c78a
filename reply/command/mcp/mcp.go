// Package mcp brings the tools of Model Context Protocol servers into the
// command catalogue. Each configured server is reached over stdio (a
// command line Hark starts) or streamable HTTP (a URL, with a bearer token
// from the secrets store); its tools are registered as commands, so the
// router, planner, tool search and allow-lists see them as they see the
// built-ins. A server that dies leaves the catalogue and is restarted with
// backoff; its tools join again when it answers.
package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harkbox/hark/reply/command"
)

// Server is one MCP server from the configuration: Command (stdio) or URL
// (streamable HTTP), not both.
type Server struct {
	Name string
	// Command is the program and its arguments, for a stdio server.
	Command []string
	// Env are a stdio server's variables beyond the few every server gets
	// (PATH, HOME, the locale): KEY=VALUE sets one, a bare KEY passes the
	// daemon's own value on. Nothing else of the daemon's environment
	// reaches the server.
	Env []string
	// URL is a streamable HTTP server's endpoint.
	URL string
	// TokenSecret names the secret whose value is sent as a bearer token;
	// empty for none.
	TokenSecret string
	// Allow, when not empty, lists the only tools taken; Deny lists tools
	// left out. A tool is named by the server's name for it ("get-sum") or
	// the command's ("get_sum"); a name that matches none of the server's
	// tools is warned about.
	Allow, Deny []string
	// Confirm lists tools, by either name, that ask the user before they
	// run, besides those the server marks destructive; "*" is every tool.
	Confirm []string
	// Timeout bounds one tool call; default 15 s.
	Timeout time.Duration
}

// Transport is how the server is reached: "stdio" or "http".
func (s Server) Transport() string {
	if len(s.Command) > 0 {
		return "stdio"
	}
	return "http"
}

// Check reports what is wrong with the server's configuration, or nil.
func (s Server) Check() error {
	switch {
	case !nameRE.MatchString(s.Name):
		return fmt.Errorf("mcp: server name %q must be a short lower-case word (letters, digits, _ or -)", s.Name)
	case len(s.Command) > 0 && s.URL != "":
		return fmt.Errorf("mcp: server %s has both a command and a url: it is one or the other", s.Name)
	case len(s.Command) == 0 && s.URL == "":
		return fmt.Errorf("mcp: server %s has neither a command (stdio) nor a url (streamable HTTP)", s.Name)
	case s.URL != "" && !strings.HasPrefix(s.URL, "http://") && !strings.HasPrefix(s.URL, "https://"):
		return fmt.Errorf("mcp: server %s: url %q is not http:// or https://", s.Name, s.URL)
	case s.TokenSecret != "" && s.URL == "":
		return fmt.Errorf("mcp: server %s: a token is for a url server; a stdio server takes env", s.Name)
	case s.Timeout < 0:
		return fmt.Errorf("mcp: server %s: timeout %v is negative", s.Name, s.Timeout)
	}
	return nil
}

// Catalogue is where tools are registered as commands; *command.Registry
// is one.
type Catalogue interface {
	// Replace removes the named commands and adds cmds in one step.
	Replace(remove []string, cmds ...*command.Command) error
	Lookup(name string) (*command.Command, bool)
}

// Options configure a Hub.
type Options struct {
	Servers   []Server
	Catalogue Catalogue
	// Secrets hold the HTTP servers' bearer tokens.
	Secrets command.Secrets
	// MinBackoff and MaxBackoff bound the wait before a dead server is
	// started again, doubling from one to the other; default 1 s and 5 min.
	MinBackoff, MaxBackoff time.Duration
	// PingEvery is how often a connected server is asked whether it is
	// alive; default 30 s.
	PingEvery time.Duration
	// ConnectTimeout bounds starting a server and the protocol's
	// handshake; default 20 s.
	ConnectTimeout time.Duration
	// MaxChars caps the text of one result the model reads; default 3,000.
	MaxChars int
	// StatePath is a small file in the data directory where the hub
	// remembers which servers were down when last tried, so Ready does not
	// wait for them; "" remembers nothing between runs.
	StatePath string
	Log       *slog.Logger
}

// Hub keeps the configured servers connected and their tools in the
// catalogue.
type Hub struct {
	o     Options
	log   *slog.Logger
	links []*link
	memo  *memo
	// names guards registration, so two servers never take one name.
	names sync.Mutex

	start sync.Once
	runs  sync.WaitGroup
}

// New checks the servers and returns a hub; nothing starts before Start.
func New(o Options) (*Hub, error) {
	if o.Catalogue == nil {
		return nil, errors.New("mcp: no catalogue to register tools in")
	}
	setDefault(&o.MinBackoff, time.Second)
	setDefault(&o.MaxBackoff, 5*time.Minute)
	setDefault(&o.PingEvery, 30*time.Second)
	setDefault(&o.ConnectTimeout, 20*time.Second)
	if o.MaxChars <= 0 {
		o.MaxChars = 3000
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	h := &Hub{o: o, log: o.Log.With("pkg", "mcp")}
	h.memo = loadMemo(o.StatePath, h.log)
	seen := map[string]bool{}
	for _, s := range o.Servers {
		if err := s.Check(); err != nil {
			return nil, err
		}
		if seen[s.Name] {
			return nil, fmt.Errorf("mcp: two servers are called %s", s.Name)
		}
		seen[s.Name] = true
		setDefault(&s.Timeout, 15*time.Second)
		l := newLink(h, s)
		if h.memo.wasDown(s.Name) {
			l.state, l.err = "down", errors.New("it did not answer when last tried; trying again")
		}
		h.links = append(h.links, l)
	}
	return h, nil
}

func setDefault(d *time.Duration, v time.Duration) {
	if *d <= 0 {
		*d = v
	}
}

// Start connects every server in the background and keeps them connected
// until ctx is done, then closes them; later calls do nothing.
func (h *Hub) Start(ctx context.Context) {
	h.start.Do(func() {
		for _, l := range h.links {
			h.runs.Go(func() { l.run(ctx) })
		}
	})
}

// Wait returns when every server started has been closed, after the
// context given to Start is done.
func (h *Hub) Wait() { h.runs.Wait() }

// Ready waits until every server has been tried once (connected or
// failed), or ctx is done. Servers that were down when last tried (in
// this run or, with StatePath, the last) are not waited for: a one-shot
// command does not pay for a server that is known not to answer.
func (h *Hub) Ready(ctx context.Context) error {
	for _, l := range h.links {
		if h.memo.wasDown(l.s.Name) {
			continue
		}
		select {
		case <-l.tried:
		case <-ctx.Done():
			// Those still silent count as down until they answer: the
			// next one-shot command does not wait for them either.
			for _, l := range h.links {
				select {
				case <-l.tried:
				default:
					h.memo.note(l.s.Name, false)
				}
			}
			return ctx.Err()
		}
	}
	return nil
}

// Status is a server's state as `hark mcp list` shows it.
type Status struct {
	Name      string
	Transport string // stdio or http
	// State is "not started", "connecting", "up", "down" (waiting to
	// start again) or "stopped".
	State string
	// Error is why the server is down; "" when it is not.
	Error string
	// Tools are the tools in the catalogue, by the names the model sees.
	Tools []Tool
	// Restarts counts the times the server was started again.
	Restarts int
	// Warnings are problems of the configuration the server's tools
	// revealed: allow, deny or confirm names that match none of them.
	Warnings []string
	// Since is when the server reached its state.
	Since time.Time
}

// Tool is one of a server's tools in the catalogue.
type Tool struct {
	Name   string // the command's name
	Remote string // the name the server gives it
	// Confirm is set when the tool asks the user before it runs.
	Confirm bool
}

// Servers returns every server's state, in configuration order.
func (h *Hub) Servers() []Status {
	var out []Status
	for _, l := range h.links {
		out = append(out, l.status())
	}
	return out
}

// Len is the number of servers configured.
func (h *Hub) Len() int { return len(h.links) }

// mentions reports whether list names the tool, by the server's name or
// the command's.
func mentions(list []string, remote string) bool {
	return slices.Contains(list, remote) || slices.Contains(list, snake(remote))
}

// allowed reports whether the server's tool remote is taken.
func (s Server) allowed(remote string) bool {
	if mentions(s.Deny, remote) {
		return false
	}
	return len(s.Allow) == 0 || mentions(s.Allow, remote)
}

// unknown lists the names in the server's allow, deny and confirm lists
// that match none of its tools.
func (s Server) unknown(tools []*sdk.Tool) []string {
	var out []string
	for key, list := range map[string][]string{"allow": s.Allow, "deny": s.Deny, "confirm": s.Confirm} {
		for _, n := range list {
			if n == "*" && key == "confirm" || slices.ContainsFunc(tools, func(t *sdk.Tool) bool { return t.Name == n || snake(t.Name) == n }) {
				continue
			}
			out = append(out, fmt.Sprintf("%s names %q, which is not one of the server's tools", key, n))
		}
	}
	slices.Sort(out)
	return out
}
