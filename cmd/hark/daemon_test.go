package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/sharedtest"
)

// TestCLIThroughTheDaemon: while hark run owns the data directory (Badger
// lets one process open it), every command acts on the running daemon's
// state through its API: a timer set by ask is listed by timers and rings
// in the daemon; secrets, commands, memory, status and logs answer too.
func TestCLIThroughTheDaemon(t *testing.T) {
	srv, _ := modelServer(t)
	dir := t.TempDir()
	getenv := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": dir})
	cfg := writeConfig(t, "[tts]\nengine = \"off\"\n")
	s := startRun(t, getenv, "--sim", "--data", dir, "--config", cfg)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	cli := func(stdin string, args ...string) string {
		t.Helper()
		return runIn(t, getenv, stdin, append(args, "--data", dir, "--config", cfg)...)
	}

	if out := cli("", "status"); !strings.HasPrefix(out, "running\n") || !strings.Contains(out, "state    idle") {
		t.Fatalf("status through the daemon:\n%s", out)
	}
	if out := cli("", "ask", "set a pasta timer for 3 seconds"); !strings.Contains(strings.ToLower(out), "timer") {
		t.Errorf("ask: %q", out)
	}
	timers := cli("", "timers")
	if !strings.Contains(timers, "pasta") {
		t.Errorf("timers does not list the daemon's timer:\n%s", timers)
	}
	cli("", "ask", "set a tea timer for 10 minutes")
	var teaID string
	for _, l := range strings.Split(cli("", "timers"), "\n") {
		if strings.Contains(l, " tea ") {
			f := strings.Fields(l)
			teaID = f[len(f)-1]
		}
	}
	if out := cli("", "timers", "cancel", teaID); out != "cancelled "+teaID+"\n" {
		t.Errorf("timers cancel %s: %q", teaID, out)
	}
	if out := cli("", "timers"); strings.Contains(out, " tea ") {
		t.Errorf("the tea timer is still listed:\n%s", out)
	}
	s.out.waitFor(t, "ringing", 1) // it rings in the daemon
	// From the command line a plain stop ends only its own conversation;
	// naming the ringing silences it, and says so.
	if out := cli("", "ask", "stop the alarm"); out != "The ringing has stopped.\n" {
		t.Errorf("stop the alarm: %q", out)
	}

	if out := cli("s3cret\n", "secrets", "set", "HA_TOKEN"); out != "HA_TOKEN set\n" {
		t.Errorf("secrets set: %q", out)
	}
	if out := cli("", "secrets", "list"); out != "HA_TOKEN\n" {
		t.Errorf("secrets list: %q", out)
	}
	if out := cli("", "commands"); !strings.Contains(out, "get_weather") {
		t.Errorf("commands:\n%s", out)
	}
	if out := cli("", "commands", "setup", "get_current_time"); !strings.Contains(out, "needs no setup") {
		t.Errorf("commands setup: %q", out)
	}

	cli("", "ask", "remember that the spare key is under the blue pot")
	facts := cli("", "memory")
	if !strings.Contains(facts, "spare key is under the blue pot") {
		t.Fatalf("memory does not list the fact:\n%s", facts)
	}
	id := strings.Fields(strings.Split(facts, "\n")[1])[0]
	if out := cli("", "memory", "forget", id); out != "forgot "+id+"\n" {
		t.Errorf("forget: %q", out)
	}
	if out := cli("", "memory"); strings.Contains(out, "blue pot") {
		t.Errorf("the fact is still there:\n%s", out)
	}
	convs := cli("", "memory", "conversations")
	if !strings.Contains(convs, "you:  set a pasta timer for 3 seconds") {
		t.Errorf("conversations:\n%s", convs)
	}
	if out := cli("", "logs", "-n", "5"); len(strings.Split(strings.TrimSpace(out), "\n")) != 5 {
		t.Errorf("logs -n 5:\n%s", out)
	}
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}

	// With the daemon gone, the same commands open the directory themselves.
	if out := cli("", "secrets", "list"); out != "HA_TOKEN\n" {
		t.Errorf("secrets list without a daemon: %q", out)
	}
	if out := cli("", "status"); !strings.HasPrefix(out, "hark run is not running") {
		t.Errorf("status without a daemon:\n%s", out)
	}
}

