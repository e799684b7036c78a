package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/harkbox/hark/device/box/config"
)

// env is what a command may touch of the outside world.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	stdoutTTY      bool
}

// globals are the flags every command accepts, anywhere on its command line.
type globals struct {
	config string
	data   string
	// warned is set once the settings that did not load were said.
	warned bool
	// notSaved is what the command changed and its own store, with no
	// daemon running, could not keep: the command fails with it.
	notSaved error
}

func (g *globals) register(fs *flag.FlagSet) {
	fs.StringVar(&g.config, "config", g.config, "configuration `file` (TOML)")
	fs.StringVar(&g.data, "data", g.data, "state `dir`ectory: database and reply files")
}

type subcommand struct {
	summary string
	run     func(ctx context.Context, e env, g *globals, args []string) error
}

// subcommands are set in init: their functions use flags, which reads
// their summaries.
var subcommands map[string]subcommand

func init() {
	subcommands = map[string]subcommand{
		"run":         {"run the appliance (--sim: on this computer)", cmdRun},
		"ask":         {"answer one typed question: hark ask [--json] [--continue|--conversation ID] TEXT...", cmdAsk},
		"config":      {"print the effective configuration and where each value came from", cmdConfig},
		"version":     {"print the version and what was built in", cmdVersion},
		"timers":      {"list what rings and the running timers (--all: alarms and reminders too), stop what rings, or cancel one: hark timers stop|cancel ID-or-NAME", cmdTimers},
		"secrets":     {"set, list or unset the credentials commands need", cmdSecrets},
		"commands":    {"list the commands, or run one's setup: hark commands setup NAME", cmdCommands},
		"smoketest":   {"check the board's microphone, speaker, button and LEDs, with a PASS or FAIL line each", cmdSmoketest},
		"update":      {"check for, install and show firmware updates: hark update check|install [URL-or-FILE]|status", cmdUpdate},
		"health":      {"the boot health check: run hark's self-test, --mark-good marks the RAUC slot good", cmdHealth},
		"transcribe":  {"transcribe a WAV file on the box and print the timings: hark transcribe FILE.wav", cmdTranscribe},
		"memory":      {"what the assistant remembers: hark memory [facts|forget ID|conversations|delete ID]", cmdMemory},
		"status":      {"the box's state and self-test", cmdStatus},
		"clock":       {"the clock and the uptime record; hark clock restore sets a clock that booted behind to the record (as root, at boot)", cmdClock},
		"logs":        {"the running daemon's last log lines", cmdLogs},
		"web":         {"the web page: hark web code prints the one-time setup code its first visit asks for; hark web reset forgets its password and prints a new code", cmdWeb},
		"mcp":         {"list the MCP servers, their state and their tools: hark mcp list", cmdMCP},
		"center":      {"the household's command center for speaker nodes: hark center [--listen ADDR] [--insecure-http], hark center nodes add NAME [--id ID --key KEY] [--room ROOM]|list|revoke ID, hark center status", cmdCenter},
		"probe-model": {"load a whisper model and transcribe silence, in a process of its own (hark run does this first)", cmdProbeModel},
		"help":        {"show this list, or one command's flags: hark help COMMAND", nil},
	}
}

