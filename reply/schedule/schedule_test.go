package schedule

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/storage"
)

// ringer collects alerts.
type ringer struct {
	mu     sync.Mutex
	alerts []Alert
	at     []time.Time
}

func (r *ringer) ring(a Alert) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.alerts = append(r.alerts, a)
	r.at = append(r.at, time.Now())
}

func (r *ringer) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.alerts)
}

// box is a scheduler running over a store, under synctest's clock.
type box struct {
	store  Store
	s      *Scheduler
	r      *ringer
	cancel context.CancelFunc
	done   chan struct{}
}

func (b *box) on(t *testing.T, loc *time.Location) {
	t.Helper()
	if b.store == nil {
		b.store = newMemStore()
	}
	b.s, _ = New(Options{Store: b.store, Location: loc})
	b.r = &ringer{}
	ctx, cancel := context.WithCancel(t.Context())
	b.cancel, b.done = cancel, make(chan struct{})
	go func() {
		defer close(b.done)
		b.s.Run(ctx, b.r.ring)
	}()
	synctest.Wait()
}

func (b *box) off() {
	b.cancel()
	<-b.done
}

func TestTimerFires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &box{}
		b.on(t, time.UTC)
		defer b.off()
		start := time.Now()
		it, err := b.s.AddTimer(t.Context(), "tea", 5*time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(5*time.Minute - time.Second)
		synctest.Wait()
		if b.r.count() != 0 {
			t.Fatal("rang early")
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if b.r.count() != 1 || b.r.at[0].Sub(start) != 5*time.Minute {
			t.Fatalf("alerts %v at %v", b.r.alerts, b.r.at)
		}
		a := b.r.alerts[0]
		if a.LateBy != 0 || a.Announcement() != "Your tea timer is done." {
			t.Errorf("alert %+v says %q", a, a.Announcement())
		}
		got, _, _ := b.store.Get(t.Context(), it.ID)
		if got.State != storage.Done || got.Late {
			t.Errorf("after ringing: %+v", got)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if b.r.count() != 1 {
			t.Errorf("rang %d times", b.r.count())
		}
	})
}

func TestCancelledTimerStaysQuiet(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &box{}
		b.on(t, time.UTC)
		defer b.off()
		it, _ := b.s.AddTimer(t.Context(), "", time.Minute)
		keep, _ := b.s.AddTimer(t.Context(), "eggs", 2*time.Minute)
		if _, err := b.s.Cancel(t.Context(), it.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := b.s.Cancel(t.Context(), it.ID); err == nil {
			t.Error("cancelled twice")
		}
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		if b.r.count() != 1 || b.r.alerts[0].Item.ID != keep.ID {
			t.Errorf("alerts %+v, want only the eggs timer", b.r.alerts)
		}
	})
}

func TestRepeatingAlarm(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The bubble starts at midnight UTC on 1 January 2000, a Saturday.
		b := &box{}
		b.on(t, time.UTC)
		defer b.off()
		it, err := b.s.AddAlarm(t.Context(), "", 7, 30, []time.Weekday{time.Monday, time.Wednesday}, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		if it.Due.Weekday() != time.Monday || it.Due.Hour() != 7 || it.Due.Minute() != 30 {
			t.Fatalf("first due %v, want Monday 7:30", it.Due)
		}
		time.Sleep(7 * 24 * time.Hour)
		synctest.Wait()
		if b.r.count() != 2 {
			t.Fatalf("rang %d times in a week, want Monday and Wednesday", b.r.count())
		}
		if d := b.r.at[1].Weekday(); d != time.Wednesday || b.r.at[1].Hour() != 7 {
			t.Errorf("second ring %v", b.r.at[1])
		}
		if !strings.HasPrefix(b.r.alerts[0].Announcement(), "It's 7:30 AM.") {
			t.Errorf("announcement %q", b.r.alerts[0].Announcement())
		}
		got, _, _ := b.store.Get(t.Context(), it.ID)
		if !got.Active() || got.Due.Weekday() != time.Monday || !got.Due.After(time.Now()) {
			t.Errorf("after a week the alarm is %+v, want pending for next Monday", got)
		}
	})
}

