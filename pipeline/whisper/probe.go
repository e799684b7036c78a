package whisper

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/harkbox/hark/internal/atomicfile"
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
	// Record, when set, is a file that remembers a model this process
	// loaded after its probe passed, so the next start need not probe the
	// same model with the same program again: a box that reboots skips
	// a load and a transcription (on a Pi, seconds; emulated, a minute).
	// Loaded writes it once the daemon's own load worked; Probe takes it
	// back (renamed to Record.loading) while that load runs again, so a
	// load that kills the process leaves no record and the next start
	// probes. A file that cannot be written only means probing each time.
	Record string
}

// Probe runs the command for model and says why the model will not load:
// the child's own error, the signal that killed it, or the time it took.
func (p ProbeCommand) Probe(ctx context.Context, model string) error {
	if p.trusted(model) {
		return nil
	}
	err := p.run(ctx, model)
	if err == nil && p.Record != "" {
		if id, ok := p.identity(model); ok {
			// Taken as passed only once the daemon's own load works.
			atomicfile.Write(p.Record+".loading", id, 0o644)
		}
	}
	return err
}

// Loaded records that model, probed (or trusted) by Probe, has now loaded
// in this process too: the next start with the same model and program
// skips the probe.
func (p ProbeCommand) Loaded(model string) {
	if p.Record == "" {
		return
	}
	id, ok := p.identity(model)
	if !ok {
		return
	}
	if got, err := os.ReadFile(p.Record + ".loading"); err != nil || !bytes.Equal(got, id) {
		return
	}
	if os.Rename(p.Record+".loading", p.Record) == nil {
		atomicfile.SyncDir(filepath.Dir(p.Record))
	}
}

// trusted reports whether the record says this model passed with this
// program, and if so takes the record back for the load to come.
func (p ProbeCommand) trusted(model string) bool {
	if p.Record == "" {
		return false
	}
	id, ok := p.identity(model)
	if !ok {
		return false
	}
	got, err := os.ReadFile(p.Record)
	if err != nil || !bytes.Equal(got, id) {
		return false
	}
	// Taken back before the load: if the load kills the process, the
	// next start finds no record and probes.
	if os.Rename(p.Record, p.Record+".loading") != nil || atomicfile.SyncDir(filepath.Dir(p.Record)) != nil {
		return false
	}
	return true
}

// identity is what a record holds: the model file and the program that
// loads it, each by path, size, modification time, device and inode, so a
// model or a program replaced (a new download, a rebuild) is probed again,
// and so is the same path on the other slot after an update (another
// device, however alike the two files are).
func (p ProbeCommand) identity(model string) ([]byte, bool) {
	type file struct {
		Path   string `json:"path"`
		Size   int64  `json:"size"`
		MTime  int64  `json:"mtime_ns"`
		Device uint64 `json:"device"`
		Inode  uint64 `json:"inode"`
	}
	stat := func(path string) (file, bool) {
		fi, err := os.Stat(path)
		if err != nil {
			return file{}, false
		}
		f := file{Path: path, Size: fi.Size(), MTime: fi.ModTime().UnixNano()}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			f.Device, f.Inode = uint64(st.Dev), st.Ino
		}
		return f, true
	}
	m, ok1 := stat(model)
	prog, ok2 := stat(p.Path)
	if !ok1 || !ok2 {
		return nil, false
	}
	b, err := json.Marshal(struct {
		Model   file     `json:"model"`
		Program file     `json:"program"`
		Args    []string `json:"args"`
	}{m, prog, p.Args})
	return append(b, '\n'), err == nil
}

// run probes model in a child process.
func (p ProbeCommand) run(ctx context.Context, model string) error {
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
