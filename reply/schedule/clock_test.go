package schedule

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/reply/schedule/scheduletest"
	"github.com/harkbox/hark/storage"
)

// boardClock is a board's wall clock under synctest: the bubble's time
// plus an offset, stepped like NTP steps it.
type boardClock struct {
	mu      sync.Mutex
	offset  time.Duration
	synced  bool
	changed chan struct{}
}

// bootAt is a clock that booted reading wall, not synchronised.
func bootAt(wall time.Time) *boardClock {
	return &boardClock{offset: time.Until(wall), changed: make(chan struct{})}
}

func (c *boardClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.offset).Round(0)
}

func (c *boardClock) Synced() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.synced
}

func (c *boardClock) Changed() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.changed
}

// step sets the wall clock to wall, as NTP does (synced) or a person.
func (c *boardClock) step(wall time.Time, synced bool) {
	c.mu.Lock()
	c.offset, c.synced = time.Until(wall), synced
	close(c.changed)
	c.changed = make(chan struct{})
	c.mu.Unlock()
}

var berlin = func() *time.Location {
	l, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		panic(err)
	}
	return l
}()

// running is a scheduler on a board clock, ringing into a ringer.
func running(t *testing.T, o Options) (*Scheduler, *ringer, func()) {
	t.Helper()
	if o.Store == nil {
		o.Store = newMemStore()
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	r := &ringer{}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx, r.ring) }()
	synctest.Wait()
	return s, r, func() { cancel(); <-done }
}

// TestTimerAcrossNTPStep is the contract: the board boots at
// 2024-01-01, a 2-minute timer is set, NTP steps the clock 15 s later. It
// rings 120 s after it was set and does not say it was switched off. Before,
// the timer was kept in wall time and rang at the next wake after the step
// saying "I was switched off when it came due".
func TestTimerAcrossNTPStep(t *testing.T) {
	for _, step := range []time.Duration{2*365*24*time.Hour + 5*time.Hour, -time.Hour} {
		t.Run(step.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk := bootAt(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
				s, r, stop := running(t, Options{Clock: clk, Location: berlin})
				defer stop()
				set := time.Now()
				it, err := s.AddTimer(t.Context(), "tea", 2*time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				time.Sleep(15 * time.Second)
				clk.step(clk.Now().Add(step), true)
				synctest.Wait()
				pending, _ := s.Pending(t.Context())
				if len(pending) != 1 || pending[0].Due.Sub(clk.Now()) != 105*time.Second {
					t.Fatalf("after the step the timer is %+v, want due in 105 s on the new clock", pending)
				}
				time.Sleep(105*time.Second - time.Millisecond)
				synctest.Wait()
				if r.count() != 0 {
					t.Fatalf("rang %v after it was set, before its time", r.at[0].Sub(set))
				}
				time.Sleep(time.Millisecond)
				synctest.Wait()
				if r.count() != 1 || r.at[0].Sub(set) != 2*time.Minute || r.alerts[0].Item.ID != it.ID {
					t.Fatalf("alerts %+v at %v", r.alerts, r.at)
				}
				if a := r.alerts[0].Announcement(); a != "Your tea timer is done." {
					t.Errorf("it says %q", a)
				}
			})
		})
	}
}

// TestLongTimersRingOnTime: a timer has no one-hour cap, and other wakes
// (a second timer, a clock step) never ring it early. Before, a 90-minute
// timer set before NTP rang at 60.
func TestLongTimersRingOnTime(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := bootAt(time.Unix(5, 0))
		s, r, stop := running(t, Options{Clock: clk, Location: time.UTC})
		defer stop()
		set := time.Now()
		s.AddTimer(t.Context(), "bread", 90*time.Minute)
		s.AddTimer(t.Context(), "short", 90*time.Second)
		s.AddTimer(t.Context(), "day", MaxTimer)
		time.Sleep(20 * time.Second)
		clk.step(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), true)
		time.Sleep(26 * time.Hour)
		synctest.Wait()
		want := map[string]time.Duration{"short": 90 * time.Second, "bread": 90 * time.Minute, "day": MaxTimer}
		if r.count() != 3 {
			t.Fatalf("rang %d times, want 3", r.count())
		}
		for i, a := range r.alerts {
			if got := r.at[i].Sub(set); got != want[a.Item.Name] || a.LateBy != 0 {
				t.Errorf("%s rang after %v (late by %v), want %v", a.Item.Name, got, a.LateBy, want[a.Item.Name])
			}
		}
	})
}

