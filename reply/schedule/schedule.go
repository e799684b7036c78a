// Package schedule keeps Hark's timers, alarms and reminders and makes them
// go off.
//
// Time: a timer (or a reminder "in 20 minutes") counts on the monotonic
// clock while the box runs, so a step of the wall clock (NTP setting a
// clock that booted behind) never makes it early or late; its wall-clock
// due time is moved with each step. Alarms and reminders at a clock time
// wait for a set clock: one asked for before the clock is set is held and
// worked out anew from its hour and minute once it is (or refused, when it
// names a particular day). Clock times are in the household's time zone; a
// zone change moves pending alarms to the same hour in the new zone. A time
// a spring-forward skips rings when the clock jumps over it; a time a
// fall-back repeats rings once, the first time.
//
// Storage: the scheduler holds every pending item in memory and rings from
// there, so a store that refuses writes (a read-only SD card) loses nothing
// while the box runs: changes it could not save are retried until the store
// takes them (Unsaved lists them, Flush tries at once). An item that came
// due while the box was off goes off once when it starts and says so;
// nothing goes off twice.
package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/storage"
)

// MaxTimer is the longest timer, spoken or set through the API.
const MaxTimer = 24 * time.Hour

// The refusals callers branch on, wrapped with what was refused.
var (
	// ErrInvalid is an item the rules refuse: a timer of no length or
	// over MaxTimer, a time already passed.
	ErrInvalid = errors.New("schedule: invalid")
	// ErrNotFound is an id no item has.
	ErrNotFound = errors.New("schedule: no such timer, alarm or reminder")
	// ErrNotPending is an item that has already gone off or been
	// cancelled.
	ErrNotPending = errors.New("schedule: not pending")
	// ErrClockNotSet is a clock time that cannot be placed before the
	// box's clock is set: a reminder at a time of day, an alarm on a
	// particular day.
	ErrClockNotSet = errors.New("schedule: the clock is not set yet")
)

// Store keeps the items; *storage.Schedule is one. Its writes may fail
// (a read-only data partition): the scheduler keeps what it could not
// save and tries again.
type Store interface {
	Put(ctx context.Context, it storage.Item) error
	Get(ctx context.Context, id string) (storage.Item, bool, error)
	List(ctx context.Context, kinds ...storage.ItemKind) ([]storage.Item, error)
}

// Clock is the wall clock clock times are counted on: the box's, which
// boots behind on a board without a real-time clock and is stepped when
// NTP sets it. device/clock's System and Sim are ones.
type Clock interface {
	// Now returns the wall time; its monotonic reading is not used.
	Now() time.Time
	// Synced reports whether the wall time is right (synchronised): until
	// it is, alarms and reminders at a clock time wait.
	Synced() bool
	// Changed returns a channel closed at the next step of the wall clock
	// or change of Synced; nil for a clock that never changes.
	Changed() <-chan struct{}
}

// Options configure a Scheduler. Store is required.
type Options struct {
	Store Store
	// Clock is the wall clock; nil uses Now, as a clock that is always
	// set and never steps.
	Clock Clock
	// Now is the wall clock when Clock is nil; default time.Now.
	Now func() time.Time
	// Location is the user's time zone for alarms; default time.Local.
	Location *time.Location
	// Grace is how late an item may go off and still not count as late;
	// default one minute.
	Grace time.Duration
	// LastAlive is the last moment the box was known to run before this
	// start (its uptime record), on the wall clock of that time. An item
	// that came due after it and before this start came due while the box
	// was off, and says so when it goes off. Zero when unknown: anything
	// due before this start counts as missed while off.
	LastAlive time.Time
	// Continues says the wall clock reads on from the one the stored items
	// were set on (the same boot of the board: the daemon restarted). A
	// countdown from before this start then keeps counting though the
	// clock is not set, rather than wait for it.
	Continues bool
	// Retry is how often changes the store refused are tried again;
	// default 30 seconds.
	Retry time.Duration
	Log   *slog.Logger
}

