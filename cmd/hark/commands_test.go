package main

import (
	"bufio"
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// The contract tests outside the project rely on: with no model server at
// all, timers and arithmetic work.
func TestOfflineContract(t *testing.T) {
	dir := t.TempDir()
	getenv := vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": t.TempDir()})

	code, out, errOut := ask(t, getenv, "ask", "--data", dir, "set a timer for 5 minutes")
	if code != 0 || out != "Timer set for 5 minutes.\n" {
		t.Fatalf("set a timer: code %d, out %q, err %q", code, out, errOut)
	}
	code, out, errOut = ask(t, getenv, "timers", "--data", dir)
	if code != 0 || !regexp.MustCompile(`(?m)^timer\s+-\s+4m5\d s|^timer\s+-\s+(4m5\ds|5m0s)\s+`).MatchString(out) {
		t.Errorf("hark timers: code %d, out %q, err %q", code, out, errOut)
	}
	code, out, _ = ask(t, getenv, "ask", "--data", dir, "what timers do I have")
	if code != 0 || !regexp.MustCompile(`^Your timer has (4 minutes and 5\d seconds|5 minutes) left\.\n$`).MatchString(out) {
		t.Errorf("what timers do I have: code %d, out %q", code, out)
	}
	code, out, _ = ask(t, getenv, "ask", "--data", dir, "what's 12 times 4")
	if code != 0 || !strings.Contains(out, "48") {
		t.Errorf("what's 12 times 4: code %d, out %q", code, out)
	}
	code, out, _ = ask(t, getenv, "--data", dir, "ask", "--json", "cancel the timer")
	if code != 0 || !strings.Contains(out, `"name": "cancel_timer"`) || !strings.Contains(out, `"offline": true`) {
		t.Errorf("cancel the timer --json: code %d, out %q", code, out)
	}
	if _, out, _ = ask(t, getenv, "timers", "--data", dir); out != "no timers\n" {
		t.Errorf("after cancelling: %q", out)
	}
}

func TestTimerRingsInTheSimulation(t *testing.T) {
	needEspeak(t)
	dir := t.TempDir()
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": dir}), "--sim", "--data", dir)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "set a tea timer for 2 seconds")
	s.out.waitFor(t, "hark: Tea timer set for 2 seconds.", 1)
	s.out.waitFor(t, "[leds] ⏰ ringing", 1)
	s.out.waitFor(t, "hark: Your tea timer is done.", 1)
	// The timer may come due while the confirmation is still being said,
	// so the box may or may not have been idle in between.
	idles := strings.Count(s.out.String(), "[leds] ○ idle")
	s.typeLine(t, "") // the button stops it
	s.out.waitFor(t, "[leds] ○ idle", idles+1)
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
	leds := s.out.leds()
	if leds[len(leds)-2] != "ringing" || leds[len(leds)-1] != "idle" {
		t.Errorf("LED states %v", leds)
	}
}

func TestTimerDueWhileStoppedRingsOnceAtStart(t *testing.T) {
	needEspeak(t)
	dir := t.TempDir()
	getenv := vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": dir})
	if code, out, _ := ask(t, getenv, "ask", "--data", dir, "set a pasta timer for 1 second"); code != 0 {
		t.Fatalf("set: %q", out)
	}
	time.Sleep(1500 * time.Millisecond) // it comes due while nothing runs
	s := startRun(t, getenv, "--sim", "--data", dir)
	// Within the scheduler's minute of grace it is not called late; the
	// late announcement is tested in reply/schedule.
	s.out.waitFor(t, "hark: Your pasta timer is done.", 1)
	s.typeLine(t, "")
	s.out.waitFor(t, "[leds] ○ idle", 2)
	s.quit(t)

	s = startRun(t, getenv, "--sim", "--data", dir) // never twice
	s.out.waitFor(t, "[leds] ○ idle", 1)
	time.Sleep(300 * time.Millisecond)
	s.quit(t)
	if strings.Contains(s.out.String(), "ringing") {
		t.Errorf("rang again on the next start:\n%s", s.out.String())
	}
}

func TestSecretsNeverShown(t *testing.T) {
	dir := t.TempDir()
	debug := writeConfig(t, "[log]\nlevel = \"debug\"\n") // everything logged, still no value
	const value = "sk-test-DO-NOT-PRINT-4242"
	var out, errOut output
	code := run(t.Context(), []string{"secrets", "--config", debug, "--data", dir, "set", "NEWS_API_KEY"},
		env{stdin: strings.NewReader(value + "\n"), stdout: &out, stderr: &errOut, getenv: vars(nil)})
	if code != 0 || strings.Contains(out.String()+errOut.String(), value) {
		t.Fatalf("set: %d %q %q", code, out.String(), errOut.String())
	}
	for _, args := range [][]string{{"secrets", "--config", debug, "--data", dir, "list"}, {"commands", "--config", debug, "--data", dir}, {"config", "--config", debug, "--data", dir}} {
		code, o, e := ask(t, vars(nil), args...)
		if code != 0 || strings.Contains(o+e, value) {
			t.Errorf("%v: code %d printed the value or failed:\n%s%s", args, code, o, e)
		}
		if args[0] == "secrets" && o != "NEWS_API_KEY\n" {
			t.Errorf("secrets list = %q", o)
		}
	}
	if _, o, _ := ask(t, vars(nil), "secrets", "--data", dir, "unset", "NEWS_API_KEY"); o != "NEWS_API_KEY removed\n" {
		t.Errorf("unset: %q", o)
	}
	if code, _, e := ask(t, vars(nil), "secrets", "--data", dir, "set"); code != 2 || !strings.Contains(e, "usage") {
		t.Errorf("set without a name: %d %q", code, e)
	}
}

func TestCommandsListing(t *testing.T) {
	code, out, _ := ask(t, vars(nil), "commands", "--data", t.TempDir())
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	for _, want := range []string{"set_timer", "duration:timedelta*", "get_weather", "hark commands setup get_weather", "control_volume", "stop"} {
		if !strings.Contains(out, want) {
			t.Errorf("hark commands lacks %q:\n%s", want, out)
		}
	}
	if code, _, e := ask(t, vars(nil), "commands", "--data", t.TempDir(), "setup", "nope"); code != 1 || !strings.Contains(e, `"nope"`) {
		t.Errorf("setup of an unknown command: %d %q", code, e)
	}
}

func TestModelAnswersWithATool(t *testing.T) {
	srv, m := modelServer(t)
	m.Says(replytest.Planner, `{"steps": ["set_timer: bread, 20 minutes", "reply"]}`).Says(replytest.Router, `{"tools": ["set_timer"]}`)
	m.On(replytest.Chat,
		ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "set_timer", Arguments: map[string]any{"duration": "PT20M", "name": "bread"}}}},
		ollamatest.Reply{Content: "Your bread timer is set for twenty minutes."},
	)
	dir := t.TempDir()
	code, out, errOut := ask(t, vars(map[string]string{"OLLAMA_HOST": srv.URL}), "ask", "--data", dir, "could you keep an eye on the bread for twenty minutes")
	if code != 0 || out != "Your bread timer is set for twenty minutes.\n" {
		t.Fatalf("code %d out %q err %q", code, out, errOut)
	}
	if _, out, _ = ask(t, vars(nil), "timers", "--data", dir); !strings.Contains(out, "bread") {
		t.Errorf("the model's timer is not listed: %q", out)
	}
}

// TestSetupHidesSecretAnswers: on a terminal, the answer to a question for
// a token or a password is read without being shown; other answers are
// read as typed.
func TestSetupHidesSecretAnswers(t *testing.T) {
	var out bytes.Buffer
	hiddenReads := 0
	tio := &terminalIO{in: bufio.NewReader(strings.NewReader("http://ha.lan:8123\n")), out: &out,
		hidden: func() ([]byte, error) { hiddenReads++; return []byte("s3cret-token"), nil }}
	addr, err := tio.Ask("Home Assistant's address (e.g. http://homeassistant.local:8123):")
	if err != nil || addr != "http://ha.lan:8123" {
		t.Errorf("the address: %q %v", addr, err)
	}
	tok, err := tio.Ask("A long-lived access token (Home Assistant: your profile, Security):")
	if err != nil || tok != "s3cret-token" || hiddenReads != 1 {
		t.Errorf("the token: %q %v, %d hidden reads", tok, err, hiddenReads)
	}
	if strings.Contains(out.String(), "s3cret") {
		t.Errorf("the token shows on the terminal:\n%s", out.String())
	}
}