// synopses are the usage lines of the commands and steps whose arguments
// the flag list does not show.
var synopses = map[string]string{
	"ask":            "hark ask [--json] [--continue|--conversation ID] TEXT...",
	"center":         "hark center [--listen ADDR] [--insecure-http]   serve the speaker nodes\n       hark center nodes add NAME [--id ID --key KEY] [--room ROOM]\n                                      enroll a node (or a Jarvis node with its id and key): prints NODE_ID:KEY last\n       hark center nodes list\n       hark center nodes revoke ID\n       hark center status",
	"clock":          "hark clock                   the clock, whether it is set, and the uptime record\n       hark clock restore           set a clock that booted behind to the record (needs CAP_SYS_TIME)",
	"commands":       "hark commands                list the commands\n       hark commands setup NAME     run a command's first-time setup",
	"secrets":        "hark secrets set NAME        (reads the value from standard input)\n       hark secrets list\n       hark secrets unset NAME",
	"mcp":            "hark mcp [list]               the MCP servers, their state and their tools",
	"memory":         "hark memory [facts]            what the assistant was asked to remember\n       hark memory forget ID          forget one\n       hark memory conversations      the conversations, newest first\n       hark memory delete ID          delete one conversation",
	"timers":         "hark timers [--all]            what rings and the running timers (--all: alarms and reminders too)\n       hark timers stop               silence what rings\n       hark timers cancel ID-or-NAME  silence or cancel one, by its id or its name",
	"transcribe":     "hark transcribe [--json] [--model FILE] [--threads N] [--language L] ... FILE.wav",
	"update":         "hark update check [--install] [--scheduled]\n       hark update install [--now|--no-reboot] [--allow-downgrade] [URL-or-FILE]\n       hark update status",
	"update check":   "hark update check [--install] [--scheduled]",
	"update install": "hark update install [--now|--no-reboot] [--allow-downgrade] [URL-or-FILE]",
	"update status":  "hark update status",
	"web":            "hark web code                 the one-time setup code the page's first visit asks for\n       hark web reset                forget the page's password (nothing else): prints a new setup code last",
}

// errUsage marks a command line that could not be understood; the message
// has been printed with the usage.
var errUsage = errors.New("usage")

// errHelp marks a command line that asked for help, which was printed.
var errHelp = errors.New("help")

// errReported marks a failure the command has already explained: the exit
// status is 1 and nothing more is printed.
var errReported = errors.New("reported")

// run is the whole program, given its arguments; it returns the exit code.
// The global flags may stand anywhere on the command line.
func run(ctx context.Context, args []string, e env) int {
	var g globals
	args, err := hoistGlobals(args, &g)
	if err != nil {
		fmt.Fprintf(e.stderr, "hark: %v\n\n", err)
		usage(e.stderr)
		return 2
	}
	if len(args) == 0 {
		usage(e.stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help":
		usage(e.stdout)
		return 0
	case "help":
		if len(args) < 2 || args[1] == "help" {
			usage(e.stdout)
			return 0
		}
		name, args = args[1], []string{args[1], "-h"}
	}
	cmd, ok := subcommands[name]
	if !ok || cmd.run == nil {
		if strings.HasPrefix(name, "-") {
			fmt.Fprintf(e.stderr, "hark: unknown flag %s before the command\n\n", name)
		} else {
			fmt.Fprintf(e.stderr, "hark: unknown command %q\n\n", name)
		}
		usage(e.stderr)
		return 2
	}
	err = cmd.run(ctx, e, &g, args[1:])
	if err == nil && g.notSaved != nil {
		err = g.notSaved
	}
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.Is(err, errUsage):
		return 2
	case errors.Is(err, errReported):
		return 1
	case ctx.Err() != nil:
		// Interrupted (Ctrl-C, SIGTERM): what failed is only the call it
		// cut short.
		fmt.Fprintf(e.stderr, "hark %s: interrupted\n", name)
		return 1
	}
	fmt.Fprintf(e.stderr, "hark %s: %v\n", name, err)
	return 1
}

// globalFlags are the flags every command takes, wherever they stand.
var globalFlags = map[string]func(g *globals) *string{
	"config": func(g *globals) *string { return &g.config },
	"data":   func(g *globals) *string { return &g.data },
}

// hoistGlobals takes the global flags (--config FILE, --data=DIR, ...) out
// of args, wherever they stand before a "--", and returns the rest.
func hoistGlobals(args []string, g *globals) ([]string, error) {
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(rest, args[i:]...), nil
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		set, ok := globalFlags[name]
		if !ok || !strings.HasPrefix(a, "-") || strings.HasPrefix(a, "---") {
			rest = append(rest, a)
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				return nil, fmt.Errorf("flag --%s needs a value", name)
			}
			i++
			value = args[i]
		}
		*set(g) = value
	}
	return rest, nil
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: hark COMMAND [flags] [args]\n\ncommands:")
	var names []string
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, n := range names {
		fmt.Fprintf(tw, "  %s\t%s\n", n, subcommands[n].summary)
	}
	tw.Flush()
	fmt.Fprintln(w, "\nglobal flags, anywhere on the command line:")
	fs := flag.NewFlagSet("hark", flag.ContinueOnError)
	fs.SetOutput(w)
	(&globals{}).register(fs)
	fs.PrintDefaults()
	fmt.Fprintln(w, "\nhark help COMMAND (or hark COMMAND -h) shows a command's flags.")
}

