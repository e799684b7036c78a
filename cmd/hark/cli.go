package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/harkbox/hark/cmd/hark/internal/config"
)

// env is what a command may touch of the outside world.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	stdoutTTY      bool
}

// globals are the flags every command accepts, before or after its name.
type globals struct {
	config string
	data   string
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.config, "config", g.config, "configuration `file` (TOML)")
	fs.StringVar(&g.data, "data", g.data, "state `dir`ectory: database and reply files")
}

type subcommand struct {
	summary string
	run     func(ctx context.Context, e env, g *globals, args []string) error
}

var subcommands = map[string]subcommand{
	"run":        {"run the appliance (--sim: on this computer)", cmdRun},
	"ask":        {"answer one typed question: hark ask [--json] TEXT...", cmdAsk},
	"config":     {"print the effective configuration and where each value came from", cmdConfig},
	"version":    {"print the version and what was built in", cmdVersion},
	"timers":     {"list running timers (--all: alarms and reminders too)", cmdTimers},
	"secrets":    {"set, list or unset the credentials commands need", cmdSecrets},
	"commands":   {"list the commands, or run one's setup: hark commands setup NAME", cmdCommands},
	"smoketest":  {"check the board's microphone, speaker, button and LEDs, with a PASS or FAIL line each", cmdSmoketest},
	"update":     {"check for, install and show firmware updates: hark update check|install [URL-or-FILE]|status", cmdUpdate},
	"health":     {"the boot health check: wait for hark, run its self-test, --mark-good marks the RAUC slot good", cmdHealth},
	"transcribe": {"transcribe a WAV file on the box and print the timings: hark transcribe FILE.wav", cmdTranscribe},
}

// errUsage marks a command line that could not be understood; the message
// has been printed with the usage.
var errUsage = errors.New("usage")

// run is the whole program, given its arguments; it returns the exit code.
func run(ctx context.Context, args []string, e env) int {
	var g globals
	fs := flag.NewFlagSet("hark", flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	g.register(fs)
	fs.Usage = func() { usage(e.stderr, fs) }
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		usage(e.stderr, fs)
		return 2
	}
	name := fs.Arg(0)
	cmd, ok := subcommands[name]
	if !ok {
		fmt.Fprintf(e.stderr, "hark: unknown command %q\n", name)
		usage(e.stderr, fs)
		return 2
	}
	err := cmd.run(ctx, e, &g, fs.Args()[1:])
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		return 2
	}
	fmt.Fprintf(e.stderr, "hark %s: %v\n", name, err)
	return 1
}

func usage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "usage: hark [--config FILE] [--data DIR] COMMAND [flags] [args]\n\ncommands:")
	var names []string
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, subcommands[n].summary)
	}
	fmt.Fprintln(w, "\nglobal flags (accepted before or after the command):")
	fs.PrintDefaults()
}

// flags returns a FlagSet for a command that also takes the global flags.
func flags(name string, e env, g *globals) *flag.FlagSet {
	fs := flag.NewFlagSet("hark "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	g.register(fs)
	return fs
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	return nil
}

// loadConfig reads the configuration, applies the global flags and the
// given flag overrides (key → value, with the flag's name), and checks it.
func loadConfig(e env, g *globals, overrides ...override) (*config.Loaded, config.Resolved, error) {
	l, err := config.Load(g.config, e.getenv)
	if err != nil {
		return nil, config.Resolved{}, err
	}
	if g.data != "" {
		overrides = append(overrides, override{"data_dir", g.data, "--data"})
	}
	for _, o := range overrides {
		if err := l.Override(o.key, o.value, "flag "+o.flag); err != nil {
			return nil, config.Resolved{}, err
		}
	}
	r, err := l.Resolve(e.getenv)
	if err != nil {
		return nil, config.Resolved{}, err
	}
	return l, r, nil
}

type override struct{ key, value, flag string }

func cmdConfig(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("config", e, g)
	example := fs.Bool("example", false, "print the commented example file with every key and its default")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *example {
		_, err := io.WriteString(e.stdout, config.Example)
		return err
	}
	l, _, err := loadConfig(e, g)
	if err != nil {
		return err
	}
	file := l.File
	if file == "" {
		file = "none (defaults)"
	}
	fmt.Fprintf(e.stdout, "# configuration file: %s\n", file)
	section := ""
	for _, key := range config.Keys() {
		name := key
		if i := strings.LastIndex(key, "."); i >= 0 {
			if s := key[:i]; s != section {
				section = s
				fmt.Fprintf(e.stdout, "\n[%s]\n", s)
			}
			name = key[i+1:]
		}
		fmt.Fprintf(e.stdout, "%-40s # %s\n", name+" = "+l.Value(key), l.Sources[key])
	}
	return nil
}