func TestOneShotAlarmAndReminder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &box{}
		b.on(t, time.UTC)
		defer b.off()
		tomorrow := time.Now().AddDate(0, 0, 1)
		if _, err := b.s.AddAlarm(t.Context(), "", 6, 0, nil, tomorrow); err != nil {
			t.Fatal(err)
		}
		if _, err := b.s.AddReminder(t.Context(), "call mom", time.Now().Add(20*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if _, err := b.s.AddReminder(t.Context(), "too late", time.Now().Add(-time.Minute)); err == nil {
			t.Error("a reminder in the past was accepted")
		}
		time.Sleep(3 * 24 * time.Hour)
		synctest.Wait()
		if b.r.count() != 2 {
			t.Fatalf("%d alerts, want 2", b.r.count())
		}
		if got := b.r.alerts[0].Announcement(); got != "Reminder: call mom." {
			t.Errorf("reminder says %q", got)
		}
		if at := b.r.at[1]; at.Day() != 2 || at.Hour() != 6 {
			t.Errorf("alarm rang at %v, want 6:00 on the 2nd", at)
		}
	})
}

func TestChangeTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &box{}
		b.on(t, time.UTC)
		defer b.off()
		it, _ := b.s.AddTimer(t.Context(), "", 5*time.Minute)
		time.Sleep(time.Minute)
		if _, err := b.s.ChangeTimer(t.Context(), it.ID, 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		time.Sleep(9 * time.Minute)
		synctest.Wait()
		if b.r.count() != 0 {
			t.Fatal("rang at the old time")
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		if b.r.count() != 1 {
			t.Error("did not ring at the new time")
		}
	})
}

// clockAt is a settable clock for the restart tests.
type clockAt struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clockAt) now() time.Time  { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clockAt) set(t time.Time) { c.mu.Lock(); c.t = t; c.mu.Unlock() }

// start opens the data directory, as Hark does at boot, and lets the
// scheduler settle and fire what is due; it returns what rang.
func start(t *testing.T, dir string, clock *clockAt) (*storage.DB, *Scheduler, []Alert) {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := New(Options{Store: db.Schedule(), Now: clock.now, Location: time.UTC})
	r := &ringer{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx, r.ring) }()
	// Run settles and fires overdue items before it first waits; a wake
	// after that confirms the pass is over.
	for i := 0; i < 2; i++ {
		s.wake <- struct{}{}
	}
	cancel()
	<-done
	return db, s, r.alerts
}

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func TestTimerSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	clock := &clockAt{t: t0}
	db, s, _ := start(t, dir, clock)
	it, err := s.AddTimer(t.Context(), "bread", 30*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	db.Close() // the process stops ten minutes in

	clock.set(t0.Add(10 * time.Minute))
	db, s, rang := start(t, dir, clock) // and starts again
	if len(rang) != 0 {
		t.Fatalf("rang at restart: %+v", rang)
	}
	pending, _ := s.Pending(t.Context(), storage.Timer)
	if len(pending) != 1 || pending[0].ID != it.ID || !pending[0].Due.Equal(t0.Add(30*time.Minute)) {
		t.Fatalf("after restart pending = %+v", pending)
	}
	db.Close()

	clock.set(t0.Add(30*time.Minute + 10*time.Second)) // it comes due while running
	db, _, rang = start(t, dir, clock)
	defer db.Close()
	if len(rang) != 1 || rang[0].LateBy != 0 {
		t.Errorf("at its time: %+v, want one on-time alert", rang)
	}
}

