package main

import (
	"context"
	"fmt"
	"time"

	"github.com/harkbox/hark/device/clock"
)

// cmdClock shows the computer's clock and the box's uptime record, or,
// with restore, sets a clock that booted behind to the record (run as root
// by hark-clock.service, before NTP and before hark run).
func cmdClock(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("clock", e, g)
	if err := parse(e, fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) > 1 || len(rest) == 1 && rest[0] != "restore" {
		return usageError(e, fs, "")
	}
	cfg, res, err := loadConfig(e, g)
	if err != nil {
		return err
	}
	if len(rest) == 1 {
		set, err := clock.Restore(cfg.DataDir)
		switch {
		case err != nil:
			return err
		case set.IsZero():
			fmt.Fprintln(e.stdout, "the clock is not behind the uptime record: left as it is")
		default:
			fmt.Fprintf(e.stdout, "the clock was behind: set to the uptime record, %s\n", set.Format(time.RFC3339))
		}
		return nil
	}
	sys := clock.NewSystem(clock.SystemOptions{Trust: cfg.Board == "sim" || cfg.Board == "usb"})
	state := "not synchronised"
	if sys.Synced() {
		state = "synchronised"
	}
	fmt.Fprintf(e.stdout, "clock    %s (%s), %s\n", sys.Now().In(res.Location).Format("Mon 2 Jan 2006 15:04:05 MST"), res.Location, state)
	rec, err := clock.Load(cfg.DataDir)
	switch {
	case err != nil:
		return err
	case rec.Alive.IsZero():
		fmt.Fprintln(e.stdout, "record   none yet")
	default:
		fmt.Fprintf(e.stdout, "record   last alive %s\n", rec.Alive.In(res.Location).Format("Mon 2 Jan 2006 15:04:05 MST"))
	}
	return nil
}