// TestAlarmBeforeSyncIsHeld is the contract: at 1970-01-01
// 00:00:05, "wake me up at 7 tomorrow" is held; when NTP sets the clock
// nothing rings, and the alarm is at 07:00 Berlin within the next 24 hours.
// Before, it was set for 2 January 1970 and rang at once after the sync.
func TestAlarmBeforeSyncIsHeld(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := bootAt(time.Unix(5, 0))
		s, r, stop := running(t, Options{Clock: clk, Location: berlin})
		defer stop()
		tomorrow := clk.Now().In(berlin).AddDate(0, 0, 1)
		it, err := s.AddAlarm(t.Context(), "", 7, 0, nil, tomorrow)
		if err != nil || !it.Held {
			t.Fatalf("alarm %+v, %v: want it held", it, err)
		}
		time.Sleep(30 * time.Hour) // the clock stays unset: it waits
		synctest.Wait()
		if r.count() != 0 {
			t.Fatalf("a held alarm rang on an unset clock: %+v", r.alerts)
		}
		real := time.Date(2026, 5, 10, 15, 42, 0, 0, berlin)
		clk.step(real, true)
		synctest.Wait()
		pending, _ := s.Pending(t.Context(), storage.Alarm)
		if r.count() != 0 || len(pending) != 1 {
			t.Fatalf("after the sync: rang %d, pending %+v", r.count(), pending)
		}
		due := pending[0].Due.In(berlin)
		if pending[0].Held || due.Hour() != 7 || due.Minute() != 0 || due.Sub(real) <= 0 || due.Sub(real) > 24*time.Hour {
			t.Fatalf("placed at %v, want 07:00 within 24 h of %v", due, real)
		}
		time.Sleep(due.Sub(real))
		synctest.Wait()
		if r.count() != 1 || r.alerts[0].LateBy != 0 || !strings.HasPrefix(r.alerts[0].Announcement(), "It's 7:00 AM.") {
			t.Errorf("at 07:00: %+v", r.alerts)
		}
	})
}

// TestClockTimesBeforeSync: what each request made before the clock is
// set gets.
func TestClockTimesBeforeSync(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := bootAt(time.Unix(5, 0))
		s, r, stop := running(t, Options{Clock: clk, Location: berlin})
		defer stop()
		now := clk.Now().In(berlin)
		if _, err := s.AddReminder(t.Context(), "call mom", now.Add(3*time.Hour)); !errors.Is(err, ErrClockNotSet) {
			t.Errorf("a reminder at a time of day: %v, want ErrClockNotSet", err)
		}
		if _, err := s.AddAlarm(t.Context(), "", 7, 0, nil, now.AddDate(0, 0, 3)); !errors.Is(err, ErrClockNotSet) {
			t.Errorf("an alarm in three days: %v, want ErrClockNotSet", err)
		}
		weekdays, err := s.AddAlarm(t.Context(), "", 6, 30, []time.Weekday{time.Monday}, time.Time{})
		if err != nil || !weekdays.Held {
			t.Errorf("a repeating alarm: %+v, %v; want it held", weekdays, err)
		}
		if _, err := s.AddReminderIn(t.Context(), "the oven", 20*time.Minute); err != nil {
			t.Errorf("a reminder in 20 minutes: %v", err)
		}
		time.Sleep(20 * time.Minute)
		synctest.Wait()
		if r.count() != 1 || r.alerts[0].Item.Name != "the oven" {
			t.Errorf("the reminder in 20 minutes: %+v", r.alerts)
		}
	})
}

