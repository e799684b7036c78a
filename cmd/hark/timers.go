package main

import (
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/harkbox/hark/storage"
)

// cmdTimers lists the running timers, and with --all the alarms and
// reminders too.
func cmdTimers(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("timers", e, g)
	all := fs.Bool("all", false, "list alarms and reminders too")
	if err := parse(fs, args); err != nil {
		return err
	}
	a, err := openOneShot(e, g)
	if err != nil {
		return err
	}
	defer a.close()
	kinds := []storage.ItemKind{storage.Timer}
	if *all {
		kinds = append(kinds, storage.Alarm, storage.Reminder)
	}
	items, err := a.schedule.Pending(ctx, kinds...)
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
	now := time.Now().In(a.res.Location)
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "KIND\tNAME\tLEFT\tDUE")
	for _, it := range items {
		name := it.Name
		if name == "" {
			name = "-"
		}
		left := it.Due.Sub(now).Round(time.Second)
		if left < 0 {
			left = 0 // due while Hark was not running; it rings when hark run starts
		}
		due := it.Due.In(a.res.Location).Format("Mon 15:04:05")
		if it.Kind == storage.Alarm && len(it.Days) > 0 {
			due += " (repeats)"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\n", it.Kind, name, left, due)
	}
	return w.Flush()
}