// flags returns a FlagSet for a command (or "command step") that also takes
// the global flags; its usage shows the command's synopsis and flags.
func flags(name string, e env, g *globals) *flag.FlagSet {
	fs := flag.NewFlagSet("hark "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	g.register(fs)
	fs.Usage = func() {
		w := fs.Output()
		syn, ok := synopses[name]
		if !ok {
			syn = "hark " + name + " [flags]"
		}
		fmt.Fprintln(w, "usage: "+syn)
		if s, ok := subcommands[name]; ok {
			fmt.Fprintln(w, "\n"+s.summary)
		}
		fmt.Fprintln(w, "\nflags:")
		fs.PrintDefaults()
	}
	return fs
}

// parse parses a command's flags, which may come before, between or after
// its arguments (a "--" ends the flags). -h prints the usage on standard
// output and returns errHelp; a bad flag prints the problem and the usage
// on standard error and returns errUsage.
func parse(e env, fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	var pos []string
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(e.stdout)
			fs.Usage()
			return errHelp
		}
		if err != nil {
			fs.SetOutput(e.stderr)
			fmt.Fprintf(e.stderr, "%s: %v\n", fs.Name(), err)
			fs.Usage()
			return errUsage
		}
		rest := fs.Args()
		used := len(args) - len(rest)
		if len(rest) == 0 {
			break
		}
		if used > 0 && args[used-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos, args = append(pos, rest[0]), rest[1:]
	}
	fs.SetOutput(e.stderr)
	return fs.Parse(append([]string{"--"}, pos...))
}

// usageError prints msg and the command's usage on standard error.
func usageError(e env, fs *flag.FlagSet, msg string) error {
	if msg != "" {
		fmt.Fprintf(e.stderr, "%s: %s\n", fs.Name(), msg)
	}
	fs.SetOutput(e.stderr)
	fs.Usage()
	return errUsage
}

// loadConfig reads the configuration, applies the global flags and the
// given flag overrides (key → value, with the flag's name), and checks it.
// The household's settings file is used as far as it loads
// (config.Loaded.UseSettings): what does not is left out, and said once on
// standard error.
func loadConfig(e env, g *globals, overrides ...override) (*config.Loaded, config.Resolved, error) {
	l, r, err := readConfig(e, g, false, overrides...)
	if err != nil {
		return nil, config.Resolved{}, err
	}
	if !g.warned {
		for _, p := range l.SettingsProblems {
			fmt.Fprintf(e.stderr, "hark: warning: %s; left out until it is fixed (saving a setting rewrites the file without it)\n", p)
		}
		g.warned = true
	}
	return l, r, nil
}

// readConfig is loadConfig without the warning; strict refuses settings
// that do not all load, as the boot check after an update does.
func readConfig(e env, g *globals, strict bool, overrides ...override) (*config.Loaded, config.Resolved, error) {
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
	// The web page's settings, kept in the data directory, come over the
	// file (and under the environment and flags).
	path := filepath.Join(l.DataDir, config.SettingsFile)
	if _, err := os.Lstat(path); !strict && err == nil {
		// Whatever is there: what is no settings file is said too.
		r, err = l.UseSettings(path, e.getenv)
		return l, r, err
	}
	if !isFile(path) {
		return l, r, nil
	}
	if err := l.ApplySettings(path); err != nil {
		return nil, config.Resolved{}, err
	}
	if r, err = l.Resolve(e.getenv); err != nil {
		return nil, config.Resolved{}, err
	}
	return l, r, nil
}

type override struct{ key, value, flag string }

func cmdConfig(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("config", e, g)
	example := fs.Bool("example", false, "print the commented example file with every key and its default")
	if err := parse(e, fs, args); err != nil {
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
	return l.Write(e.stdout)
}

func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
