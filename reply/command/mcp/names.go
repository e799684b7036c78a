package mcp

import (
	"fmt"

	"github.com/harkbox/hark/reply/command"
)

// assign names every connected server's tools and puts what changed in the
// catalogue in one step. Servers are taken in configuration order: a tool
// keeps its own name unless a built-in command or an earlier server's
// tool holds it, and then takes its server's name in front. So the names
// follow from the configuration and the tools of the servers that are up,
// never from which server answered first.
func (h *Hub) assign() error {
	h.names.Lock()
	defer h.names.Unlock()
	ours := map[string]bool{}
	for _, l := range h.links {
		l.mu.Lock()
		for n := range l.cmds {
			ours[n] = true
		}
		l.mu.Unlock()
	}
	claimed := map[string]bool{}
	taken := func(n string) bool {
		if claimed[n] {
			return true
		}
		_, ok := h.o.Catalogue.Lookup(n)
		return ok && !ours[n]
	}
	type plan struct {
		l     *link
		cmds  map[string]built
		tools []Tool
	}
	var plans []plan
	var remove []string
	var add []*command.Command
	for _, l := range h.links {
		l.mu.Lock()
		remote, about, had := l.remote, l.about, l.cmds
		l.mu.Unlock()
		p := plan{l: l, cmds: map[string]built{}}
		for _, t := range remote {
			name := uniqueName(taken, l.s.Name, t.Name)
			b, ok := had[name]
			if !ok || b.from != t || b.cmd.About != about {
				c, err := convert(l, t, name, about)
				if err != nil {
					l.log.Warn("mcp tool left out", "tool", t.Name, "err", err)
					continue
				}
				b = built{from: t, cmd: c}
			}
			claimed[name] = true
			p.cmds[name] = b
			p.tools = append(p.tools, Tool{Name: name, Remote: t.Name, Confirm: needsConfirm(l.s, t)})
		}
		for n, old := range had {
			if b, ok := p.cmds[n]; !ok || b.cmd != old.cmd {
				remove = append(remove, n)
			}
		}
		for _, t := range p.tools { // in the server's order
			if b, old := p.cmds[t.Name], had[t.Name]; old.cmd != b.cmd {
				add = append(add, b.cmd)
			}
		}
		plans = append(plans, p)
	}
	if err := h.o.Catalogue.Replace(remove, add...); err != nil {
		return fmt.Errorf("mcp: register tools: %w", err)
	}
	for _, p := range plans {
		p.l.mu.Lock()
		p.l.cmds, p.l.tools = p.cmds, p.tools
		p.l.mu.Unlock()
	}
	return nil
}