// TestSwitchedOffOnlyWhenOff: an item that came due before this start says
// the box was switched off only when it came due after the box's last sign
// of life; one due while the box ran (its ringing was not saved) is not
// rung again.
func TestSwitchedOffOnlyWhenOff(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		due      time.Duration // after t0
		rings    bool
		switched bool
	}{
		{"due after the last sign of life", 10 * time.Minute, true, true},
		{"due while the box still ran", 2 * time.Minute, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				store := scheduletest.New()
				store.Put(t.Context(), storage.Item{ID: "x", Kind: storage.Timer, Name: "pasta", Due: t0.Add(tc.due), State: storage.Pending})
				clk := bootAt(t0.Add(time.Hour))
				clk.synced = true
				_, r, stop := running(t, Options{Store: store, Clock: clk, Location: time.UTC, LastAlive: t0.Add(5 * time.Minute)})
				defer stop()
				if r.count() != btoi(tc.rings) {
					t.Fatalf("rang %d times", r.count())
				}
				if tc.rings && strings.Contains(r.alerts[0].Announcement(), "switched off") != tc.switched {
					t.Errorf("it says %q", r.alerts[0].Announcement())
				}
				got, _, _ := store.Get(t.Context(), "x")
				if got.State != storage.Done {
					t.Errorf("state %s, want done", got.State)
				}
			})
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestOldClockTimesWaitForTheClock: items from before this start go by the
// wall clock, so on a clock restored behind they wait for NTP, then ring
// once, saying the box was off.
func TestOldClockTimesWaitForTheClock(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		store := scheduletest.New()
		store.Put(t.Context(), storage.Item{ID: "x", Kind: storage.Timer, Name: "bread", Due: t0.Add(30 * time.Minute), State: storage.Pending})
		clk := bootAt(t0.Add(10 * time.Minute)) // restored to the last sign of life
		_, r, stop := running(t, Options{Store: store, Clock: clk, Location: time.UTC, LastAlive: t0.Add(10 * time.Minute)})
		defer stop()
		time.Sleep(time.Hour) // NTP unreachable: it waits
		synctest.Wait()
		if r.count() != 0 {
			t.Fatal("rang on an unset clock")
		}
		clk.step(t0.Add(50*time.Hour), true)
		synctest.Wait()
		if r.count() != 1 || r.alerts[0].LateBy < 49*time.Hour {
			t.Fatalf("after the sync: %+v", r.alerts)
		}
	})
}

// TestZoneChangeMovesAlarms: an alarm set for 7:00 in UTC rings at 7:00
// Berlin once the box's zone is Berlin, and says so. Before, it rang at
// 08:00 saying "It's 7:00 AM".
func TestZoneChangeMovesAlarms(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := scheduletest.New()
		utc, _ := New(Options{Store: store, Location: time.UTC})
		once, _ := utc.AddAlarm(t.Context(), "", 7, 0, nil, time.Time{})
		daily, _ := utc.AddAlarm(t.Context(), "", 7, 0, []time.Weekday{0, 1, 2, 3, 4, 5, 6}, time.Time{})
		s, r, stop := running(t, Options{Store: store, Location: berlin})
		defer stop()
		for _, id := range []string{once.ID, daily.ID} {
			it, _, _ := store.Get(t.Context(), id)
			if d := it.Due.In(berlin); d.Hour() != 7 || d.Minute() != 0 || it.Zone != "Europe/Berlin" {
				t.Errorf("after the zone change %s is due %v in %q", id, d, it.Zone)
			}
		}
		time.Sleep(8 * time.Hour)
		synctest.Wait()
		if r.count() != 2 {
			t.Fatalf("rang %d", r.count())
		}
		for i := range r.alerts {
			if at := r.at[i].In(berlin); at.Hour() != 7 || !strings.HasPrefix(r.alerts[i].Announcement(), "It's 7:00 AM.") {
				t.Errorf("rang at %v saying %q", at, r.alerts[i].Announcement())
			}
		}
		_ = s
	})
}

// TestSetLocationMovesAlarmsLive: the household changes the box's zone
// while it runs: a pending 07:00 alarm moves to 07:00 in the new zone at
// once (kept so in the store) and rings then, and a timer keeps its
// instant.
func TestSetLocationMovesAlarmsLive(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		store := scheduletest.New()
		s, r, stop := running(t, Options{Store: store, Location: time.UTC})
		defer stop()
		alarm, _ := s.AddAlarm(t.Context(), "", 7, 0, nil, time.Time{})
		timer, _ := s.AddTimer(t.Context(), "tea", 3*time.Hour)
		synctest.Wait()
		s.SetLocation(t.Context(), berlin)
		if got := s.Location(); got != berlin {
			t.Errorf("zone %v after SetLocation, want Berlin", got)
		}
		it, _, _ := store.Get(t.Context(), alarm.ID)
		if d := it.Due.In(berlin); d.Hour() != 7 || d.Minute() != 0 || it.Zone != "Europe/Berlin" {
			t.Errorf("the alarm is due %v in %q, want 07:00 in Europe/Berlin", d, it.Zone)
		}
		if tm, _, _ := store.Get(t.Context(), timer.ID); !tm.Due.Equal(timer.Due) {
			t.Errorf("the timer moved from %v to %v", timer.Due, tm.Due)
		}
		time.Sleep(8 * time.Hour)
		synctest.Wait()
		if r.count() != 2 {
			t.Fatalf("rang %d times, want the timer and the alarm", r.count())
		}
		for i, a := range r.alerts {
			if a.Item.Kind == storage.Alarm {
				if at := r.at[i].In(berlin); at.Hour() != 7 || at.Minute() != 0 || !strings.HasPrefix(a.Announcement(), "It's 7:00 AM.") {
					t.Errorf("the alarm rang at %v saying %q, want 07:00 Berlin", at, a.Announcement())
				}
			}
		}
	})
}

