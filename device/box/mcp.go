package box

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/mcp"
)

// mcpServers are the MCP servers whose tools join a catalogue, started once
// on first use and stopped with the box.
type mcpServers struct {
	hub *mcp.Hub
	log *slog.Logger
	// firstTry bounds the wait for the servers' first connection before a
	// one-shot command answers: a server that starts slower joins later,
	// and one that was down last time is not waited for.
	firstTry time.Duration
	once     sync.Once
	cancel   context.CancelFunc
}

// newMCPServers are the servers whose tools join catalogue; statePath keeps
// which were down, so that a one-shot command does not wait for them.
func newMCPServers(servers []mcp.Server, firstTry time.Duration, catalogue mcp.Catalogue, secrets command.Secrets, statePath string, log *slog.Logger) (*mcpServers, error) {
	hub, err := mcp.New(mcp.Options{Servers: servers, Catalogue: catalogue, Secrets: secrets, StatePath: statePath, Log: log})
	if err != nil {
		return nil, err
	}
	return &mcpServers{hub: hub, log: log, firstTry: firstTry}, nil
}

// start starts the servers once, until stop, and, when wait, waits up to
// firstTry for each to be tried.
func (m *mcpServers) start(ctx context.Context, wait bool) {
	if m.hub.Len() == 0 {
		return
	}
	m.once.Do(func() {
		var mctx context.Context
		mctx, m.cancel = context.WithCancel(context.Background())
		m.hub.Start(mctx)
	})
	if wait {
		wctx, cancel := context.WithTimeout(ctx, m.firstTry)
		defer cancel()
		if m.hub.Ready(wctx) != nil {
			m.log.Warn("MCP servers still starting; answering without the slow ones", "waited", m.firstTry)
		}
	}
}

// stop stops the servers, if they were started, and waits for them.
func (m *mcpServers) stop() {
	m.once.Do(func() {}) // none start after this
	if m.cancel != nil {
		m.cancel()
		m.hub.Wait()
	}
}

// mcpResource is the MCP servers as the API shows them.
type mcpResource struct{ servers *mcpServers }

var _ control.MCP = mcpResource{}

func (m mcpResource) Servers(ctx context.Context) ([]control.MCPServer, error) {
	m.servers.start(ctx, true)
	var out []control.MCPServer
	for _, s := range m.servers.hub.Servers() {
		tools := []control.MCPTool{}
		for _, t := range s.Tools {
			tools = append(tools, control.MCPTool{Name: t.Name, Remote: t.Remote, Confirm: t.Confirm})
		}
		out = append(out, control.MCPServer{Name: s.Name, Transport: s.Transport, State: s.State, Error: s.Error,
			Tools: tools, Restarts: s.Restarts, Since: s.Since, Warnings: s.Warnings})
	}
	return out, nil
}
