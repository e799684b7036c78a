package main

import (
	"context"
	"fmt"
	"log/slog"
	"text/tabwriter"
	"time"
)

// cmdTimers lists the running timers, and with --all the alarms and
// reminders too: the running daemon's, or the data directory's when none
// runs.
func cmdTimers(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("timers", e, g)
	all := fs.Bool("all", false, "list alarms and reminders too")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) != 0 && !(len(rest) == 2 && rest[0] == "cancel") {
		return usageError(e, fs, "")
	}
	c, done, err := connect(ctx, e, g, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer done()
	if len(rest) == 2 {
		if err := c.CancelAlert(ctx, rest[1]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "cancelled %s\n", rest[1])
		return nil
	}
	items, err := c.Alerts(ctx, *all)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		if *all {
			fmt.Fprintln(e.stdout, "no timers, alarms or reminders")
		} else {
			fmt.Fprintln(e.stdout, "no timers")
		}
		return nil
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KIND\tNAME\tLEFT\tDUE\tID")
	for _, it := range items {
		left := dueIn(it.Left)
		if it.Left < 0 && !c.Remote() {
			left += " (rings when hark run starts)"
		}
		at := inZone(it.Due, it.Zone)
		due := at.Format("Mon 15:04:05 MST")
		if it.Held {
			left, due = "-", at.Format("15:04 MST")+" (once the clock is set)"
		}
		if it.Repeats {
			due += " (repeats)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", it.Kind, dash(it.Name), left, due, it.ID)
	}
	return w.Flush()
}

// inZone is t in the box's time zone, named zone; in t's own offset when
// this computer does not know the name.
func inZone(t time.Time, zone string) time.Time {
	if loc, err := time.LoadLocation(zone); err == nil && zone != "" {
		return t.In(loc)
	}
	return t
}