// Alert is an item going off.
type Alert struct {
	Item storage.Item
	// LateBy is how long after its due time it went off, when it came due
	// while Hark was not running; zero otherwise.
	LateBy time.Duration
	// At is when it went off, in the household's zone; zero when the
	// clock was not set.
	At time.Time
}

// Announcement is what is said as the alert starts ringing, in the
// language the item was set in.
func (a Alert) Announcement() string {
	l, _ := locale.Of(a.Item.Lang)
	var s string
	it := a.Item
	switch it.Kind {
	case storage.Timer:
		if it.Name != "" {
			s = l.T("Your %s timer is done.", it.Name)
		} else {
			s = l.T("Your timer is done.")
		}
	case storage.Alarm:
		if it.Name != "" {
			s = l.T("It's %s. %s.", l.Clock(it.Hour, it.Minute), capitalize(it.Name))
		} else {
			s = l.T("It's %s. This is your alarm.", l.Clock(it.Hour, it.Minute))
		}
	case storage.Reminder:
		s = l.T("Reminder: %s.", strings.TrimSuffix(it.Name, "."))
	}
	if a.LateBy > 0 {
		s += " " + l.T("I was switched off when it came due, %s ago.", sayAgo(l, a.LateBy))
	}
	return s
}

// Missed is what is said about the alert when it could not be heard (the
// speaker was gone), once the box can speak again, as of now (in the
// household's zone): when it went off, "yesterday" when that was the day
// before now's. A zero now, or a zero At (the clock was not set), says no
// day.
func (a Alert) Missed(now time.Time) string {
	l, _ := locale.Of(a.Item.Lang)
	if a.At.IsZero() {
		return l.T("While my speaker was gone, an alert went off: %s", a.Announcement())
	}
	at := l.Clock(a.At.Hour(), a.At.Minute())
	if !now.IsZero() && dayBefore(a.At, now.In(a.At.Location())) {
		return l.T("While my speaker was gone, an alert went off yesterday at %s: %s", at, a.Announcement())
	}
	return l.T("While my speaker was gone, an alert went off at %s: %s", at, a.Announcement())
}

// dayBefore reports whether t is on the calendar day before now's.
func dayBefore(t, now time.Time) bool {
	y, m, d := now.Date()
	ty, tm, td := t.Date()
	return time.Date(y, m, d-1, 0, 0, 0, 0, time.UTC).Equal(time.Date(ty, tm, td, 0, 0, 0, 0, time.UTC))
}