func TestDueWhileStoppedRingsOnceLate(t *testing.T) {
	dir := t.TempDir()
	clock := &clockAt{t: t0}
	db, s, _ := start(t, dir, clock)
	it, _ := s.AddTimer(t.Context(), "pasta", 8*time.Minute)
	db.Close()

	clock.set(t0.Add(time.Hour)) // the box was off when it came due
	db, _, rang := start(t, dir, clock)
	if len(rang) != 1 {
		t.Fatalf("%d alerts at start, want the late one", len(rang))
	}
	a := rang[0]
	if a.LateBy != 52*time.Minute || !strings.Contains(a.Announcement(), "switched off when it came due, 52 minutes ago") {
		t.Errorf("alert late by %v says %q", a.LateBy, a.Announcement())
	}
	db.Close()

	clock.set(t0.Add(2 * time.Hour))
	db, _, rang = start(t, dir, clock) // once more: never twice
	defer db.Close()
	if len(rang) != 0 {
		t.Errorf("rang again after a second restart: %+v", rang)
	}
	got, _, _ := db.Schedule().Get(t.Context(), it.ID)
	if got.State != storage.Done || !got.Late {
		t.Errorf("item %+v, want done and marked late", got)
	}
}

func TestRingingAtPowerCutIsNotRepeated(t *testing.T) {
	dir := t.TempDir()
	db, _ := storage.Open(dir, storage.Options{})
	db.Schedule().Put(t.Context(), storage.Item{ID: "x", Kind: storage.Timer, Due: t0.Add(-time.Minute), State: storage.Ringing})
	db.Close()
	db, _, rang := start(t, dir, &clockAt{t: t0})
	defer db.Close()
	if len(rang) != 0 {
		t.Error("an item that was ringing at a power cut rang again")
	}
	got, _, _ := db.Schedule().Get(t.Context(), "x")
	if got.State != storage.Done {
		t.Errorf("state %s, want done", got.State)
	}
}

// TestLateMillisIsTheRealLateness: a timer that goes off 2.7 s late (the
// box was off when it came due) logs late_ms=2700, though under the grace
// its announcement does not call it late.
func TestLateMillisIsTheRealLateness(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs strings.Builder
		store := newMemStore()
		s, _ := New(Options{Store: store, Location: time.UTC, Log: slog.New(slog.NewTextHandler(&logs, nil))})
		if _, err := s.AddTimer(t.Context(), "tea", 10*time.Second); err != nil {
			t.Fatal(err)
		}
		time.Sleep(12700 * time.Millisecond) // the box is off past the due time
		r := &ringer{}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan struct{})
		go func() { defer close(done); s.Run(ctx, r.ring) }()
		synctest.Wait()
		cancel()
		<-done
		if r.count() != 1 || r.alerts[0].LateBy != 0 {
			t.Fatalf("alerts %+v, want one, within the grace", r.alerts)
		}
		if !strings.Contains(logs.String(), "late_ms=2700") {
			t.Errorf("log %q, want late_ms=2700", logs.String())
		}
	})
}

// TestPausedTimer: a paused timer does not go off, keeps the time it had
// left, and goes off that long after it is resumed; time added or taken
// off moves it, and no more than it has left may be taken.
func TestPausedTimer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var b box
		b.on(t, time.UTC)
		defer b.off()
		ctx := t.Context()
		it, _ := b.s.AddTimer(ctx, "tea", 5*time.Minute)
		time.Sleep(time.Minute)
		if it, _ = b.s.PauseTimer(ctx, it.ID); !it.Paused || it.Left != 4*time.Minute {
			t.Fatalf("paused: %+v, want 4 minutes left", it)
		}
		time.Sleep(time.Hour)
		synctest.Wait()
		if b.r.count() != 0 {
			t.Fatal("a paused timer rang")
		}
		if _, err := b.s.AddToTimer(ctx, it.ID, -5*time.Minute); err == nil {
			t.Error("took more than was left")
		}
		if it, _ = b.s.AddToTimer(ctx, it.ID, time.Minute); it.Left != 5*time.Minute {
			t.Errorf("added to a paused timer: %+v", it)
		}
		b.s.ResumeTimer(ctx, it.ID)
		time.Sleep(4*time.Minute + 59*time.Second)
		synctest.Wait()
		if b.r.count() != 0 {
			t.Fatal("rang before its time was up")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if b.r.count() != 1 {
			t.Errorf("%d rings after the time left was up, want 1", b.r.count())
		}
	})
}

