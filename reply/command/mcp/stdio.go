package mcp

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// baseEnv are the only variables of the daemon's environment a stdio
// server gets, enough to find programs, a home and a language; the rest
// (tokens, the daemon's own settings) reach a server only when its
// configuration names them.
var baseEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TMPDIR"}

// environ is a stdio server's environment: baseEnv from the daemon's, then
// the server's Env, where KEY=VALUE sets a variable and a bare KEY passes
// the daemon's own value on.
func environ(s Server, lookup func(string) (string, bool)) []string {
	var out []string
	set := func(k, v string) {
		for i, kv := range out {
			if strings.HasPrefix(kv, k+"=") {
				out[i] = k + "=" + v
				return
			}
		}
		out = append(out, k+"="+v)
	}
	for _, k := range baseEnv {
		if v, ok := lookup(k); ok {
			set(k, v)
		}
	}
	for _, e := range s.Env {
		if k, v, ok := strings.Cut(e, "="); ok {
			set(k, v)
		} else if v, ok := lookup(e); ok {
			set(e, v)
		}
	}
	return out
}

// grace is how long a stdio server has to exit once its input is closed,
// and again after SIGTERM, before it is killed.
const grace = 200 * time.Millisecond

// proc is a running stdio server: its pipes, its exit and the last line
// it wrote to standard error, which say why it died.
type proc struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *lineLog
	exited chan struct{}
	err    error // Wait's, once exited is closed

	closeOnce sync.Once
}

// startProc starts the server's command with its environment.
func startProc(s Server, log *slog.Logger) (*proc, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("mcp: %s: %w", s.Name, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, fmt.Errorf("mcp: %s: %w", s.Name, err)
	}
	p := &proc{stdin: inW, stdout: outR, stderr: &lineLog{log: log}, exited: make(chan struct{})}
	p.cmd = exec.Command(s.Command[0], s.Command[1:]...)
	p.cmd.Env = environ(s, os.LookupEnv)
	p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = inR, outW, p.stderr
	p.cmd.WaitDelay = time.Second // a grandchild holding stderr open does not hold Wait
	err = p.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("mcp: %s: start %s: %w", s.Name, s.Command[0], err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// transport is the SDK's view of the process: its standard output to
// read, its standard input to write, and closing as the protocol says:
// input closed, then SIGTERM, then SIGKILL.
func (p *proc) transport() sdk.Transport {
	return &sdk.IOTransport{Reader: p.stdout, Writer: (*procInput)(p)}
}

type procInput proc

func (w *procInput) Write(b []byte) (int, error) { return w.stdin.Write(b) }

func (w *procInput) Close() error {
	(*proc)(w).stop()
	return nil
}

// stop ends the process and waits for it.
func (p *proc) stop() {
	p.closeOnce.Do(func() {
		p.stdin.Close()
		for _, sig := range []os.Signal{nil, syscall.SIGTERM, os.Kill} {
			if sig != nil {
				p.cmd.Process.Signal(sig)
			}
			select {
			case <-p.exited:
				p.stdout.Close()
				return
			case <-time.After(grace):
			}
		}
		<-p.exited
		p.stdout.Close()
	})
}

// why says how the process ended, if it has within wait: its exit status
// and the last line of its standard error; "" while it runs.
func (p *proc) why(wait time.Duration) string {
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-p.exited:
	default:
		select {
		case <-p.exited:
		case <-t.C:
			return ""
		}
	}
	var parts []string
	var ee *exec.ExitError
	switch {
	case errors.As(p.err, &ee):
		parts = append(parts, "the server exited with "+ee.ProcessState.String())
	case p.err != nil:
		parts = append(parts, "the server ended: "+p.err.Error())
	default:
		parts = append(parts, "the server exited with exit status 0")
	}
	if line := p.stderr.last(); line != "" {
		parts = append(parts, "its last words: "+line)
	}
	return strings.Join(parts, "; ")
}

// lineLog logs a stdio server's standard error, line by line, and keeps
// the last line that was not blank.
type lineLog struct {
	log *slog.Logger

	mu       sync.Mutex
	buf      []byte
	lastLine string
}

func (w *lineLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.line(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) > 64<<10 { // a line that never ends
		w.line(string(w.buf))
		w.buf = w.buf[:0]
	}
	return len(p), nil
}

func (w *lineLog) line(s string) {
	w.log.Debug("mcp server says", "line", s)
	if s = strings.TrimSpace(s); s != "" {
		w.lastLine = clipSentence(s, 200)
	}
}

// last is the last line written, or what was written without a newline
// at the end.
func (w *lineLog) last() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if s := strings.TrimSpace(string(w.buf)); s != "" {
		return clipSentence(s, 200)
	}
	return w.lastLine
}
