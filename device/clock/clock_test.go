package clock

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func TestSimBootsBehindAndSyncs(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		boot := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
		c := NewSim(boot)
		if !c.Now().Equal(boot) || c.Synced() {
			t.Fatalf("booted at %v synced %v, want %v not synced", c.Now(), c.Synced(), boot)
		}
		ch := c.Changed()
		time.Sleep(15 * time.Second)
		if closed(ch) {
			t.Fatal("changed without a step")
		}
		if got := c.Now().Sub(boot); got != 15*time.Second {
			t.Errorf("15 s later it reads %v after boot", got)
		}
		line, err := c.Command("sync", time.UTC)
		if err != nil || !closed(ch) || !c.Synced() || !c.Now().Equal(time.Now()) {
			t.Fatalf("/clock sync: %q %v; synced %v at %v", line, err, c.Synced(), c.Now())
		}
		if !strings.HasSuffix(line, ", synchronised") {
			t.Errorf("/clock sync says %q", line)
		}
		ch = c.Changed()
		if _, err := c.Command("1970-01-01T00:00:05Z", time.UTC); err != nil || !closed(ch) || c.Synced() || c.Now().Unix() != 5 {
			t.Errorf("/clock 1970-01-01T00:00:05Z: %v; synced %v at %v", err, c.Synced(), c.Now())
		}
		if _, err := c.Command("tomorrow", time.UTC); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
			t.Errorf("/clock tomorrow: %v", err)
		}
		if z := NewSim(time.Time{}); !z.Synced() || time.Until(z.Now()) != 0 {
			t.Error("a sim without a boot time is not the computer's clock, synchronised")
		}
	})
}

func TestStep(t *testing.T) {
	w := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		wall1   time.Time
		elapsed time.Duration
		want    time.Duration
	}{
		{w.Add(5 * time.Second), 5 * time.Second, 0},
		{w.Add(2 * 365 * 24 * time.Hour), 5 * time.Second, 2*365*24*time.Hour - 5*time.Second},
		{w.Add(-time.Hour), 5 * time.Second, -time.Hour - 5*time.Second},
	} {
		if got := Step(w, tc.wall1, tc.elapsed); got != tc.want {
			t.Errorf("Step to %v after %v: got %v, want %v", tc.wall1, tc.elapsed, got, tc.want)
		}
	}
}

// TestSystemFollowsTimesyncd: where timesyncd runs, the clock is set once
// its flag appears, and watchers learn it within Poll.
func TestSystemFollowsTimesyncd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "timesync")
		os.Mkdir(dir, 0o755)
		flag := filepath.Join(dir, "synchronized")
		c := NewSystem(SystemOptions{Flag: flag, Poll: 5 * time.Second})
		c.watch = false
		if c.Synced() {
			t.Fatal("set before timesyncd's flag")
		}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); c.Run(ctx) }()
		ch := c.Changed()
		os.WriteFile(flag, nil, 0o644)
		time.Sleep(5 * time.Second)
		synctest.Wait()
		if !closed(ch) || !c.Synced() {
			t.Errorf("5 s after the flag: changed %v, synced %v", closed(ch), c.Synced())
		}
		ch = c.Changed()
		time.Sleep(time.Minute)
		synctest.Wait()
		if closed(ch) {
			t.Error("changed with nothing changing")
		}
		cancel()
		<-done
		if !NewSystem(SystemOptions{Flag: filepath.Join(t.TempDir(), "none", "synchronized"), Trust: true}).Synced() {
			t.Error("a trusted clock is not set")
		}
	})
}

// TestWatchStepsStops: the kernel's notice of clock steps is armed, and
// its reader ends with ctx. (Setting the clock, which fires it, needs
// CAP_SYS_TIME and would change this machine's time: not done here.)
func TestWatchStepsStops(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	done, err := watchSteps(ctx, make(chan struct{}, 1))
	if err != nil {
		t.Skipf("no timerfd here: %v", err)
	}
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the timerfd reader did not end with its context")
	}
}

func TestKeepAndLoadTheRecord(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		if r, err := Load(dir); err != nil || !r.Alive.IsZero() {
			t.Fatalf("no record: %+v %v", r, err)
		}
		c := NewSim(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); Keep(ctx, dir, c, time.Minute, nil) }()
		time.Sleep(90 * time.Second)
		synctest.Wait()
		if r, _ := Load(dir); !r.Alive.Equal(time.Date(2024, 1, 1, 0, 1, 0, 0, time.UTC)) || r.Synced {
			t.Errorf("after 90 s: %+v, want the minute's record, not synced", r)
		}
		c.Sync()
		synctest.Wait()
		if r, _ := Load(dir); !r.Alive.Equal(time.Now().UTC()) || !r.Synced {
			t.Errorf("after the sync: %+v, want it written at once", r)
		}
		time.Sleep(10 * time.Second)
		cancel()
		<-done
		if r, _ := Load(dir); !r.Alive.Equal(time.Now().UTC()) {
			t.Errorf("at the stop: %+v, want the last moment", r)
		}
	})
}

