package main

import (
	"os"

	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
	"github.com/harkbox/hark/storage"
)

func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"-h"}, {"--help"}, {"help", "help"}} {
		code, out, errOut := ask(t, vars(nil), args...)
		if code != 0 || !strings.Contains(out, "commands:") || errOut != "" {
			t.Errorf("%q: code %d, stdout %q, stderr %q; want 0 and the command list on stdout", args, code, out, errOut)
		}
	}
	// The command list's summaries start in one column.
	_, out, _ := ask(t, vars(nil), "help")
	col := -1
	for _, l := range strings.Split(out, "\n") {
		name, _, ok := strings.Cut(strings.TrimPrefix(l, "  "), " ")
		if !strings.HasPrefix(l, "  ") || !ok || strings.HasPrefix(l, "   ") {
			continue
		}
		if _, isCmd := subcommands[name]; !isCmd {
			continue
		}
		at := len(l) - len(strings.TrimLeft(l[2+len(name):], " "))
		if col == -1 {
			col = at
		} else if at != col {
			t.Errorf("summary of %q starts at column %d, the others at %d:\n%s", name, at, col, out)
		}
	}
	if col == -1 {
		t.Fatalf("no command lines in:\n%s", out)
	}
	for name := range subcommands {
		if name == "help" {
			continue
		}
		for _, args := range [][]string{{"help", name}, {name, "-h"}, {name, "--help"}} {
			code, out, errOut := ask(t, vars(nil), args...)
			if code != 0 || !strings.Contains(out, "usage: hark "+name) || !strings.Contains(out, "-data") {
				t.Errorf("%q: code %d, stdout %q, stderr %q; want 0 and the usage with the flags on stdout", args, code, out, errOut)
			}
		}
	}
	if code, _, _ := ask(t, vars(nil), "help", "frobnicate"); code != 2 {
		t.Errorf("help for an unknown command: code %d, want 2", code)
	}
}

// TestGlobalFlagsAnywhere runs every command and step with --data before
// the command, after it, after its step and arguments, and in the --data=DIR
// form, and checks that the directory given was the one used.
func TestGlobalFlagsAnywhere(t *testing.T) {
	type check func(t *testing.T, dir string, code int, out, errOut string)
	usedStore := func(t *testing.T, dir string) {
		t.Helper()
		if _, err := os.Stat(filepath.Join(dir, "MANIFEST")); err != nil {
			t.Errorf("the store was not opened in --data %s: %v", dir, err)
		}
	}
	ok := func(want string) check {
		return func(t *testing.T, dir string, code int, out, errOut string) {
			t.Helper()
			if code != 0 || !strings.Contains(out, want) {
				t.Errorf("code %d, stdout %q, stderr %q; want 0 and %q", code, out, errOut, want)
			}
			usedStore(t, dir)
		}
	}
	fails := func(want string) check {
		return func(t *testing.T, dir string, code int, out, errOut string) {
			t.Helper()
			if code != 1 || !strings.Contains(errOut, want) || strings.Contains(errOut, "usage") {
				t.Errorf("code %d, stderr %q; want 1 and %q, not a usage error", code, errOut, want)
			}
		}
	}
	cases := []struct {
		cmd   []string // the command and its step
		args  []string // after the step
		stdin string
		check check
	}{
		{[]string{"timers"}, nil, "", ok("no timers")},
		{[]string{"timers"}, []string{"--all"}, "", ok("no timers, alarms or reminders")},
		{[]string{"secrets", "list"}, nil, "", ok("no secrets set")},
		{[]string{"secrets", "set"}, []string{"HA_TOKEN"}, "abc\n", ok("HA_TOKEN set")},
		{[]string{"secrets", "unset"}, []string{"HA_TOKEN"}, "", ok("HA_TOKEN removed")},
		{[]string{"commands"}, nil, "", ok("get_weather")},
		{[]string{"commands", "setup"}, []string{"get_current_time"}, "", ok("needs no setup")},
		{[]string{"config"}, nil, "", func(t *testing.T, dir string, code int, out, errOut string) {
			if code != 0 || !strings.Contains(out, "data_dir = '"+dir+"'") {
				t.Errorf("code %d, stdout %q; want data_dir = %s", code, out, dir)
			}
		}},
		{[]string{"version"}, nil, "", func(t *testing.T, dir string, code int, out, errOut string) {
			if code != 0 || !strings.HasPrefix(out, "hark ") {
				t.Errorf("code %d, stdout %q", code, out)
			}
		}},
		{[]string{"health"}, nil, "", func(t *testing.T, dir string, code int, out, errOut string) {
			if code != 1 || !strings.Contains(errOut, "hark is not running") || !strings.Contains(errOut, filepath.Join(dir, "control.sock")) {
				t.Errorf("code %d, stderr %q; want 1, not running, naming %s", code, errOut, filepath.Join(dir, "control.sock"))
			}
		}},
		{[]string{"update", "status"}, nil, "", fails("needs a board")},
		{[]string{"update", "check"}, nil, "", fails("needs a board")},
		{[]string{"update", "install"}, []string{"/nonexistent.raucb"}, "", fails("needs a board")},
		{[]string{"smoketest"}, nil, "", fails("needs a board")},
		{[]string{"memory"}, nil, "", ok("nothing remembered")},
		{[]string{"memory", "conversations"}, nil, "", ok("no conversations")},
		{[]string{"status"}, nil, "", ok("hark run is not running")},
		{[]string{"clock"}, nil, "", func(t *testing.T, dir string, code int, out, errOut string) {
			if code != 0 || !strings.Contains(out, "clock    ") || !strings.Contains(out, "record   none yet") {
				t.Errorf("code %d, stdout %q, stderr %q", code, out, errOut)
			}
		}},
		// A fresh --data has no record: restore leaves the clock alone
		// (this test never sets the machine's clock).
		{[]string{"clock"}, []string{"restore"}, "", func(t *testing.T, dir string, code int, out, errOut string) {
			if code != 0 || !strings.Contains(out, "not behind the uptime record") {
				t.Errorf("code %d, stdout %q, stderr %q", code, out, errOut)
			}
		}},
		{[]string{"logs"}, []string{"-n", "5"}, "", fails("hark run is not running")},
		{[]string{"transcribe"}, []string{"/nonexistent.wav"}, "", func(t *testing.T, dir string, code int, out, errOut string) {
			if code != 1 || strings.Contains(errOut, "usage") {
				t.Errorf("code %d, stderr %q; want 1 and the file's or model's problem, not a usage error", code, errOut)
			}
		}},
		{[]string{"run"}, []string{"--sim"}, "", func(t *testing.T, dir string, code int, out, errOut string) {
			// Standard input is empty: the simulation ends at once.
			if code != 0 {
				t.Errorf("code %d, stdout %q, stderr %q", code, out, errOut)
			}
			if _, err := os.Stat(filepath.Join(dir, "hark.log")); err != nil {
				t.Errorf("hark run did not use --data %s: %v", dir, err)
			}
		}},
		{[]string{"ask"}, []string{""}, "", func(t *testing.T, dir string, code int, out, errOut string) {
			if code != 2 || !strings.Contains(errOut, "the question is empty") {
				t.Errorf("code %d, stderr %q; want 2 and that the question is empty", code, errOut)
			}
		}},
	}
	positions := []struct {
		name string
		args func(cmd, args []string, dir string) []string
	}{
		{"before the command", func(cmd, args []string, dir string) []string {
			return append(append([]string{"--data", dir}, cmd...), args...)
		}},
		{"after the command", func(cmd, args []string, dir string) []string {
			return append(append([]string{cmd[0], "--data", dir}, cmd[1:]...), args...)
		}},
		{"after the step and arguments", func(cmd, args []string, dir string) []string {
			return append(append(append([]string{}, cmd...), args...), "--data", dir)
		}},
		{"--data=DIR after the step", func(cmd, args []string, dir string) []string {
			return append(append([]string{}, cmd...), append([]string{"--data=" + dir}, args...)...)
		}},
	}
	getenv := vars(map[string]string{"HOME": t.TempDir(), "OLLAMA_HOST": deadPort(t)})
	for _, c := range cases {
		for _, p := range positions {
			t.Run(strings.Join(c.cmd, " ")+"/"+p.name, func(t *testing.T) {
				dir := t.TempDir()
				if c.cmd[0] == "secrets" && c.cmd[1] == "unset" {
					runIn(t, getenv, "abc\n", "secrets", "set", "--data", dir, "HA_TOKEN")
				}
				var out, errOut output
				code := run(t.Context(), p.args(c.cmd, c.args, dir), env{stdin: strings.NewReader(c.stdin), stdout: &out, stderr: &errOut, getenv: getenv})
				c.check(t, dir, code, out.String(), errOut.String())
			})
		}
	}
}

