package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/harkbox/hark/device/control"
	"golang.org/x/term"
)

// cmdCommands lists the commands with their parameters and whether their
// secrets are set, or runs one's first-time setup.
func cmdCommands(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("commands", e, g)
	if err := parse(e, fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) != 0 && !(len(rest) == 2 && rest[0] == "setup") {
		return usageError(e, fs, "")
	}
	c, done, err := connect(ctx, e, g, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer done()
	if len(rest) == 2 {
		tio := &terminalIO{in: bufio.NewReader(e.stdin), out: e.stdout}
		if f, ok := e.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
			tio.hidden = func() ([]byte, error) { return term.ReadPassword(int(f.Fd())) }
		}
		return c.Setup(ctx, rest[1], tio)
	}
	cmds, err := c.Commands(ctx)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "COMMAND\tPARAMETERS\tSECRETS\tSETUP")
	for _, cmd := range cmds {
		var params []string
		for _, p := range cmd.Parameters {
			s := p.Name + ":" + p.Type
			if p.Required {
				s += "*"
			}
			params = append(params, s)
		}
		var secs []string
		for _, s := range cmd.Secrets {
			state := s.State
			if state == "not set" && s.Required {
				state = "MISSING"
			}
			secs = append(secs, s.Key+" ("+state+")")
		}
		setup := ""
		if cmd.Setup {
			setup = "hark commands setup " + cmd.Name
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", cmd.Name, dash(strings.Join(params, " ")), dash(strings.Join(secs, ", ")), setup)
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
	// hidden, on a terminal, reads a line without showing it: the answer
	// to a question for a token or a password.
	hidden func() ([]byte, error)
}

var _ control.SetupIO = (*terminalIO)(nil)

func (t *terminalIO) Ask(q string) (string, error) {
	fmt.Fprint(t.out, q+" ")
	if t.hidden != nil && control.AsksSecret(q) {
		b, err := t.hidden()
		fmt.Fprintln(t.out) // the Enter the terminal did not show
		if err != nil {
			return "", fmt.Errorf("setup: no answer: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
	line, err := t.in.ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("setup: no answer: %w", err)
	}
	return strings.TrimSpace(line), nil
}

func (t *terminalIO) Say(line string) { fmt.Fprintln(t.out, line) }
