package update

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestStateSchedule(t *testing.T) {
	s := State{Dir: filepath.Join(t.TempDir(), "updates")}
	now := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	if due, _, _ := s.Due(24*time.Hour, now); !due {
		t.Error("never checked: not due")
	}
	if due, _, _ := s.Due(0, now); due {
		t.Error("every = 0 (by hand only): due")
	}
	if err := s.Checked(now); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		at        time.Time
		due       bool
		ago, next time.Duration
	}{
		{now.Add(time.Hour), false, time.Hour, 23 * time.Hour},
		{now.Add(24 * time.Hour), true, 0, 0},
		{now.Add(-time.Hour), true, 0, 0}, // the clock went back: ask
	}
	for _, tt := range tests {
		due, ago, next := s.Due(24*time.Hour, tt.at)
		if due != tt.due || ago != tt.ago || next != tt.next {
			t.Errorf("at %v: %v %v %v, want %v %v %v", tt.at, due, ago, next, tt.due, tt.ago, tt.next)
		}
	}
}

func TestStateRecordIsDurableAndReadBack(t *testing.T) {
	s := State{Dir: t.TempDir()}
	if _, ok := s.Last(); ok {
		t.Error("a result before any install")
	}
	r := Record{Time: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC), Source: "http://updates.lan/manifest.json", Version: "1.3.0"}
	if err := s.Keep(r); err != nil {
		t.Fatal(err)
	}
	if got, ok := s.Last(); !ok || got != r {
		t.Errorf("read back %+v, want %+v", got, r)
	}
	// Replaced whole, never torn; no temporary file left.
	r2 := Record{Time: r.Time.Add(time.Hour), Source: "bundle.raucb", Error: "update: bundle is version 0.9.0"}
	s.Keep(r2)
	if got, _ := s.Last(); got != r2 {
		t.Errorf("after a second install: %+v", got)
	}
	entries, _ := os.ReadDir(s.Dir)
	if len(entries) != 1 {
		t.Errorf("%d files in the state directory, want 1", len(entries))
	}
}

func TestBar(t *testing.T) {
	var log bytes.Buffer
	b := NewBar(&log, false)
	for pct := 0; pct <= 100; pct += 5 {
		b.Show(Progress{Stage: "download", Percent: pct, Done: int64(pct) * 1e6, Total: 100e6})
	}
	b.Show(Progress{Stage: "install", Percent: 100, Message: "Installing done."})
	b.End()
	lines := strings.Split(strings.TrimSpace(log.String()), "\n")
	if len(lines) != 12 || lines[0] != "downloading 0% 0.0 MB of 100.0 MB" || lines[11] != "installing 100% Installing done." {
		t.Errorf("a line per tenth, then the install:\n%s", log.String())
	}
	var tty bytes.Buffer
	b = NewBar(&tty, true)
	b.Show(Progress{Stage: "download", Percent: 50, Done: 5e6, Total: 10e6})
	b.End()
	if got := tty.String(); !strings.HasPrefix(got, "\r\033[Kdownloading [###############               ]  50% 5.0 MB of 10.0 MB") || !strings.HasSuffix(got, "\n") {
		t.Errorf("terminal bar %q", got)
	}
}

func TestRestartPolicies(t *testing.T) {
	var did []string
	a := &Agent{
		Idle:   func(context.Context) error { did = append(did, "waited for idle"); return nil },
		Reboot: func(context.Context) error { did = append(did, "rebooted"); return nil },
	}
	for _, tt := range []struct {
		p    Reboot
		want string
	}{
		{RebootNever, ""},
		{RebootNow, "rebooted"},
		{RebootWhenIdle, "waited for idle, rebooted"},
	} {
		did = nil
		if err := a.Restart(t.Context(), tt.p); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(did, ", "); got != tt.want {
			t.Errorf("policy %d: %q, want %q", tt.p, got, tt.want)
		}
	}
	if err := (&Agent{}).Restart(t.Context(), RebootNow); err == nil || !strings.Contains(err.Error(), "no way to reboot") {
		t.Errorf("no reboot configured: %v", err)
	}
}

func TestStateFailedBoot(t *testing.T) {
	s := State{Dir: filepath.Join(t.TempDir(), "updates")}
	if _, ok := s.LastFailedBoot(); ok {
		t.Fatal("a failed boot check before any was kept")
	}
	want := BootCheck{Time: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC), Slot: "B", Version: "1.0.1", Reason: "speech-to-text: model not found"}
	if err := s.FailedBoot(want); err != nil {
		t.Fatal(err)
	}
	got, ok := s.LastFailedBoot()
	if !ok || got != want {
		t.Errorf("LastFailedBoot() = %+v, %v; want %+v", got, ok, want)
	}
}

func TestSlotFromCmdline(t *testing.T) {
	tests := []struct{ cmdline, want string }{
		{"console=ttyAMA0 root=/dev/mmcblk0p3 rootfstype=ext4 ro rootwait rauc.slot=B\n", "B"},
		{"root=/dev/mmcblk0p2 rauc.slot=A", "A"},
		{"root=/dev/sda1 ro quiet", ""},
	}
	for _, tt := range tests {
		if got := SlotFromCmdline(tt.cmdline); got != tt.want {
			t.Errorf("SlotFromCmdline(%q) = %q, want %q", tt.cmdline, got, tt.want)
		}
	}
}

// TestStateDirTakesTheDataDirsOwner: the boot check (root) is first to
// write the update directory inside the daemon's data directory; it must
// stay the daemon's to download into. A box where root made it before is
// mended at the next write.
func TestStateDirTakesTheDataDirsOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to stand for the boot check")
	}
	const daemon = 65534 // stands for the hark user
	data := filepath.Join(t.TempDir(), "hark")
	if err := os.Mkdir(data, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(data, daemon, daemon); err != nil {
		t.Fatal(err)
	}
	owner := func(dir string) uint32 {
		st, err := os.Stat(dir)
		if err != nil {
			t.Fatal(err)
		}
		return st.Sys().(*syscall.Stat_t).Uid
	}
	st := State{Dir: filepath.Join(data, "updates")}
	if err := st.Proven(Slot{Name: "rootfs.0", BootName: "A", State: "booted"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if got := owner(st.Dir); got != daemon {
		t.Errorf("the boot check made %s owned by uid %d; want the data directory's, %d", st.Dir, got, daemon)
	}
	if err := os.Chown(st.Dir, 0, 0); err != nil { // as a box from before left it
		t.Fatal(err)
	}
	if err := st.FailedBoot(BootCheck{Time: time.Now(), Slot: "B", Version: "1.1.0", Reason: "no"}); err != nil {
		t.Fatal(err)
	}
	if got := owner(st.Dir); got != daemon {
		t.Errorf("a root-owned %s was not given back at the next write: uid %d", st.Dir, got)
	}
	// Root's own directory stays root's.
	mine := State{Dir: filepath.Join(t.TempDir(), "updates")}
	if err := mine.FailedBoot(BootCheck{Time: time.Now(), Slot: "B", Version: "1.1.0", Reason: "no"}); err != nil {
		t.Fatal(err)
	}
	if got := owner(mine.Dir); got != 0 {
		t.Errorf("%s in root's own directory went to uid %d", mine.Dir, got)
	}
}