func runIn(t *testing.T, getenv func(string) string, stdin string, args ...string) string {
	t.Helper()
	var out, errOut output
	if code := run(t.Context(), args, env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, getenv: getenv}); code != 0 {
		t.Fatalf("%q: code %d, stderr %q", args, code, errOut.String())
	}
	return out.String()
}

// TestFlagsAfterArguments: a command's own flags may follow its arguments.
func TestFlagsAfterArguments(t *testing.T) {
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "Hello there."}, ollamatest.Reply{Content: "Hello there."})
	getenv := vars(map[string]string{"OLLAMA_HOST": srv.URL})
	code, out, errOut := ask(t, getenv, "ask", "tell me a joke", "--json", "--data", t.TempDir())
	if code != 0 || !strings.Contains(out, `"reply": "Hello there."`) {
		t.Errorf("ask TEXT --json: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	// "--" ends the flags: what follows is the question.
	code, out, errOut = ask(t, getenv, "ask", "--data", t.TempDir(), "--", "--json", "is", "a", "flag?")
	if code != 0 || out != "Hello there.\n" {
		t.Errorf("ask -- TEXT: code %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestTimersListsAMissedTimerAsOverdue: a timer that came due while hark
// was not running is listed as overdue, not as "0s left".
func TestTimersListsAMissedTimerAsOverdue(t *testing.T) {
	dir := t.TempDir()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	err = db.Schedule().Put(t.Context(), storage.Item{ID: "timer-1", Kind: storage.Timer, Name: "tea", Created: now.Add(-10 * time.Minute),
		Due: now.Add(-5 * time.Minute), State: storage.Pending, Duration: 5 * time.Minute})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := runIn(t, vars(map[string]string{"HOME": t.TempDir()}), "", "timers", "--data", dir)
	if !strings.Contains(out, "overdue by 5m") || !strings.Contains(out, "rings when hark run starts") || strings.Contains(out, " 0s") {
		t.Errorf("timers:\n%s\nwant the tea timer overdue by 5m, ringing when hark run starts", out)
	}
}
