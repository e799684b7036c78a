package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

// TestDaemonMemorySoak runs the real daemon (hark run --sim, its own
// process) for 1,000 typed turns through the control socket's
// /api/v1/ask, answered by the scripted Ollama server, and prints its
// resident memory, goroutines and open files at turns 0, 200 and 1,000.
// The figures are printed, not asserted (memory depends on the machine);
// make soak runs it. HARK_SOAK_TURNS changes the count.
func TestDaemonMemorySoak(t *testing.T) {
	if os.Getenv("HARK_SOAK") == "" {
		t.Skip("a 1,000-turn soak: HARK_SOAK=1 (make soak) runs it")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH; cannot build the binary")
	}
	turns := 1000
	if n, err := strconv.Atoi(os.Getenv("HARK_SOAK_TURNS")); err == nil && n > 0 {
		turns = n
	}
	bin := harkBinary(t)
	srv, m := modelServer(t)
	m.Default(replytest.Chat, ollamatest.Reply{Content: "Paris is the capital of France, and it is lovely in spring."})
	dir := t.TempDir()
	sock := filepath.Join(dir, "control.sock")
	cfg := filepath.Join(dir, "hark.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("control_socket = %q\n[tts]\nengine = \"off\"\n[web]\nlisten = \"\"\n", sock)), 0o600)
	cmd := exec.Command(bin, "run", "--sim", "--data", dir, "--config", cfg)
	cmd.Env = []string{"OLLAMA_HOST=" + srv.URL, "HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	if v := os.Getenv("HARK_SOAK_ENV"); v != "" {
		cmd.Env = append(cmd.Env, strings.Fields(v)...) // e.g. GOMEMLIMIT=off to compare
	}
	stdin, _ := cmd.StdinPipe() // kept open: the simulation quits at the end of its input
	defer stdin.Close()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}()
	go func() { // drained, so the daemon never blocks on its output
		sc := bufio.NewScanner(out)
		for sc.Scan() {
		}
	}()
	logFile := filepath.Join(dir, "hark.log") // the simulation's log
	c := control.Dial(sock)
	ctx := context.Background()
	for end := time.Now().Add(30 * time.Second); ; {
		if _, err := c.Status(ctx); err == nil {
			break
		} else if time.Now().After(end) {
			t.Fatalf("the daemon's socket did not answer within 30 s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	questions := []string{"what is the capital of France", "tell me about Paris in spring", "and what about the weather there",
		"how far is it from Berlin", "what should I see first"}
	fmt.Printf("soak: %d turns through /api/v1/ask\n%6s %8s %9s %8s %11s %4s %9s\n", turns, "turn", "RSS MB", "Go sys MB", "heap MB", "goroutines", "fds", "CPU s")
	for i := 0; i <= turns; i++ {
		if i == 0 || i == 100 || i%200 == 0 {
			s := sample(t, cmd.Process.Pid, logFile)
			fmt.Printf("%6d %8.1f %9.1f %8.1f %11d %4d %9.2f\n", i, mb(s.rss), mb(s.goSys), mb(s.heap), s.goroutines, s.fds, s.cpu.Seconds())
		}
		if i == turns {
			break
		}
		q := fmt.Sprintf("%s (%d)", questions[i%len(questions)], i)
		if _, err := c.Ask(ctx, control.Question{Text: q}, func(string) {}); err != nil {
			t.Fatalf("turn %d: %v", i, err)
		}
	}
}

var (
	goroutinesRE = regexp.MustCompile(`goroutines=(\d+)`)
	goSysRE      = regexp.MustCompile(`go_sys_bytes=(\d+)`)
	heapRE       = regexp.MustCompile(`heap_alloc_bytes=(\d+)`)
)

// sample reads the daemon's resident memory and open files from /proc and
// its goroutines from the memory line SIGUSR1 makes it log.
func sample(t *testing.T, pid int, logFile string) (s soakSample) {
	t.Helper()
	lines := func() []string {
		b, _ := os.ReadFile(logFile)
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if strings.Contains(l, "msg=memory") {
				out = append(out, l)
			}
		}
		return out
	}
	before := len(lines())
	syscall.Kill(pid, syscall.SIGUSR1)
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if l := lines(); len(l) > before {
			last := l[len(l)-1]
			if m := goroutinesRE.FindStringSubmatch(last); m != nil {
				s.goroutines, _ = strconv.Atoi(m[1])
			}
			if m := goSysRE.FindStringSubmatch(last); m != nil {
				s.goSys, _ = strconv.ParseInt(m[1], 10, 64)
			}
			if m := heapRE.FindStringSubmatch(last); m != nil {
				s.heap, _ = strconv.ParseInt(m[1], 10, 64)
			}
			break
		}
		if time.Now().After(end) {
			t.Fatal("no memory line in hark.log within 10 s of SIGUSR1")
		}
	}
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			s.rss = kb << 10
		}
	}
	entries, _ := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	s.fds = len(entries)
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// utime and stime, the 14th and 15th fields, after the command's name
		if _, rest, ok := strings.Cut(string(b), ") "); ok {
			f := strings.Fields(rest)
			ut, _ := strconv.ParseInt(f[11], 10, 64)
			st, _ := strconv.ParseInt(f[12], 10, 64)
			s.cpu = time.Duration(ut+st) * time.Second / 100 // USER_HZ
		}
	}
	return s
}

// soakSample is the daemon at one moment: its resident memory, the Go
// runtime's memory and live heap, goroutines, open files and CPU time.
type soakSample struct {
	rss, goSys, heap int64
	goroutines, fds  int
	cpu              time.Duration // the daemon's, user and system
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }
