package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/harkbox/hark/reply/command"
)

// cmdCommands lists the commands with their parameters and whether their
// secrets are set, or runs one's first-time setup.
func cmdCommands(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("commands", e, g)
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: hark commands            list the commands\n       hark commands setup NAME  run a command's first-time setup")
	}
	if err := parse(fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) != 0 && !(len(rest) == 2 && rest[0] == "setup") {
		fs.Usage()
		return errUsage
	}
	a, err := openOneShot(e, g)
	if err != nil {
		return err
	}
	defer a.close()
	if len(rest) == 2 {
		c, ok := a.commands.Lookup(rest[1])
		if !ok {
			return fmt.Errorf("no command called %q (hark commands lists them)", rest[1])
		}
		if c.Setup == nil {
			fmt.Fprintf(e.stdout, "%s needs no setup\n", c.Name)
			return nil
		}
		return c.Setup(ctx, &terminalIO{in: bufio.NewReader(e.stdin), out: e.stdout})
	}
	secrets := a.db.Secrets(a.cfg.Commands.SecretsKey)
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "COMMAND\tPARAMETERS\tSECRETS\tSETUP")
	for _, c := range a.commands.Commands() {
		var params []string
		for _, p := range c.Parameters {
			s := p.Name + ":" + p.Type
			if p.Required {
				s += "*"
			}
			params = append(params, s)
		}
		var secs []string
		for _, s := range c.Secrets {
			v, err := secrets.Get(ctx, s.Key)
			state := "set"
			switch {
			case err != nil:
				state = "unreadable"
			case v == "" && s.Required:
				state = "MISSING"
			case v == "":
				state = "not set"
			}
			secs = append(secs, s.Key+" ("+state+")")
		}
		setup := ""
		if c.Setup != nil {
			setup = "hark commands setup " + c.Name
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", c.Name, dash(strings.Join(params, " ")), dash(strings.Join(secs, ", ")), setup)
	}
	fmt.Fprintln(w, "\n* required")
	return w.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// terminalIO is a setup's conversation on the terminal.
type terminalIO struct {
	in  *bufio.Reader
	out io.Writer
}

var _ command.SetupIO = (*terminalIO)(nil)

func (t *terminalIO) Ask(q string) (string, error) {
	fmt.Fprint(t.out, q+" ")
	line, err := t.in.ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("setup: no answer: %w", err)
	}
	return strings.TrimSpace(line), nil
}

func (t *terminalIO) Say(line string) { fmt.Fprintln(t.out, line) }
