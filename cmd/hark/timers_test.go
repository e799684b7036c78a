package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTimersStopContract: a timer that rings is listed as ringing; `hark
// timers stop` silences it (exit 0) and `hark timers` then lists nothing
// ringing; `hark timers cancel NAME` silences a ringing one by its name
// and cancels a pending one by its name; without a daemon, stop says
// nothing rings.
func TestTimersStopContract(t *testing.T) {
	srv, _ := modelServer(t)
	dir := t.TempDir()
	getenv := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": dir})
	cfg := writeConfig(t, "[tts]\nengine = \"off\"\n[web]\nlisten = \"\"\n")
	cli := func(args ...string) string {
		t.Helper()
		return runIn(t, getenv, "", append(args, "--data", dir, "--config", cfg)...)
	}
	if out := cli("timers", "stop"); !strings.Contains(out, "nothing is ringing") {
		t.Errorf("timers stop without a daemon: %q", out)
	}
	s := startRun(t, getenv, "--sim", "--data", dir, "--config", cfg)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	ringing := func(name string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			out := cli("timers")
			for _, l := range strings.Split(out, "\n") {
				if strings.Contains(l, " "+name+" ") && strings.Contains(l, "RINGING") {
					return
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("the %s timer is not listed as ringing:\n%s", name, out)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	cli("ask", "set a tea timer for 1 second")
	ringing("tea")
	if out := cli("timers", "stop"); out != "stopped\n" {
		t.Errorf("timers stop: %q", out)
	}
	if out := cli("timers", "--all"); strings.Contains(out, "RINGING") || strings.Contains(out, " tea ") {
		t.Errorf("after timers stop:\n%s", out)
	}
	if out := cli("timers", "stop"); out != "nothing is ringing\n" {
		t.Errorf("timers stop with nothing ringing: %q", out)
	}

	cli("ask", "set a pasta timer for 1 second")
	cli("ask", "set an egg timer for 20 minutes")
	ringing("pasta")
	if out := cli("timers", "cancel", "Pasta"); out != "cancelled Pasta\n" {
		t.Errorf("timers cancel Pasta while it rings: %q", out)
	}
	if out := cli("timers", "cancel", "egg"); out != "cancelled egg\n" {
		t.Errorf("timers cancel egg: %q", out)
	}
	if out := cli("timers"); out != "no timers\n" {
		t.Errorf("after cancelling both by name:\n%s", out)
	}
	var errOut output
	if code := run(t.Context(), []string{"timers", "cancel", "soup", "--data", dir, "--config", cfg}, env{stdout: &output{}, stderr: &errOut, getenv: getenv}); code != 1 ||
		!strings.Contains(errOut.String(), `no timer, alarm or reminder has the id or name "soup"`) {
		t.Errorf("timers cancel soup: code %d, %q", code, errOut.String())
	}
}

// TestDataWithoutAStore: a --data that names no store is said, not made:
// a missing directory and one holding other things are refused; an empty
// one gets a store; hark run makes one anywhere.
func TestDataWithoutAStore(t *testing.T) {
	home := t.TempDir()
	getenv := vars(map[string]string{"HOME": home})
	for _, tc := range []struct{ name, dir, want string }{
		{"missing", filepath.Join(home, "typo"), "there is no such directory"},
		{"other things", home, "holds no Hark store"},
	} {
		if tc.name == "other things" {
			os.WriteFile(filepath.Join(home, "notes.txt"), []byte("x"), 0o644)
		}
		var out, errOut output
		code := run(t.Context(), []string{"timers", "--data", tc.dir}, env{stdout: &out, stderr: &errOut, getenv: getenv})
		if code != 1 || !strings.Contains(errOut.String(), tc.want) || strings.Contains(out.String(), "no timers") {
			t.Errorf("%s: code %d, %q %q", tc.name, code, out.String(), errOut.String())
		}
		if _, err := os.Stat(filepath.Join(tc.dir, "MANIFEST")); err == nil {
			t.Errorf("%s: a store was made", tc.name)
		}
	}
	empty := t.TempDir()
	if out := runIn(t, getenv, "", "timers", "--data", empty); out != "no timers\n" {
		t.Errorf("an empty directory: %q", out)
	}
}
