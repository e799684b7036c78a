package update

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/harkbox/hark/internal/atomicfile"
)

// State is what the update agent remembers between runs, in its download
// directory: when the server was last asked, and what the last install did.
// Every write is atomic and durable: a power cut leaves the old record or
// the new one.
type State struct {
	Dir string
}

const (
	lastCheckFile  = "last-check"
	lastResultFile = "last-result.json"
	failedBootFile = "failed-boot-check.json"
)

// Record is what an install did, for hark update status.
type Record struct {
	Time    time.Time `json:"time"`
	Source  string    `json:"source"`
	Version string    `json:"version,omitempty"`
	Error   string    `json:"error,omitempty"`
}

// BootCheck is a boot health check that failed: the slot it ran on was
// not marked good, and once that slot's boot attempts are spent the boot
// loader goes back to the other one. hark update status shows the last.
type BootCheck struct {
	Time    time.Time `json:"time"`
	Slot    string    `json:"slot"`    // the boot name, "A" or "B"
	Version string    `json:"version"` // of the hark that ran the check
	Reason  string    `json:"reason"`
}

// SlotFromCmdline is the slot the boot loader started, from rauc.slot= on
// the kernel command line (as /proc/cmdline reads); "" without one.
func SlotFromCmdline(cmdline string) string {
	for _, f := range strings.Fields(cmdline) {
		if v, ok := strings.CutPrefix(f, "rauc.slot="); ok {
			return v
		}
	}
	return ""
}

// FailedBoot keeps the record of a failed boot check.
func (s State) FailedBoot(c BootCheck) error { return s.writeJSON(failedBootFile, c) }

// LastFailedBoot is the last failed boot check; false when none is
// recorded.
func (s State) LastFailedBoot() (BootCheck, bool) {
	var c BootCheck
	if !s.readJSON(failedBootFile, &c) {
		return BootCheck{}, false
	}
	return c, true
}

// Due reports whether a scheduled check should ask the server now: every
// is the interval (0: never automatically), and when it should not, how
// long ago the last check was and how long until the next.
func (s State) Due(every time.Duration, now time.Time) (due bool, ago, next time.Duration) {
	if every == 0 {
		return false, 0, 0
	}
	last, ok := s.LastCheck()
	if !ok || now.Sub(last) >= every || now.Before(last) {
		return true, 0, 0
	}
	return false, now.Sub(last), every - now.Sub(last)
}

// LastCheck is when the server was last asked.
func (s State) LastCheck() (time.Time, bool) {
	b, err := os.ReadFile(filepath.Join(s.Dir, lastCheckFile))
	if err != nil {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339, string(trimNewline(b)))
	return t, err == nil
}

// Checked records that the server was asked at now.
func (s State) Checked(now time.Time) error {
	return s.write(lastCheckFile, []byte(now.UTC().Format(time.RFC3339)+"\n"))
}

// Keep keeps the record of an install.
func (s State) Keep(r Record) error { return s.writeJSON(lastResultFile, r) }

// Last is the last install's result; false when none is recorded.
func (s State) Last() (Record, bool) {
	var r Record
	if !s.readJSON(lastResultFile, &r) {
		return Record{}, false
	}
	return r, true
}

// writeJSON keeps v as the file name.
func (s State) writeJSON(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("update: record %s: %w", name, err)
	}
	return s.write(name, append(b, '\n'))
}

// readJSON reads the file name into v; false when it is missing or
// unreadable.
func (s State) readJSON(name string, v any) bool {
	b, err := os.ReadFile(filepath.Join(s.Dir, name))
	return err == nil && json.Unmarshal(b, v) == nil
}

// remove forgets the record name.
func (s State) remove(name string) error {
	if err := os.Remove(filepath.Join(s.Dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("update: state: %w", err)
	}
	return atomicfile.SyncDir(s.Dir)
}

func (s State) write(name string, b []byte) error {
	if err := makeDir(s.Dir); err != nil {
		return fmt.Errorf("update: state: %w", err)
	}
	return atomicfile.Write(filepath.Join(s.Dir, name), b, 0o644)
}

// makeDir makes dir, the downloads' and the state's. The boot check runs
// as root and the daemon as its own user, and either may be first to make
// it: made by root (now, or on a box from before this was mended) inside
// the daemon's data directory, it takes that directory's owner, so that
// the daemon can still download into it and write its state.
func makeDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if os.Geteuid() != 0 {
		return nil
	}
	parent, err := os.Stat(filepath.Dir(dir))
	if err != nil {
		return nil
	}
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	p, d := parent.Sys().(*syscall.Stat_t), st.Sys().(*syscall.Stat_t)
	if d.Uid != 0 || p.Uid == 0 {
		return nil
	}
	if err := os.Chown(dir, int(p.Uid), int(p.Gid)); err != nil {
		return fmt.Errorf("give %s to the owner of %s: %w", dir, filepath.Dir(dir), err)
	}
	return nil
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}

// Reboot says when the box reboots into an installed update.
type Reboot int

// The reboot policies.
const (
	// RebootWhenIdle waits until the speaker is idle: no conversation, no
	// alert ringing.
	RebootWhenIdle Reboot = iota
	// RebootNow reboots at once, even mid-conversation.
	RebootNow
	// RebootNever leaves the new version for the next boot.
	RebootNever
)

// Restart reboots into an installed update as p says.
func (a *Agent) Restart(ctx context.Context, p Reboot) error {
	switch p {
	case RebootNever:
		return nil
	case RebootNow:
		if a.Reboot == nil {
			return errors.New("update: reboot: no way to reboot configured")
		}
		return a.Reboot(ctx)
	}
	return a.RebootWhenIdle(ctx)
}