// silentHost is a model server that accepts connections and never answers.
func silentHost(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// TestReplyBudgetWithASilentServer: a server that accepts and never
// answers costs [ollama] reply_budget of silence, then the spoken "taking
// too long", through hark ask and through the simulation.
func TestReplyBudgetWithASilentServer(t *testing.T) {
	getenv := vars(map[string]string{"OLLAMA_HOST": silentHost(t), "HOME": t.TempDir()})
	cfg := writeConfig(t, "[ollama]\nreply_budget = \"1s\"\n[tts]\nengine = \"off\"\n")
	start := time.Now()
	code, out, errOut := ask(t, getenv, "ask", "--config", cfg, "--data", t.TempDir(), "who wrote the novel Dune and when was it published")
	took := time.Since(start)
	if code != 1 || !strings.Contains(out, "taking too long") {
		t.Errorf("ask: code %d, stdout %q, stderr %q; want the spoken sentence that the model is taking too long", code, out, errOut)
	}
	if lines := strings.Split(strings.TrimSpace(errOut), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "hint: ") || !strings.Contains(lines[0], "reply_budget") {
		t.Errorf("stderr %q: want one hint naming reply_budget, not the error again", errOut)
	}
	if took > 10*time.Second { // a bound on a loaded machine, not a speed target: the old path took 82 s
		t.Errorf("ask took %v with a 1 s budget", took)
	}

	dir := t.TempDir()
	s := startRun(t, getenv, "--sim", "--data", dir, "--config", cfg)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	s.typeLine(t, "who wrote the novel Dune")
	s.out.waitFor(t, "hark: My language model is taking too long.", 1)
	s.out.waitFor(t, "[leds] ○ idle", 2)
	if code := s.quit(t); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestDiskFullUnderARunningDaemon fills a small tmpfs holding the data
// directory under hark run: the daemon stays up, says once that its
// storage is full, refuses what it cannot store with that reason, still
// answers offline and still rings the timer set before.
func TestDiskFullUnderARunningDaemon(t *testing.T) {
	mnt := sharedtest.SmallDisk(t, "96m")
	dir := filepath.Join(mnt, "data")
	srv, _ := modelServer(t)
	getenv := vars(map[string]string{"OLLAMA_HOST": srv.URL, "HOME": t.TempDir()})
	cfg := writeConfig(t, "[tts]\nengine = \"off\"\n")
	s := startRun(t, getenv, "--sim", "--data", dir, "--config", cfg)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	cli := func(args ...string) (int, string, string) {
		var out, errOut output
		code := run(t.Context(), append(args, "--data", dir, "--config", cfg), env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: getenv})
		return code, out.String(), errOut.String()
	}
	if code, out, errOut := cli("ask", "set a timer for 12 seconds"); code != 0 || !strings.Contains(strings.ToLower(out), "timer") {
		t.Fatalf("timer: %d %q %q", code, out, errOut)
	}

	filler, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer filler.Close()
	mb := make([]byte, 1<<20)
	for {
		if _, err := filler.Write(mb); err != nil {
			break
		}
	}
	start := time.Now()
	s.out.waitFor(t, "My storage is full, so I can't remember anything new.", 1)
	t.Logf("disk full: the daemon said so %v after the filesystem filled", time.Since(start).Round(time.Millisecond))

	code, out, errOut := cli("ask", "remember that the spare key is under the blue pot")
	if !strings.Contains(out+errOut, "full") {
		t.Errorf("remember on a full disk: %d %q %q; want the storage named as full", code, out, errOut)
	}
	if code, out, _ := cli("ask", "what's 12 times 4"); code != 0 || !strings.Contains(out, "48") {
		t.Errorf("an offline answer on a full disk: %d %q", code, out)
	}
	if code, out, _ := cli("secrets", "set", "HA_TOKEN"); code == 0 {
		t.Errorf("a secret stored on a full disk: %q", out)
	}
	s.out.waitFor(t, "ringing", 1) // the timer set before still rings
	if code, out, _ := cli("status"); code != 0 || !strings.Contains(out, "full") {
		t.Errorf("status on a full disk: %d\n%s", code, out)
	}
	if code := s.quit(t); code != 0 {
		t.Fatalf("hark run exited %d on a full disk", code)
	}
}
