// Command hark is the firmware of the Hark smart speaker: one binary whose
// subcommands run the appliance (hark run), answer one typed question through
// the same reply path (hark ask), and inspect it (hark config, hark version).
// Only this package reads flags, files and the environment; it loads the
// configuration, calls into device/box (the running box as a library) and
// prints the result.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"
)

func main() {
	// What Hark writes (the store, keys, logs, replies) is its user's
	// alone, whatever the umask it was started with.
	syscall.Umask(0o077)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], env{
		stdin:     os.Stdin,
		stdout:    os.Stdout,
		stderr:    os.Stderr,
		getenv:    os.Getenv,
		stdoutTTY: term.IsTerminal(int(os.Stdout.Fd())),
	})
	stop()
	os.Exit(code)
}
