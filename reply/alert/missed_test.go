package alert

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// board is a board's wall clock under synctest: the bubble's time, set or
// not, as NTP sets it.
type board struct {
	mu      sync.Mutex
	synced  bool
	changed chan struct{}
}

func newBoard(synced bool) *board { return &board{synced: synced, changed: make(chan struct{})} }

func (c *board) Now() time.Time { return time.Now().Round(0) }

func (c *board) Synced() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.synced
}

func (c *board) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// sync sets the clock, as NTP does.
func (c *board) sync() {
	c.mu.Lock()
	c.synced = true
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

// start is one start of the box's alerts over the data directory dir on
// clk: the store, the service and its Run with a bell, until stop.
type start struct {
	db   *storage.DB
	svc  *Service
	bell *bell
	log  lockedWriter
	stop func()
}

// logged is what the service logged so far.
func (s *start) logged() string {
	s.log.mu.Lock()
	defer s.log.mu.Unlock()
	return s.log.w.String()
}

func startOver(t *testing.T, dir string, clk schedule.Clock) *start {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	log := lockedWriter{&sync.Mutex{}, &bytes.Buffer{}}
	svc, err := New(Options{
		Schedule: schedule.Options{Store: db.Schedule(), Clock: clk, Location: time.UTC, Log: slog.New(slog.NewTextHandler(log, nil))},
		Missed:   db.Missed(),
	})
	if err != nil {
		t.Fatal(err)
	}
	b := &bell{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx, b) }()
	s := &start{db: db, svc: svc, bell: b, log: log}
	s.stop = func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if err := db.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	}
	return s
}

// lockedWriter is a log's buffer, written and read from any goroutine.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// ringUnheard sets a tea timer of d on s and lets it ring, unheard: the
// bell reports it so, as the pipeline does when the speaker failed.
func ringUnheard(t *testing.T, s *start, d time.Duration) {
	t.Helper()
	if _, err := s.svc.AddTimer(t.Context(), "tea", d); err != nil {
		t.Fatal(err)
	}
	time.Sleep(d)
	synctest.Wait()
	rung, _ := s.bell.seen()
	if len(rung) != 1 {
		t.Fatalf("rang %+v, want the tea timer", rung)
	}
	rung[0].Unheard()
}

// TestUnheardAlertIsToldAfterARestart: a timer that rang unheard is handed
// to the next start's ringer to be told, saying when it went off; once it
// is told, a third start hands over nothing.
func TestUnheardAlertIsToldAfterARestart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		clk := newBoard(true)
		s := startOver(t, dir, clk)
		ringUnheard(t, s, 10*time.Minute) // at 00:10
		s.stop()

		time.Sleep(time.Hour)
		s = startOver(t, dir, clk)
		synctest.Wait()
		told := s.bell.toTell()
		const want = "While my speaker was gone, an alert went off at 12:10 AM: Your tea timer is done."
		if len(told) != 1 || told[0].Missed != want || told[0].Told == nil {
			t.Fatalf("handed to tell: %+v, want the tea timer: %q", told, want)
		}
		if rung, _ := s.bell.seen(); len(rung) != 0 {
			t.Errorf("rang %+v after the restart, want it only told", rung)
		}
		told[0].Told()
		s.stop()

		s = startOver(t, dir, clk)
		synctest.Wait()
		if told := s.bell.toTell(); len(told) != 0 {
			t.Errorf("a third start handed over %+v, want nothing: it was told", told)
		}
		s.stop()
	})
}

// TestUnheardAlertNotToldStays: an alert handed over but never told (the
// speaker is still gone, the voice failed) is handed over again at the
// next start; and one that rings unheard in this start is not handed over
// by it as one from before.
func TestUnheardAlertNotToldStays(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		clk := newBoard(true)
		s := startOver(t, dir, clk)
		ringUnheard(t, s, 10*time.Minute)
		synctest.Wait()
		if told := s.bell.toTell(); len(told) != 0 {
			t.Errorf("the start that rang it handed over %+v", told)
		}
		s.stop()
		for range 2 {
			s = startOver(t, dir, clk)
			synctest.Wait()
			if told := s.bell.toTell(); len(told) != 1 {
				t.Errorf("handed over %+v, want the tea timer, never told", told)
			}
			s.stop()
		}
	})
}

