package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"text/tabwriter"
)

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