// TestDaylightSaving: in Berlin, 02:30 does not exist on 29 March 2026
// (clocks jump from 02:00 to 03:00) and happens twice on 25 October 2026.
// A one-off alarm at a skipped time rings when the clock jumps over it; at a
// repeated time it rings once, the first time; a daily alarm rings once a
// day across both changes.
func TestDaylightSaving(t *testing.T) {
	for _, tc := range []struct {
		name string
		day  time.Time
		want time.Time
	}{
		{"spring forward", time.Date(2026, 3, 29, 0, 0, 0, 0, berlin), time.Date(2026, 3, 29, 1, 0, 0, 0, time.UTC)}, // 03:00 CEST
		{"fall back", time.Date(2026, 10, 25, 0, 0, 0, 0, berlin), time.Date(2026, 10, 25, 0, 30, 0, 0, time.UTC)},   // 02:30 CEST
		{"an ordinary day", time.Date(2026, 6, 1, 0, 0, 0, 0, berlin), time.Date(2026, 6, 1, 0, 30, 0, 0, time.UTC)}, // 02:30 CEST
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := alarmAt(tc.day.Year(), tc.day.Month(), tc.day.Day(), 2, 30, berlin); !got.Equal(tc.want) {
				t.Errorf("02:30 is %v, want %v", got.In(berlin), tc.want.In(berlin))
			}
			synctest.Test(t, func(t *testing.T) {
				clk := bootAt(tc.day.Add(-time.Hour))
				clk.synced = true
				s, r, stop := running(t, Options{Clock: clk, Location: berlin})
				defer stop()
				s.AddAlarm(t.Context(), "", 2, 30, nil, tc.day)
				time.Sleep(6 * time.Hour)
				synctest.Wait()
				var at []time.Time // on the wall clock
				for _, a := range r.at {
					at = append(at, clk.Now().Add(time.Until(a)).In(berlin))
				}
				if len(at) != 1 || !at[0].Equal(tc.want) {
					t.Errorf("rang at %v; want once at %v", at, tc.want.In(berlin))
				}
			})
		})
	}
	t.Run("daily across both", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			start := time.Date(2026, 3, 27, 12, 0, 0, 0, berlin)
			clk := bootAt(start)
			clk.synced = true
			s, r, stop := running(t, Options{Clock: clk, Location: berlin})
			defer stop()
			every := []time.Weekday{0, 1, 2, 3, 4, 5, 6}
			s.AddAlarm(t.Context(), "", 2, 30, every, time.Time{})
			s.AddAlarm(t.Context(), "", 7, 0, every, time.Time{})
			end := time.Date(2026, 10, 27, 12, 0, 0, 0, berlin)
			time.Sleep(end.Sub(start))
			synctest.Wait()
			perDay := map[string][]string{}
			for i := range r.alerts {
				at := clk.Now().Add(time.Until(r.at[i])).In(berlin)
				day := at.Format("2006-01-02")
				perDay[day] = append(perDay[day], at.Format("15:04 MST"))
			}
			days := int(end.Sub(start).Hours()/24 + 0.5)
			if len(perDay) != days {
				t.Errorf("rang on %d days, want %d", len(perDay), days)
			}
			for _, c := range []struct{ day, want string }{
				{"2026-03-28", "[02:30 CET 07:00 CET]"},
				{"2026-03-29", "[03:00 CEST 07:00 CEST]"},
				{"2026-03-30", "[02:30 CEST 07:00 CEST]"},
				{"2026-10-25", "[02:30 CEST 07:00 CET]"},
				{"2026-10-26", "[02:30 CET 07:00 CET]"},
			} {
				if got := strings.Join(perDay[c.day], " "); "["+got+"]" != c.want {
					t.Errorf("%s: rang at [%s], want %s", c.day, got, c.want)
				}
			}
		})
	})
}

