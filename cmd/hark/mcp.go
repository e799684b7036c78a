package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/harkbox/hark/device/control"
)

// mcpFirstTry bounds the wait for the MCP servers' first connection before
// a one-shot command answers: a server that starts slower joins later, and
// one that was down last time is not waited for.
const mcpFirstTry = 1200 * time.Millisecond

// startMCP starts the MCP servers once, until the app closes, and waits up
// to wait for each to be tried.
func (a *app) startMCP(ctx context.Context, wait time.Duration) {
	if a.mcp.Len() == 0 {
		return
	}
	a.mcpOnce.Do(func() {
		var mctx context.Context
		mctx, a.mcpStop = context.WithCancel(context.Background())
		a.mcp.Start(mctx)
	})
	if wait > 0 {
		wctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		if a.mcp.Ready(wctx) != nil {
			a.log.Warn("MCP servers still starting; answering without the slow ones", "waited", wait)
		}
	}
}

// mcpAPI is the MCP servers as the API shows them.
type mcpAPI struct{ a *app }

func (m mcpAPI) Servers(ctx context.Context) ([]control.MCPServer, error) {
	m.a.startMCP(ctx, mcpFirstTry)
	var out []control.MCPServer
	for _, s := range m.a.mcp.Servers() {
		tools := []control.MCPTool{}
		for _, t := range s.Tools {
			tools = append(tools, control.MCPTool{Name: t.Name, Remote: t.Remote, Confirm: t.Confirm})
		}
		out = append(out, control.MCPServer{Name: s.Name, Transport: s.Transport, State: s.State, Error: s.Error,
			Tools: tools, Restarts: s.Restarts, Since: s.Since, Warnings: s.Warnings})
	}
	return out, nil
}

// cmdMCP lists the configured MCP servers, their state and their tools.
func cmdMCP(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("mcp", e, g)
	if err := parse(e, fs, args); err != nil {
		return err
	}
	if rest := fs.Args(); len(rest) > 1 || len(rest) == 1 && rest[0] != "list" {
		return usageError(e, fs, "")
	}
	c, done, err := connect(ctx, e, g, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer done()
	servers, err := c.MCPServers(ctx)
	if err != nil {
		return err
	}
	if len(servers) == 0 {
		fmt.Fprintln(e.stdout, "no MCP servers configured: add a [[mcp.server]] table to the configuration (hark config shows where it is)")
		return nil
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "SERVER\tTRANSPORT\tSTATE\tTOOLS")
	for _, s := range servers {
		var tools []string
		for _, t := range s.Tools {
			name := t.Name
			if t.Name != t.Remote {
				name += " (" + t.Remote + ")"
			}
			if t.Confirm {
				name += " [asks first]"
			}
			tools = append(tools, name)
		}
		state := s.State
		if s.Restarts > 0 {
			state += fmt.Sprintf(", restarted %d×", s.Restarts)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", s.Name, s.Transport, state, dash(strings.Join(tools, ", ")))
		if s.Error != "" {
			fmt.Fprintf(w, "\t\terror: %s\t\n", s.Error)
		}
		for _, warn := range s.Warnings {
			fmt.Fprintf(w, "\t\twarning: %s\t\n", warn)
		}
	}
	return w.Flush()
}
