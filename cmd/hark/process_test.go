package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/whisper"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
	"github.com/harkbox/hark/storage"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// harkBinary builds the real binary once for the tests that need a process.
func harkBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "hark-bin")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "hark")
		args := []string{"build", "-o", binPath}
		if whisper.Built() { // the same build as this test binary
			args = append(args, "-tags", "whisper")
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			buildErr = &buildFailure{string(out)}
		}
	})
	if buildErr != nil {
		t.Fatalf("build hark: %v", buildErr)
	}
	return binPath
}

type buildFailure struct{ out string }

func (b *buildFailure) Error() string { return b.out }

// TestSIGTERMKeepsTheDialogue runs the real process, has one exchange, stops
// it the way systemd does, and reopens the store.
func TestSIGTERMKeepsTheDialogue(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; cannot build the binary")
	}
	bin := harkBinary(t)
	srv, m := modelServer(t)
	m.On(replytest.Chat, ollamatest.Reply{Content: "Noted, the spare key is under the mat."})
	dir := t.TempDir()
	cmd := exec.Command(bin, "run", "--sim", "--data", dir)
	cmd.Env = []string{"OLLAMA_HOST=" + srv.URL, "HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var seen []string
	waitLine := func(prefix string) {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("hark exited before %q; output:\n%s", prefix, strings.Join(seen, "\n"))
				}
				seen = append(seen, l)
				if strings.HasPrefix(l, prefix) {
					return
				}
			case <-timeout:
				t.Fatalf("no %q within 30s; output:\n%s", prefix, strings.Join(seen, "\n"))
			}
		}
	}
	waitLine("[leds] ○ idle")
	io.WriteString(stdin, "the spare key is under the mat\n")
	waitLine("hark: Noted, the spare key is under the mat.")
	waitLine("[leds] ○ idle")

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() {
		for range lines { // drain so the process never blocks on output
		}
		exited <- cmd.Wait()
	}()
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("hark exited with %v after SIGTERM", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("hark did not exit within 30s of SIGTERM")
	}

	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatalf("reopen after SIGTERM: %v", err)
	}
	defer db.Close()
	got, err := db.Dialogue().Recent(t.Context(), time.Now().Add(-time.Hour), 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].User != "the spare key is under the mat" || got[0].Assistant != "Noted, the spare key is under the mat." {
		t.Errorf("after reopen the dialogue is %+v", got)
	}
}
