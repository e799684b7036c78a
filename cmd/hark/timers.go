package main

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"text/tabwriter"
	"time"
)

// cmdTimers lists what rings and the running timers, and with --all the
// alarms and reminders too; stops what rings; or cancels one by id or
// name: the running daemon's, or the data directory's when none runs.
func cmdTimers(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("timers", e, g)
	all := fs.Bool("all", false, "list alarms and reminders too")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) != 0 && !(len(rest) >= 2 && rest[0] == "cancel") && !(len(rest) == 1 && rest[0] == "stop") {
		return usageError(e, fs, "")
	}
	c, done, err := connect(ctx, e, g, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer done()
	switch {
	case len(rest) == 1:
		stopped, err := c.StopAlerts(ctx)
		switch {
		case err != nil:
			return err
		case stopped:
			fmt.Fprintln(e.stdout, "stopped")
		case !c.Remote():
			fmt.Fprintln(e.stdout, "nothing is ringing (hark run is not running)")
		default:
			fmt.Fprintln(e.stdout, "nothing is ringing")
		}
		return nil
	case len(rest) >= 2:
		ref := strings.Join(rest[1:], " ")
		if err := c.CancelAlert(ctx, ref); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "cancelled %s\n", ref)
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
		switch {
		case it.Ringing:
			left = "RINGING (hark timers stop)"
		case it.Left < 0 && !c.Remote():
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
