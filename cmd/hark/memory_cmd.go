package main

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"text/tabwriter"
)

// cmdMemory lists and deletes what the assistant remembers: the facts it
// was asked to remember, and the conversations.
func cmdMemory(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("memory", e, g)
	if err := parse(e, fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		rest = []string{"facts"}
	}
	switch {
	case rest[0] == "facts" && len(rest) == 1, rest[0] == "conversations" && len(rest) == 1,
		rest[0] == "forget" && len(rest) == 2, rest[0] == "delete" && len(rest) == 2:
	default:
		return usageError(e, fs, "")
	}
	c, done, err := connect(ctx, e, g, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer done()
	switch rest[0] {
	case "forget":
		if err := c.Forget(ctx, rest[1]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "forgot %s\n", rest[1])
	case "delete":
		if err := c.DeleteConversation(ctx, rest[1]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "deleted conversation %s\n", rest[1])
	case "conversations":
		convs, err := c.Conversations(ctx)
		if err != nil {
			return err
		}
		if len(convs) == 0 {
			fmt.Fprintln(e.stdout, "no conversations")
		}
		loc := boxZone(e, g)
		for _, cv := range convs {
			first := cv.Exchanges[0]
			fmt.Fprintf(e.stdout, "%s  %s, %d exchanges\n", cv.ID, first.At.In(loc).Format("Mon 2 Jan 15:04 MST"), len(cv.Exchanges))
			for _, x := range cv.Exchanges {
				fmt.Fprintf(e.stdout, "  you:  %s\n  hark: %s\n", x.User, x.Assistant)
			}
		}
	default:
		facts, err := c.Facts(ctx)
		if err != nil {
			return err
		}
		if len(facts) == 0 {
			fmt.Fprintln(e.stdout, "nothing remembered")
			return nil
		}
		w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tSINCE\tFACT")
		loc := boxZone(e, g)
		for _, f := range facts {
			fmt.Fprintf(w, "%s\t%s\t%s\n", f.ID, f.At.In(loc).Format("2 Jan 2006"), f.Text)
		}
		return w.Flush()
	}
	return nil
}

// cmdStatus shows the running box's state and self-test.
func cmdStatus(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("status", e, g)
	if err := parse(e, fs, args); err != nil {
		return err
	}
	c, done, err := connect(ctx, e, g, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer done()
	s, err := c.Status(ctx)
	if err != nil {
		return err
	}
	running := "hark run is not running; the data directory is read directly"
	if c.Remote() {
		running = "running"
	}
	fmt.Fprintf(e.stdout, "%s\nversion  %s\nstate    %s\n", running, s.Version, s.State)
	if s.Clock != nil {
		fmt.Fprintf(e.stdout, "clock    %s\n", s.Clock)
	}
	for _, ch := range s.Checks {
		mark := "ok  "
		if !ch.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(e.stdout, "%s %-15s %s\n", mark, ch.Name, ch.Detail)
	}
	for _, l := range s.Links {
		mark := "up  "
		if !l.OK {
			mark = "DOWN"
		}
		fmt.Fprintf(e.stdout, "%s %-15s %s\n", mark, l.Name, l.Detail)
	}
	return nil
}

// cmdLogs prints the running daemon's last log lines.
func cmdLogs(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("logs", e, g)
	n := fs.Int("n", 50, "how many lines")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	if *n < 1 {
		return usageError(e, fs, "-n "+strconv.Itoa(*n)+" is not a positive number")
	}
	c, done, err := connect(ctx, e, g, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer done()
	if !c.Remote() {
		return fmt.Errorf("hark run is not running, so it has no log to show (in simulation it writes hark.log in the data directory)")
	}
	lines, err := c.Logs(ctx, *n)
	if err != nil {
		return err
	}
	fmt.Fprint(e.stdout, strings.Join(lines, "\n"))
	if len(lines) > 0 {
		fmt.Fprintln(e.stdout)
	}
	return nil
}