// TestDaylightSavingWestOfUTC: west of UTC, time.Date moves a skipped
// time backwards (New York's 02:30 on 8 March 2026 reads as 01:30 EST),
// and Santiago skips midnight itself (00:30 on 6 September 2026 reads as
// 23:30 the evening before). The alarm still rings when the clock jumps
// over it, never an hour early.
func TestDaylightSavingWestOfUTC(t *testing.T) {
	for _, tc := range []struct {
		zone         string
		day          time.Time // a date, read in zone
		hour, minute int
		want         time.Time
	}{
		{"America/New_York", time.Date(2026, 3, 8, 0, 0, 0, 0, time.UTC), 2, 30, time.Date(2026, 3, 8, 7, 0, 0, 0, time.UTC)},    // 03:00 EDT
		{"America/New_York", time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC), 1, 30, time.Date(2026, 11, 1, 5, 30, 0, 0, time.UTC)}, // 01:30 EDT, the first
		{"America/Santiago", time.Date(2026, 9, 6, 0, 0, 0, 0, time.UTC), 0, 30, time.Date(2026, 9, 6, 4, 0, 0, 0, time.UTC)},    // 01:00 -03
		{"America/Santiago", time.Date(2026, 9, 6, 0, 0, 0, 0, time.UTC), 7, 0, time.Date(2026, 9, 6, 10, 0, 0, 0, time.UTC)},    // an hour past the jump
		{"Australia/Sydney", time.Date(2026, 10, 4, 0, 0, 0, 0, time.UTC), 2, 30, time.Date(2026, 10, 3, 16, 0, 0, 0, time.UTC)}, // 03:00 AEDT
	} {
		loc, err := time.LoadLocation(tc.zone)
		if err != nil {
			t.Skipf("no zone data for %s: %v", tc.zone, err)
		}
		if got := alarmAt(tc.day.Year(), tc.day.Month(), tc.day.Day(), tc.hour, tc.minute, loc); !got.Equal(tc.want) {
			t.Errorf("%s %s %02d:%02d is %v, want %v", tc.zone, tc.day.Format("2006-01-02"), tc.hour, tc.minute, got.In(loc), tc.want.In(loc))
		}
	}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skipf("no zone data for New York: %v", err)
	}
	synctest.Test(t, func(t *testing.T) {
		clk := bootAt(time.Date(2026, 3, 7, 20, 0, 0, 0, ny))
		clk.synced = true
		s, r, stop := running(t, Options{Clock: clk, Location: ny})
		defer stop()
		if _, err := s.AddAlarm(t.Context(), "medicine", 2, 30, []time.Weekday{0, 1, 2, 3, 4, 5, 6}, time.Time{}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(36 * time.Hour)
		synctest.Wait()
		var at []string
		for _, a := range r.at {
			at = append(at, clk.Now().Add(time.Until(a)).In(ny).Format("Jan 2 15:04 MST"))
		}
		if got := strings.Join(at, ", "); got != "Mar 8 03:00 EDT, Mar 9 02:30 EDT" {
			t.Errorf("the daily 02:30 alarm rang at [%s]; want Mar 8 03:00 EDT, Mar 9 02:30 EDT", got)
		}
	})
}

// TestCountdownAcrossADaemonRestart: the board booted with its clock
// restored two hours behind and no NTP (a household without internet). A
// 10-minute pasta timer and a reminder in 15 minutes are set; two minutes
// on, hark restarts (a setting applied, the watchdog) on the same boot. On
// that clock the countdowns go on: the timer rings 10 minutes after it was
// set, not when NTP comes, if ever. On another boot the time the box was
// off is not known, and they wait for the clock as before.
func TestCountdownAcrossADaemonRestart(t *testing.T) {
	for _, sameBoot := range []bool{true, false} {
		t.Run(fmt.Sprintf("same boot %v", sameBoot), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				clk := bootAt(time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC))
				store := newMemStore()
				s, _, stop := running(t, Options{Store: store, Clock: clk, Location: time.UTC})
				set := time.Now()
				if _, err := s.AddTimer(t.Context(), "pasta", 10*time.Minute); err != nil {
					t.Fatal(err)
				}
				if _, err := s.AddReminderIn(t.Context(), "turn the bread", 15*time.Minute); err != nil {
					t.Fatal(err)
				}
				time.Sleep(2 * time.Minute)
				alive := clk.Now()
				stop()
				if !sameBoot {
					clk = bootAt(alive) // restored to the record; the minutes off are lost
				}
				_, r, stop := running(t, Options{Store: store, Clock: clk, Location: time.UTC, Continues: sameBoot})
				defer stop()
				time.Sleep(20 * time.Minute)
				synctest.Wait()
				var got []string
				for i, a := range r.alerts {
					got = append(got, fmt.Sprintf("%s at %v", a.Item.Name, r.at[i].Sub(set)))
				}
				want := "pasta at 10m0s, turn the bread at 15m0s"
				if !sameBoot {
					want = ""
				}
				if strings.Join(got, ", ") != want {
					t.Errorf("rang [%s]; want [%s]", strings.Join(got, ", "), want)
				}
				for _, a := range r.alerts {
					if a.LateBy != 0 {
						t.Errorf("%s said it was late by %v; the box was not off", a.Item.Name, a.LateBy)
					}
				}
			})
		})
	}
}
