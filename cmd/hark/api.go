package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"time"

	"github.com/harkbox/hark/device/box"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply/redact"
	"github.com/harkbox/hark/storage"
)

// startingDaemon bounds the wait for the socket of a daemon that is
// starting.
const startingDaemon = 3 * time.Second

// connect returns a client of the running daemon's API, or, when no daemon
// runs, of this process's own box over the data directory; close releases
// it (and the store it opened). Without a daemon, only log lines at floor
// or above reach standard error, and what the command changed that the
// store could not keep (a read-only card) fails the command as it ends
// (globals.notSaved).
func connect(ctx context.Context, e env, g *globals, floor slog.Level) (*control.Client, func(), error) {
	c, _, done, err := connectBox(ctx, e, g, floor)
	return c, done, err
}

// connectBox is connect, and the box this process opened when no daemon
// runs (nil when one does).
func connectBox(ctx context.Context, e env, g *globals, floor slog.Level) (*control.Client, *box.Box, func(), error) {
	cfg, res, err := loadConfig(e, g)
	if err != nil {
		return nil, nil, nil, err
	}
	// A daemon that is starting holds the store before its socket
	// answers: then the socket is tried again for a few seconds.
	var b *box.Box
	for deadline := time.Now().Add(startingDaemon); ; {
		c := control.Dial(cfg.ControlSocket)
		_, err = c.Status(ctx)
		if err == nil {
			return c, nil, func() { c.Close() }, nil
		}
		c.Close()
		if !errors.Is(err, control.ErrNotRunning) {
			return nil, nil, nil, fmt.Errorf("the running hark at %s: %w", cfg.ControlSocket, err)
		}
		if err := storeThere(g.data); err != nil {
			return nil, nil, nil, err
		}
		b, err = box.Open(cfg, res, box.Options{Version: version, Log: newLogger(e.stderr, cfg.Log.Level, floor), Once: true})
		if err == nil {
			break
		}
		if !errors.Is(err, storage.ErrLocked) || time.Now().After(deadline) || ctx.Err() != nil {
			return nil, nil, nil, err
		}
		time.Sleep(100 * time.Millisecond)
	}
	if r := b.Recovered(); r != nil {
		// Said whatever the log level: once, by the command that found it.
		fmt.Fprintf(e.stderr, "hark: warning: the store was damaged: %s\n", r)
	}
	lc := control.Local(control.Handler(b.API()))
	return lc, b, func() {
		lc.Close()
		switch err := b.Close(); {
		case errors.Is(err, box.ErrNotSaved):
			g.notSaved = err
		case errors.Is(err, box.ErrTalkNotKept):
			fmt.Fprintf(e.stderr, "hark: warning: %v\n", err)
		}
	}, nil
}

// storeThere refuses a --data that names a directory without Hark's
// store: one that does not exist (mistyped), or one that holds other
// things. An empty directory made for the purpose gets a new store.
func storeThere(dir string) error {
	if dir == "" || storage.Exists(dir) {
		return nil
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--data %s: there is no such directory: is the path right? (hark run makes the store on its first start)", dir)
	case err != nil:
		return fmt.Errorf("--data %s: %w", dir, err)
	case len(entries) > 0:
		return fmt.Errorf("--data %s: this directory holds no Hark store: is the path right? (hark run makes the store on its first start)", dir)
	}
	return nil
}

// newLogger writes text logs to w at the configured level, or at least at
// floor when that is higher, without the passwords of addresses.
func newLogger(w io.Writer, level string, floor slog.Level) *slog.Logger {
	var l slog.Level
	l.UnmarshalText([]byte(level)) // checked by config.Resolve
	return slog.New(redact.NewLogHandler(slog.NewTextHandler(w, &slog.HandlerOptions{Level: max(l, floor)})))
}

// boxZone is the household's time zone ([assistant] time_zone), in which
// the commands show every time; the computer's when the configuration
// cannot be read.
func boxZone(e env, g *globals) *time.Location {
	if _, res, err := loadConfig(e, g); err == nil && res.Location != nil {
		return res.Location
	}
	return time.Local
}

// dueIn says when an alert is due, or how late it is.
func dueIn(left time.Duration) string {
	left = left.Round(time.Second)
	if left < 0 {
		return "overdue by " + (-left).String()
	}
	return left.String()
}
