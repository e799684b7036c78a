package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/harkbox/hark/device/control"
)

// cmdWeb prints the web page's one-time setup code, or forgets its
// password and prints a new one.
func cmdWeb(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("web", e, g)
	if err := parse(e, fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	if len(rest) != 1 || rest[0] != "code" && rest[0] != "reset" {
		return usageError(e, fs, "")
	}
	c, done, err := connect(ctx, e, g, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer done()
	if rest[0] == "reset" {
		wc, err := c.ResetWeb(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, "the web page's password is forgotten; every browser is logged out; memory, timers and settings are kept.")
		fmt.Fprintln(e.stdout, "its next visit asks for this code and a new password:")
		fmt.Fprintln(e.stdout, wc.Code)
		return nil
	}
	wc, err := c.WebCode(ctx)
	switch {
	case errors.Is(err, control.ErrUnavailable):
		return fmt.Errorf("the web page runs with the daemon: start it (hark run) and ask again (%w)", err)
	case err != nil:
		return err
	case !wc.Pending:
		fmt.Fprintln(e.stdout, "the web page is set up: log in with its password")
		return nil
	}
	fmt.Fprintln(e.stdout, "the web page's first visit asks for this code:")
	fmt.Fprintln(e.stdout, wc.Code)
	return nil
}