// TestKeepWhenWritesFailLogsOnce: a data directory that cannot be
// written (here a file where the directory should be: writes fail even for
// root) is logged once, not every minute.
func TestKeepWhenWritesFailLogsOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "data")
		os.WriteFile(dir, nil, 0o644)
		var log strings.Builder
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() {
			defer close(done)
			Keep(ctx, dir, NewSim(time.Time{}), time.Minute, slog.New(slog.NewTextHandler(&log, nil)))
		}()
		time.Sleep(10 * time.Minute)
		cancel()
		<-done
		if n := strings.Count(log.String(), "cannot keep the uptime record"); n != 1 {
			t.Errorf("logged %d times:\n%s", n, log.String())
		}
	})
}

func TestRestore(t *testing.T) {
	last := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	fail := errors.New("operation not permitted")
	for _, tc := range []struct {
		name string
		rec  Record
		now  time.Time
		err  error
		want time.Time
	}{
		{"booted behind", Record{Alive: last}, time.Unix(5, 0), nil, last},
		{"ahead of the record", Record{Alive: last}, last.Add(time.Hour), nil, time.Time{}},
		{"no record", Record{}, time.Unix(5, 0), nil, time.Time{}},
		{"no permission", Record{Alive: last}, time.Unix(5, 0), fail, time.Time{}},
	} {
		var set time.Time
		got, err := restore(tc.rec, tc.now, func(t time.Time) error { set = t; return tc.err })
		if !got.Equal(tc.want) || !errors.Is(err, tc.err) {
			t.Errorf("%s: got %v, %v; want %v, %v", tc.name, got, err, tc.want, tc.err)
		}
		if tc.err == nil && !set.Equal(tc.want) {
			t.Errorf("%s: set the clock to %v, want %v", tc.name, set, tc.want)
		}
	}
}

func TestFollowReportsSteps(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := NewSim(time.Unix(5, 0))
		var steps []time.Duration
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); Follow(ctx, c, func(s time.Duration) { steps = append(steps, s) }) }()
		synctest.Wait()
		time.Sleep(20 * time.Second)
		real := time.Date(2026, 5, 10, 12, 0, 0, 0, time.UTC)
		c.Step(real, true)
		synctest.Wait()
		time.Sleep(time.Minute)
		c.Step(real.Add(time.Minute), true) // only the same time, now set again
		synctest.Wait()
		cancel()
		<-done
		if want := real.Sub(time.Unix(25, 0)); len(steps) != 2 || steps[0] != want || steps[1] != 0 {
			t.Errorf("steps %v, want [%v 0s]", steps, want)
		}
	})
}

// TestLastAliveIsOnASetClock: the box ran to 12:00 on a set clock and lost
// power; it comes back with its clock restored to 12:00 and no NTP yet,
// runs on to 12:20 on that unset clock, and restarts. A timer due at 12:05
// waited for the real clock all that time and never rang: the next start
// must compare it with 12:00, not 12:20, or take it for one that rang.
// Restoring the clock still uses the latest reading.
func TestLastAliveIsOnASetClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		noon := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		keep := func(c *Sim, d time.Duration) {
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan struct{})
			go func() { defer close(done); Keep(ctx, dir, c, time.Minute, nil) }()
			time.Sleep(d)
			cancel()
			<-done
		}
		set := NewSim(noon.Add(-time.Hour))
		set.Step(noon.Add(-time.Hour), true)
		keep(set, time.Hour)
		if r, _ := Load(dir); !r.LastAlive().Equal(noon) {
			t.Fatalf("on a set clock: %+v, last alive %v; want noon", r, r.LastAlive())
		}
		for _, run := range []time.Duration{20 * time.Minute, 5 * time.Minute} {
			r, _ := Load(dir)
			keep(NewSim(r.Alive), run) // restored, never set
		}
		r, _ := Load(dir)
		if !r.Alive.Equal(noon.Add(25*time.Minute)) || r.Synced {
			t.Errorf("after two runs on an unset clock: %+v; want alive at 12:25, not synced", r)
		}
		if !r.LastAlive().Equal(noon) {
			t.Errorf("last alive on a set clock %v; want noon", r.LastAlive())
		}
	})
	// A record from before AliveSynced was kept, written on an unset
	// clock, tells nothing.
	if r := (Record{Alive: time.Now()}); !r.LastAlive().IsZero() {
		t.Errorf("an old unsynced record's last alive %v; want unknown", r.LastAlive())
	}
}

// TestRecordContinues: a record written on a clock continues on that
// clock (a daemon restart in the same boot), not on a new one (a reboot),
// nor when written before the boot was kept.
func TestRecordContinues(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		c := NewSim(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); Keep(ctx, dir, c, time.Minute, nil) }()
		time.Sleep(time.Minute)
		cancel()
		<-done
		r, err := Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if !r.Continues(c) {
			t.Errorf("record %+v does not continue on the clock it was written on", r)
		}
		if r.Continues(NewSim(r.Alive)) {
			t.Errorf("record %+v continues on a clock booted anew", r)
		}
		if (Record{Alive: r.Alive}).Continues(c) {
			t.Error("a record with no boot continues")
		}
	})
	if b := NewSystem(SystemOptions{}).Boot(); b == "" {
		t.Logf("no boot id here (%s)", BootIDFile)
	} else if b != NewSystem(SystemOptions{}).Boot() {
		t.Error("the system's boot id changes between reads")
	}
}
