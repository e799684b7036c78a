package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/harkbox/hark/device/control"
)

// cmdWeb prints the web page's one-time setup code.
func cmdWeb(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("web", e, g)
	if err := parse(e, fs, args); err != nil {
		return err
	}
	if rest := fs.Args(); len(rest) != 1 || rest[0] != "code" {
		return usageError(e, fs, "")
	}
	c, done, err := connect(ctx, e, g, slog.LevelWarn)
	if err != nil {
		return err
	}
	defer done()
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
