package whisper

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// ProbeCommand loads a model in a process of its own before the daemon
// does: whisper.cpp aborts the whole process (GGML_ASSERT) or hangs on some
// corrupt models that no check of the file catches, and a child that dies
// or overruns costs the box nothing. The command is Path Args... MODEL; it
// must load the model and transcribe a little silence (ProbeChild), and
// exit 0 when that worked, or print why not and exit non-zero.
type ProbeCommand struct {
	Path string
	Args []string
	// Env is added to this process's environment.
	Env []string
	// Timeout bounds the load and the transcription; default 60 s (a
	// large model on a Pi Zero 2 W loads in about 10 s).
	Timeout time.Duration
}

// Probe runs the command for model and says why the model will not load:
// the child's own error, the signal that killed it, or the time it took.
func (p ProbeCommand) Probe(ctx context.Context, model string) error {
	timeout := p.Timeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, p.Path, append(append([]string{}, p.Args...), model)...)
	cmd.Env = append(cmd.Environ(), p.Env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	if err == nil {
		return nil
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("whisper: model %s: loading it did not finish within %v in a test process; it is corrupt or too big for this box", model, timeout)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return fmt.Errorf("whisper: model %s is corrupt: whisper.cpp crashed loading it in a test process (%v)%s", model, ws.Signal(), lastLine(out.String(), ": "))
		}
		if msg := lastLine(out.String(), ""); msg != "" {
			return errors.New(msg)
		}
		return fmt.Errorf("whisper: model %s did not load in a test process (%v)", model, err)
	}
	return fmt.Errorf("whisper: testing model %s: %w", model, err)
}

// lastLine is the last non-empty line of s, after prefix; empty without one.
func lastLine(s, prefix string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return prefix + l
	}
	return ""
}