func sayAgo(l locale.Lang, d time.Duration) string {
	switch {
	case d < 2*time.Minute:
		return l.Duration(time.Minute)
	case d < 2*time.Hour:
		return l.Duration(d.Truncate(time.Minute))
	case d < 48*time.Hour:
		return l.Duration(d.Truncate(time.Hour))
	}
	return l.Duration(d.Truncate(24 * time.Hour))
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// Scheduler adds, lists and cancels items and makes them go off. Its
// methods are safe for concurrent use.
type Scheduler struct {
	o     Options
	clock Clock
	log   *slog.Logger
	began time.Time // this start, on the monotonic clock
	// zone is the time zone alarms ring in: Options.Location until
	// SetLocation.
	zone atomic.Pointer[time.Location]

	mu      sync.Mutex
	items   map[string]*entry // pending items, and changes not yet saved
	loaded  bool              // the store's items are in items
	failing bool              // the last write failed
	seq     int
	wake    chan struct{}
}

// entry is an item as the scheduler holds it.
type entry struct {
	it storage.Item
	// deadline is a countdown's due time on the monotonic clock, for an
	// item counted from a moment of this run (a timer, a reminder "in 20
	// minutes"); zero for a clock time and for items from before this
	// start, which go by the wall clock.
	deadline time.Time
	// fresh marks an item set during this run: it never came due while
	// the box was off.
	fresh bool
	// saved is false while the store lacks the item's latest change.
	saved bool
	// stored marks an item read from the store.
	stored bool
}

// New returns a Scheduler.
func New(o Options) (*Scheduler, error) {
	if o.Store == nil {
		return nil, errors.New("schedule: no store")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Grace == 0 {
		o.Grace = time.Minute
	}
	if o.Retry == 0 {
		o.Retry = 30 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	c := o.Clock
	if c == nil {
		c = steadyClock(o.Now)
	}
	s := &Scheduler{o: o, clock: c, log: o.Log.With("pkg", "schedule"), began: time.Now(),
		items: map[string]*entry{}, wake: make(chan struct{}, 1)}
	s.zone.Store(o.Location)
	return s, nil
}

// steadyClock is a wall clock that is always set and never steps.
type steadyClock func() time.Time

func (c steadyClock) Now() time.Time         { return c() }
func (steadyClock) Synced() bool             { return true }
func (steadyClock) Changed() <-chan struct{} { return nil }

func (s *Scheduler) now() time.Time { return s.clock.Now().In(s.Location()) }

// Now is the wall time on the scheduler's clock, in its zone.
func (s *Scheduler) Now() time.Time { return s.now() }

// Location is the time zone alarms ring in.
func (s *Scheduler) Location() *time.Location { return s.zone.Load() }

// SetLocation changes the time zone alarms ring in, at once: each pending
// alarm moves to the same hour in the new zone (07:00 stays 07:00 on the
// household's clocks), as one set in another zone does when the box
// starts. Timers and reminders counted from a moment keep their instant.
// A nil loc changes nothing.
func (s *Scheduler) SetLocation(ctx context.Context, loc *time.Location) {
	if loc == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.zone.Store(loc)
	s.load(ctx)
	now := s.now()
	for _, e := range s.items {
		if e.it.Kind != storage.Alarm || !e.it.Active() {
			continue
		}
		if s.moveAlarm(&e.it, now) {
			s.log.Info("alarm moved to the same time in the box's new zone", "id", e.it.ID, "zone", loc.String(), "due", e.it.Due)
			s.save(ctx, e)
		}
	}
	s.poke()
}

// Synced reports whether the clock is set, so clock times can be placed.
func (s *Scheduler) Synced() bool { return s.clock.Synced() }

func (s *Scheduler) id(kind storage.ItemKind, now time.Time) string {
	s.seq++
	return fmt.Sprintf("%s-%d-%d", kind, now.UnixNano(), s.seq)
}

// add holds a new item and saves it; a store that refuses it leaves it
// held, to be saved later.
func (s *Scheduler) add(ctx context.Context, e *entry) storage.Item {
	s.load(ctx)
	e.fresh = true
	s.items[e.it.ID] = e
	s.save(ctx, e)
	s.poke()
	return e.it
}

func (s *Scheduler) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// AddTimer starts a timer of d, with an optional name. It counts on the
// monotonic clock from now, whether or not the clock is set.
func (s *Scheduler) AddTimer(ctx context.Context, name string, d time.Duration) (storage.Item, error) {
	if d <= 0 || d > MaxTimer {
		return storage.Item{}, fmt.Errorf("%w: a timer runs for more than no time and up to %v", ErrInvalid, MaxTimer)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	it := storage.Item{ID: s.id(storage.Timer, now), Kind: storage.Timer, Name: name, Created: now, Due: now.Add(d), Duration: d, State: storage.Pending,
		Lang: locale.LanguageOf(ctx), Area: command.AreaOf(ctx)}
	return s.add(ctx, &entry{it: it, deadline: time.Now().Add(d)}), nil
}

// ChangeTimer gives a pending timer a new length, counted from now.
func (s *Scheduler) ChangeTimer(ctx context.Context, id string, d time.Duration) (storage.Item, error) {
	if d <= 0 || d > MaxTimer {
		return storage.Item{}, fmt.Errorf("%w: a timer runs for more than no time and up to %v", ErrInvalid, MaxTimer)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.find(ctx, id)
	if err != nil || e.it.Kind != storage.Timer {
		return storage.Item{}, fmt.Errorf("schedule: timer %s is not running", id)
	}
	now := s.now()
	e.it.Duration, e.it.Due, e.it.Created = d, now.Add(d), now
	e.deadline, e.fresh = time.Now().Add(d), true
	s.save(ctx, e)
	s.poke()
	return e.it, nil
}

// timer returns a pending timer for a change.
func (s *Scheduler) timer(ctx context.Context, id string) (*entry, error) {
	e, err := s.find(ctx, id)
	if err != nil || e.it.Kind != storage.Timer {
		return nil, fmt.Errorf("schedule: timer %s is not running", id)
	}
	return e, nil
}

// leftOn is the time a running timer has left.
func (s *Scheduler) leftOn(e *entry) time.Duration {
	if !e.deadline.IsZero() {
		return time.Until(e.deadline)
	}
	return e.it.Due.Sub(s.now())
}

// PauseTimer stops a timer's countdown, keeping the time it has left.
func (s *Scheduler) PauseTimer(ctx context.Context, id string) (storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.timer(ctx, id)
	if err != nil {
		return storage.Item{}, err
	}
	if e.it.Paused {
		return e.it, nil
	}
	e.it.Paused, e.it.Left = true, max(s.leftOn(e), 0)
	e.deadline = time.Time{}
	s.save(ctx, e)
	s.poke()
	return e.it, nil
}

// ResumeTimer counts a paused timer down again from the time it had left.
func (s *Scheduler) ResumeTimer(ctx context.Context, id string) (storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.timer(ctx, id)
	if err != nil {
		return storage.Item{}, err
	}
	if !e.it.Paused {
		return e.it, nil
	}
	e.it.Due, e.it.Paused = s.now().Add(e.it.Left), false
	e.deadline, e.fresh = time.Now().Add(e.it.Left), true
	e.it.Left = 0
	s.save(ctx, e)
	s.poke()
	return e.it, nil
}

// AddToTimer gives a timer d more (less for a negative d), paused or not;
// it may not take more than the timer has left.
func (s *Scheduler) AddToTimer(ctx context.Context, id string, d time.Duration) (storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.timer(ctx, id)
	if err != nil {
		return storage.Item{}, err
	}
	left := e.it.Left
	if !e.it.Paused {
		left = s.leftOn(e)
	}
	if left+d <= 0 {
		return e.it, fmt.Errorf("%w: %v is more than the %v left", ErrTooMuch, -d, left.Round(time.Second))
	}
	if left+d > MaxTimer {
		return e.it, fmt.Errorf("%w: a timer runs for up to %v", ErrInvalid, MaxTimer)
	}
	if e.it.Paused {
		e.it.Left += d
	} else {
		e.it.Due = e.it.Due.Add(d)
		if !e.deadline.IsZero() {
			e.deadline = e.deadline.Add(d)
		}
	}
	e.it.Duration += d
	s.save(ctx, e)
	s.poke()
	return e.it, nil
}

// ErrTooMuch reports taking more time off a timer than it has left.
var ErrTooMuch = errors.New("schedule: more than the timer has left")

// AddAlarm sets an alarm at hour:minute. With days it repeats on those
// days; otherwise it goes off once, on day when day is set (its date
// counts), else at the next hour:minute. Before the clock is set the
// alarm is held (Item.Held) and placed at the next hour:minute (on one of
// days) once it is set; an alarm for a particular day other than today or
// tomorrow is then refused with ErrClockNotSet.
func (s *Scheduler) AddAlarm(ctx context.Context, name string, hour, minute int, days []time.Weekday, day time.Time) (storage.Item, error) {
	if hour < 0 || hour > 23 || minute < 0 || minute > 59 {
		return storage.Item{}, fmt.Errorf("%w: %d:%02d is not a time of day", ErrInvalid, hour, minute)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	loc := s.Location()
	it := storage.Item{ID: s.id(storage.Alarm, now), Kind: storage.Alarm, Name: name, Created: now, Hour: hour, Minute: minute, Days: days,
		Zone: loc.String(), State: storage.Pending, Lang: locale.LanguageOf(ctx)}
	switch {
	case !s.clock.Synced():
		if !day.IsZero() {
			if n := daysApart(now, day.In(loc)); n < 0 || n > 1 {
				return storage.Item{}, fmt.Errorf("%w: an alarm on a particular day waits for the clock", ErrClockNotSet)
			}
		}
		it.Held = true
		it.Due = nextAlarm(now, hour, minute, days) // a guess until the clock is set
	case !day.IsZero():
		day = day.In(loc)
		it.Due = alarmAt(day.Year(), day.Month(), day.Day(), hour, minute, loc)
		if !it.Due.After(now) {
			return storage.Item{}, fmt.Errorf("%w: %s has already passed", ErrInvalid, it.Due.Format("Monday 3:04 PM"))
		}
	default:
		it.Due = nextAlarm(now, hour, minute, days)
	}
	return s.add(ctx, &entry{it: it}), nil
}

// AddReminder reminds the user of message at due, a clock time; before
// the clock is set it is refused with ErrClockNotSet (AddReminderIn works
// at once).
func (s *Scheduler) AddReminder(ctx context.Context, message string, due time.Time) (storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.clock.Synced() {
		return storage.Item{}, fmt.Errorf("%w: a reminder at a time of day waits for the clock", ErrClockNotSet)
	}
	now := s.now()
	if !due.After(now) {
		return storage.Item{}, fmt.Errorf("%w: that time has already passed", ErrInvalid)
	}
	it := storage.Item{ID: s.id(storage.Reminder, now), Kind: storage.Reminder, Name: message, Created: now, Due: due.In(s.Location()), State: storage.Pending, Lang: locale.LanguageOf(ctx)}
	return s.add(ctx, &entry{it: it}), nil
}

// AddReminderIn reminds the user of message after d, counted like a
// timer: it works before the clock is set.
func (s *Scheduler) AddReminderIn(ctx context.Context, message string, d time.Duration) (storage.Item, error) {
	if d <= 0 {
		return storage.Item{}, fmt.Errorf("%w: that time has already passed", ErrInvalid)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	it := storage.Item{ID: s.id(storage.Reminder, now), Kind: storage.Reminder, Name: message, Created: now, Due: now.Add(d), Duration: d, State: storage.Pending, Lang: locale.LanguageOf(ctx)}
	return s.add(ctx, &entry{it: it, deadline: time.Now().Add(d)}), nil
}

// Pending returns the items still to go off, of the given kinds (all when
// none are given), soonest first. Held alarms are among them; their Due is
// a guess until the clock is set.
func (s *Scheduler) Pending(ctx context.Context, kinds ...storage.ItemKind) ([]storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := s.load(ctx)
	var out []storage.Item
	for _, e := range s.items {
		if e.it.Active() && (len(kinds) == 0 || slices.Contains(kinds, e.it.Kind)) {
			out = append(out, e.it)
		}
	}
	if err != nil && len(out) == 0 {
		return nil, err
	}
	slices.SortFunc(out, func(a, b storage.Item) int {
		if c := a.Due.Compare(b.Due); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// Cancel stops a pending item.
func (s *Scheduler) Cancel(ctx context.Context, id string) (storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, err := s.find(ctx, id)
	if err != nil {
		return storage.Item{}, err
	}
	e.it.State = storage.Cancelled
	s.save(ctx, e)
	s.poke()
	return e.it, nil
}

// find returns the pending item id: from memory, else from the store.
func (s *Scheduler) find(ctx context.Context, id string) (*entry, error) {
	s.load(ctx)
	if e, ok := s.items[id]; ok {
		if !e.it.Active() {
			return nil, fmt.Errorf("%w: %s is %s", ErrNotPending, id, e.it.State)
		}
		return e, nil
	}
	it, ok, err := s.o.Store.Get(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("schedule: %w", err)
	}
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	if !it.Active() {
		return nil, fmt.Errorf("%w: %s is %s", ErrNotPending, id, it.State)
	}
	e := &entry{it: it, saved: true, stored: true}
	s.items[id] = e
	return e, nil
}