// TestOldUnheardAlertIsDropped: after a restart an alert that went off
// within MissedFor is told, as yesterday's when the day has changed; one
// that went off longer ago is dropped with a log line and forgotten.
func TestOldUnheardAlertIsDropped(t *testing.T) {
	for _, tc := range []struct {
		off  time.Duration // how long the box was off
		want string        // handed to tell; "" none
	}{
		{3 * time.Hour, "While my speaker was gone, an alert went off yesterday at 10:10 PM: Your tea timer is done."},
		{MissedFor + time.Minute, ""},
	} {
		t.Run(tc.off.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				dir := t.TempDir()
				clk := newBoard(true)
				time.Sleep(22 * time.Hour)
				s := startOver(t, dir, clk)
				ringUnheard(t, s, 10*time.Minute) // at 22:10
				s.stop()
				time.Sleep(tc.off)
				s = startOver(t, dir, clk)
				synctest.Wait()
				told := s.bell.toTell()
				switch {
				case tc.want != "" && (len(told) != 1 || told[0].Missed != tc.want):
					t.Errorf("handed over %+v, want %q", told, tc.want)
				case tc.want == "" && len(told) != 0:
					t.Errorf("handed over %+v, want nothing", told)
				}
				kept, err := s.db.Missed().List(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if tc.want == "" && (len(kept) != 0 || !strings.Contains(s.logged(), "too long ago to be told")) {
					t.Errorf("kept %+v, logged %q; want it dropped, and said so", kept, s.logged())
				}
				s.stop()
			})
		})
	}
}

// TestUnheardAlertWaitsForTheClock: after a power cut the board's clock is
// not set, so how long ago an alert went off cannot be known: it waits
// until the clock is set, then is told (or dropped). One that went off
// before the clock was ever set has no age: it is told at once, without a
// time.
func TestUnheardAlertWaitsForTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		s := startOver(t, dir, newBoard(false))
		ringUnheard(t, s, time.Minute) // before the clock was set
		s.stop()
		clk := newBoard(true)
		s = startOver(t, dir, clk)
		ringUnheard(t, s, 10*time.Minute) // at 00:11, set
		s.stop()

		clk = newBoard(false) // a power cut
		s = startOver(t, dir, clk)
		synctest.Wait()
		told := s.bell.toTell()
		if len(told) != 1 || told[0].Missed != "While my speaker was gone, an alert went off: Your tea timer is done." {
			t.Fatalf("before the clock was set: handed over %+v, want the one without a time", told)
		}
		time.Sleep(time.Minute)
		clk.sync()
		synctest.Wait()
		told = s.bell.toTell()
		if len(told) != 2 || told[1].Missed != "While my speaker was gone, an alert went off at 12:11 AM: Your tea timer is done." {
			t.Errorf("once the clock was set: handed over %+v, want the one at 12:11 AM too", told)
		}
		s.stop()
	})
}

// TestUnheardAlertIsWordedWhenTold: an alert that rings unheard is kept by
// the ringer in this run, and may be told hours later: the ringer gets
// what to say worded for the time it tells it ("yesterday" once the day
// has changed), and when it is too old to tell (MissedFor after it went
// off), as the ones kept on disk are. So does one handed over after a
// restart.
func TestUnheardAlertIsWordedWhenTold(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		clk := newBoard(true)
		time.Sleep(22 * time.Hour)
		s := startOver(t, dir, clk)
		ringUnheard(t, s, 10*time.Minute) // at 22:10
		rung, _ := s.bell.seen()
		went := time.Now()
		const want = "While my speaker was gone, an alert went off yesterday at 10:10 PM: Your tea timer is done."
		if rung[0].MissedAt == nil || rung[0].MissedAt(went.Add(3*time.Hour)) != want {
			t.Errorf("rung with no wording for later, or told three hours later as %q; want %q", missedAt(rung[0], went.Add(3*time.Hour)), want)
		}
		if got := rung[0].Stale.Sub(went); got != MissedFor {
			t.Errorf("rung stale %v after it went off, want %v", got, MissedFor)
		}
		s.stop()

		time.Sleep(time.Hour)
		s = startOver(t, dir, clk)
		synctest.Wait()
		told := s.bell.toTell()
		if len(told) != 1 || missedAt(told[0], went.Add(3*time.Hour)) != want || told[0].Stale.Sub(went) != MissedFor {
			t.Errorf("handed over after a restart: %+v; want it worded when told and stale %v after it went off", told, MissedFor)
		}
		s.stop()
	})
}

// missedAt is what a says, told at now.
func missedAt(a Alert, now time.Time) string {
	if a.MissedAt == nil {
		return a.Missed
	}
	return a.MissedAt(now)
}