// TestStoreThatOpensLate: at boot the card is too slow for the store's
// open timeout (here every open is), so the store starts from memory and
// takes Badger when it opens after all. The scheduler must not take the
// nothing it read meanwhile for the schedule: once the store opens, the
// daily alarm is pending again and the timer that came due while the box
// was off rings.
func TestStoreThatOpensLate(t *testing.T) {
	dir := t.TempDir()
	clock := &clockAt{t: t0}
	db, s, _ := start(t, dir, clock)
	bread, err := s.AddTimer(t.Context(), "bread", 30*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	wake, err := s.AddAlarm(t.Context(), "", 7, 0, []time.Weekday{0, 1, 2, 3, 4, 5, 6}, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	clock.set(t0.Add(time.Hour)) // the box was off when the bread came due
	db, err = storage.Open(dir, storage.Options{OpenTimeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s, _ = New(Options{Store: db.Schedule(), Now: clock.now, Location: time.UTC, Retry: 10 * time.Millisecond})
	r := &ringer{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx, r.ring) }()
	defer func() { cancel(); <-done }()

	deadline := time.Now().Add(10 * time.Second)
	for {
		pending, _ := s.Pending(t.Context())
		if r.count() == 1 && len(pending) == 1 {
			if r.alerts[0].Item.ID != bread.ID || pending[0].ID != wake.ID {
				t.Errorf("rang %+v with %+v pending; want the bread timer rung and the daily alarm pending", r.alerts, pending)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("10 s on, the store %v: rang %d, pending %+v; want the bread timer rung and the daily alarm pending", db.Health(), r.count(), pending)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestMissedSaysWhen: what is said of an alert nobody heard names when it
// went off on the household's clock, "yesterday" when that was the day
// before, in the language it was set in; nothing of when without a set
// clock.
func TestMissedSaysWhen(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 22, 42, 0, 0, berlin)
	for _, tc := range []struct {
		lang   string
		at     time.Time
		now    time.Time
		missed string
	}{
		{"en", at, at.Add(time.Hour), "While my speaker was gone, an alert went off at 10:42 PM: Your tea timer is done."},
		{"en", at, at.Add(2 * time.Hour), "While my speaker was gone, an alert went off yesterday at 10:42 PM: Your tea timer is done."},
		{"en", at, time.Time{}, "While my speaker was gone, an alert went off at 10:42 PM: Your tea timer is done."},
		{"en", time.Time{}, at, "While my speaker was gone, an alert went off: Your tea timer is done."},
		// The day changes at Berlin's midnight, whatever zone now is read in.
		{"en", at, time.Date(2026, 11, 30, 23, 30, 0, 0, time.UTC), "While my speaker was gone, an alert went off yesterday at 10:42 PM: Your tea timer is done."},
		{"de", at, at.Add(2 * time.Hour), "Während mein Lautsprecher weg war, hat sich gestern um 22 Uhr 42 etwas gemeldet: Dein Timer tea ist abgelaufen."},
		{"fr", at, at.Add(time.Hour), "Pendant que mon haut-parleur était absent, une alerte a sonné à 22 heures 42 : Ton minuteur tea est terminé."},
		{"es", at, at.Add(time.Hour), "Mientras mi altavoz no estaba, sonó un aviso a las 10 y 42 de la noche: Tu temporizador de tea ha terminado."},
		{"es", at, at.Add(2 * time.Hour), "Mientras mi altavoz no estaba, ayer sonó un aviso a las 10 y 42 de la noche: Tu temporizador de tea ha terminado."},
	} {
		a := Alert{Item: storage.Item{Kind: storage.Timer, Name: "tea", Lang: tc.lang}, At: tc.at}
		if got := a.Missed(tc.now); got != tc.missed {
			t.Errorf("%s, went off %v, told %v:\n got %q\nwant %q", tc.lang, tc.at, tc.now, got, tc.missed)
		}
	}
}
