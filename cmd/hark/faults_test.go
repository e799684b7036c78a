package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/ext4test"
)

// The contract for tests outside the project (issue 36): `hark run --sim`
// on a data partition that fails as a household's card does. Each test
// runs the real binary.

// boxProcess is `hark run --sim` as a process: its screen, each line with
// the time it appeared, and its commands.
type boxProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	cfg   string
	env   []string

	mu     sync.Mutex
	lines  []screenLine
	exited chan error
}

type screenLine struct {
	at   time.Time
	text string
}

// startBox runs the binary on dir with the configuration text and the
// model server at model ("": a port nothing listens on; timers and the
// time need none).
func startBox(t *testing.T, dir, config, model string) *boxProcess {
	t.Helper()
	bin := harkBinary(t)
	cfg := filepath.Join(t.TempDir(), "hark.toml")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	if model == "" {
		model = deadPort(t)
	}
	b := &boxProcess{cfg: cfg, exited: make(chan error, 1),
		env: []string{"OLLAMA_HOST=" + model, "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}}
	b.cmd = exec.Command(bin, "run", "--sim", "--config", cfg, "--data", dir)
	b.cmd.Env = b.env
	b.stdin, _ = b.cmd.StdinPipe()
	out, _ := b.cmd.StdoutPipe()
	b.cmd.Stderr = b.cmd.Stdout
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			b.mu.Lock()
			b.lines = append(b.lines, screenLine{time.Now(), sc.Text()})
			b.mu.Unlock()
		}
		b.exited <- b.cmd.Wait()
	}()
	t.Cleanup(func() { b.cmd.Process.Kill() })
	b.waitFor(t, "[leds] ○ idle", 1, 60*time.Second)
	return b
}

func (b *boxProcess) screen() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var s strings.Builder
	for _, l := range b.lines {
		fmt.Fprintf(&s, "%s %s\n", l.at.Format("15:04:05.000"), l.text)
	}
	return s.String()
}

// waitFor returns when the n-th line holding want appeared; the timeout
// only keeps a broken test from hanging.
func (b *boxProcess) waitFor(t *testing.T, want string, n int, timeout time.Duration) time.Time {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		b.mu.Lock()
		seen := 0
		for _, l := range b.lines {
			if strings.Contains(l.text, want) {
				if seen++; seen == n {
					b.mu.Unlock()
					return l.at
				}
			}
		}
		b.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("no %q (x%d) within %v; the screen:\n%s", want, n, timeout, b.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// say types a line as the user would say it.
func (b *boxProcess) say(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(b.stdin, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// cli runs another hark command against the running box.
func (b *boxProcess) cli(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(harkBinary(t), append(args, "--config", b.cfg)...)
	cmd.Env = b.env
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// storageLine is the storage line of `hark status`.
func (b *boxProcess) storageLine(t *testing.T) string {
	t.Helper()
	out := b.cli(t, "status")
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[1] == "storage" {
			return l
		}
	}
	t.Fatalf("hark status has no storage line:\n%s", out)
	return ""
}

// stop sends SIGTERM and returns how long the box took to end.
func (b *boxProcess) stop(t *testing.T) time.Duration {
	t.Helper()
	began := time.Now()
	b.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-b.exited:
		return time.Since(began)
	case <-time.After(30 * time.Second):
		t.Fatalf("the box did not end within 30 s of SIGTERM; the screen:\n%s", b.screen())
	}
	return 0
}

// boxConfig keeps the control socket off the data partition (a card that
// turned read-only still serves it, but a restart could not make it), the
// page off, and the data partition's mount point checked.
func boxConfig(t *testing.T, mount string) string {
	return fmt.Sprintf("control_socket = %q\n[web]\nlisten = \"\"\n[tts]\nengine = \"off\"\n[storage]\nmount = %q\n",
		filepath.Join(t.TempDir(), "control.sock"), mount)
}

func near(got, want time.Duration) bool { return got > want-5*time.Second && got < want+5*time.Second }

// The card turns read-only under a running box: a 1-minute timer set
// before and a 30-second one set after both ring on time (± 5 s), the box
// says it cannot save, the status's storage line is not ok, and SIGTERM
// ends the box within 10 s.
func TestContractReadOnlyCard(t *testing.T) {
	if testing.Short() {
		t.Skip("a minute of real time: not in -short")
	}
	if !ext4test.InNamespace(t) {
		return
	}
	root := t.TempDir()
	card := ext4test.Mount(t, ext4test.Make(t, 128<<20), filepath.Join(root, "data"))
	b := startBox(t, filepath.Join(card.Dir, "hark"), boxConfig(t, card.Dir), "")

	b.say(t, "set a pasta timer for 1 minute")
	setPasta := b.waitFor(t, "Pasta timer set", 1, 30*time.Second)
	b.waitFor(t, "[leds] ○ idle", 2, 30*time.Second)

	broke := time.Now()
	card.Break(t)
	told := b.waitFor(t, "I can't save anything right now", 1, 30*time.Second)
	t.Logf("figure: the box told the user %v after the card turned read-only", told.Sub(broke).Round(time.Millisecond))
	if line := b.storageLine(t); strings.HasPrefix(line, "ok") {
		t.Errorf("hark status on a read-only card: %q; want the storage line not ok", line)
	}

	b.say(t, "set a tea timer for 30 seconds")
	setTea := b.waitFor(t, "Tea timer set", 1, 30*time.Second)
	tea := b.waitFor(t, "Your tea timer is done", 1, 60*time.Second)
	if d := tea.Sub(setTea); !near(d, 30*time.Second) {
		t.Errorf("the tea timer set after the fault rang after %v; want 30 s ± 5 s", d)
	}
	b.say(t, "") // stops the ringing
	pasta := b.waitFor(t, "Your pasta timer is done", 1, 90*time.Second)
	if d := pasta.Sub(setPasta); !near(d, time.Minute) {
		t.Errorf("the pasta timer set before the fault rang after %v; want 1 min ± 5 s", d)
	}
	took := b.stop(t)
	t.Logf("figure: SIGTERM on a read-only card: the box ended in %v", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("SIGTERM took %v to end the box; want at most 10 s", took)
	}
}

// tableSums are the SHA-256 of the table files under dir.
func tableSums(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(d.Name(), ".sst") {
			b, _ := os.ReadFile(path)
			out[fmt.Sprintf("%x", sha256.Sum256(b))] = path
		}
		return err
	})
	return out
}

// stoppedBox is a data directory that a box used (a timer, a fact) and
// left, stopped: Badger wrote its table files.
func stoppedBox(t *testing.T) (dir string, config string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "data")
	config = boxConfig(t, "")
	b := startBox(t, dir, config, "")
	b.say(t, "set a pasta timer for 2 hours")
	b.waitFor(t, "Pasta timer set", 1, 30*time.Second)
	b.say(t, "remember that the spare key is under the blue pot")
	b.waitFor(t, "OK, I'll remember that", 1, 30*time.Second)
	b.waitFor(t, "[leds] ○ idle", 2, 30*time.Second)
	b.stop(t)
	if len(tableSums(t, dir)) == 0 {
		t.Fatal("the stopped box left no table file")
	}
	return dir, config
}

