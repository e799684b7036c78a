package main

import (
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
)

var testModel = ollamatest.Model{Name: "llama3.2:3b", Family: "llama", ParameterSize: "3.2B", Capabilities: []string{"completion", "tools"}}

// modelServer is an Ollama test server whose model answers the reply
// engine's helper calls by default and the chat from m's script.
func modelServer(t testing.TB) (*ollamatest.Server, *replytest.Model) {
	t.Helper()
	srv := ollamatest.New(testModel)
	t.Cleanup(srv.Close)
	m := replytest.New()
	srv.Respond(m.Respond)
	return srv, m
}

// chats are the chat calls (not the helper calls) the server saw.
func chats(srv *ollamatest.Server) []ollamatest.ChatRequest {
	var out []ollamatest.ChatRequest
	for _, c := range srv.Chats() {
		if replytest.KindOf(c) == replytest.Chat {
			out = append(out, c)
		}
	}
	return out
}

// output is a terminal the test can watch.
type output struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

// waitFor waits until the output holds want n times; the deadline only keeps
// a broken test from hanging.
func (o *output) waitFor(t *testing.T, want string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for strings.Count(o.String(), want) < n {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30s for %q (x%d); output so far:\n%s", want, n, o.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var ledLine = regexp.MustCompile(`(?m)^\[leds\] \S+ (\w+)`)

// leds is the sequence of LED states the simulation drew.
func (o *output) leds() []string { return ledsIn(o.String()) }

// ledsIn is the LED states text shows, in order.
func ledsIn(text string) []string {
	var out []string
	for _, m := range ledLine.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

func vars(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// session is `hark run` running in this process, its stdin a pipe.
type session struct {
	in   *io.PipeWriter
	out  *output
	done chan int
}

func startRun(t *testing.T, getenv func(string) string, args ...string) *session {
	t.Helper()
	pr, pw := io.Pipe()
	s := &session{in: pw, out: &output{}, done: make(chan int, 1)}
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		s.done <- run(ctx, append([]string{"run"}, args...), env{stdin: pr, stdout: s.out, stderr: s.out, getenv: getenv})
	}()
	t.Cleanup(func() {
		cancel()
		pw.Close()
		<-s.done
	})
	return s
}

func (s *session) typeLine(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// quit ends input and returns the exit code.
func (s *session) quit(t *testing.T) int {
	t.Helper()
	s.in.Close()
	select {
	case code := <-s.done:
		s.done <- code // for the cleanup
		return code
	case <-time.After(30 * time.Second):
		t.Fatalf("hark run did not stop after input ended; output:\n%s", s.out.String())
	}
	return -1
}

func writeConfig(t testing.TB, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hark.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// replies reads the reply files the simulated speaker wrote, oldest first.
func replies(t *testing.T, dir string) []pcm.Buffer {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "replies", "reply-*.wav"))
	var out []pcm.Buffer
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		b, err := pcm.ReadWAV(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, b)
	}
	return out
}

func loud(b pcm.Buffer) bool {
	var peak float32
	for _, v := range b.Samples {
		peak = max(peak, v, -v)
	}
	return peak > 0.05
}

// deadPort is a local address nothing listens on.
func deadPort(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func needEspeak(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("espeak-ng"); err != nil {
		t.Skip("espeak-ng is not installed (apt-get install espeak-ng); the simulated turn needs real speech")
	}
}
