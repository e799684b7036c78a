// Command hark is the firmware of the Hark smart speaker: one binary whose
// subcommands run the appliance (hark run), answer one typed question through
// the same reply path (hark ask), and inspect it (hark config, hark version).
// Only this package reads flags, files and the environment; it loads the
// configuration, calls into device/box (the running box as a library) and
// prints the result.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/term"
)

// stopBudget is how long a stop may take: under the 10 s the household's
// day allows (and hark.service's TimeoutStopSec).
const stopBudget = 9 * time.Second

func main() {
	// What Hark writes (the store, keys, logs, replies) is its user's
	// alone, whatever the umask it was started with.
	syscall.Umask(0o077)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The last resort: whatever a part is doing (a card that stopped
	// answering, a model server mid-answer), a stop ends the process
	// within stopBudget; each part gives up well before.
	context.AfterFunc(ctx, func() {
		time.AfterFunc(stopBudget, func() {
			fmt.Fprintf(os.Stderr, "hark: still stopping %v after the signal; exiting now\n", stopBudget)
			os.Exit(1)
		})
	})
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