// A stopped box's MANIFEST deleted: it starts, every table file's bytes
// are still under the data directory, and the storage line is not ok.
func TestContractManifestDeleted(t *testing.T) {
	dir, config := stoppedBox(t)
	before := tableSums(t, dir)
	if err := os.Remove(filepath.Join(dir, "MANIFEST")); err != nil {
		t.Fatal(err)
	}
	b := startBox(t, dir, config, "")
	after := tableSums(t, dir)
	for sum, path := range before {
		if _, ok := after[sum]; !ok {
			t.Errorf("the bytes of %s are no longer under the data directory", filepath.Base(path))
		}
	}
	if line := b.storageLine(t); strings.HasPrefix(line, "ok") {
		t.Errorf("storage line after the MANIFEST was deleted: %q; want it not ok", line)
	}
	if out := b.cli(t, "timers"); !strings.Contains(out, "pasta") {
		t.Errorf("the pasta timer was not recovered:\n%s", out)
	}
	b.stop(t)
}

// Garbage in the MANIFEST: the box stays up, tells the time, rings a
// 5-second timer, its storage line is not ok, and the old MANIFEST's
// bytes are kept under the data directory.
func TestContractManifestGarbage(t *testing.T) {
	dir, config := stoppedBox(t)
	garbage := []byte("\x00\x13this is not Badger's MANIFEST\xff\xfe")
	if err := os.WriteFile(filepath.Join(dir, "MANIFEST"), garbage, 0o600); err != nil {
		t.Fatal(err)
	}
	b := startBox(t, dir, config, "")
	if line := b.storageLine(t); strings.HasPrefix(line, "ok") {
		t.Errorf("storage line with a garbage MANIFEST: %q; want it not ok", line)
	}
	b.say(t, "what time is it")
	b.waitFor(t, "hark: It's", 1, 30*time.Second)
	b.say(t, "set a tea timer for 5 seconds")
	set := b.waitFor(t, "Tea timer set", 1, 30*time.Second)
	rang := b.waitFor(t, "Your tea timer is done", 1, 30*time.Second)
	if d := rang.Sub(set); !near(d, 5*time.Second) {
		t.Errorf("the 5-second timer rang after %v", d)
	}
	kept := false
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == "MANIFEST" {
			if b, _ := os.ReadFile(path); bytes.Equal(b, garbage) {
				kept = true
			}
		}
		return err
	})
	if !kept {
		t.Error("the old MANIFEST's bytes are not under the data directory")
	}
	if took := b.stop(t); took > 10*time.Second {
		t.Errorf("SIGTERM took %v", took)
	}
}

// SIGTERM while a question waits on a model server that accepted the
// connection and says nothing: the box ends within 10 s, the turn
// abandoned.
func TestSIGTERMWhileTheModelIsSilent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	b := startBox(t, dir, boxConfig(t, ""), silentHost(t))
	b.say(t, "tell me a long story about the sea and its creatures")
	b.waitFor(t, "thinking", 1, 30*time.Second)
	took := b.stop(t)
	t.Logf("figure: SIGTERM while the model server is silent: the box ended in %v", took.Round(time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("SIGTERM took %v; want at most 10 s", took)
	}
}
