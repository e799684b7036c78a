// Package schedule keeps Hark's timers, alarms and reminders and makes them
// go off. Every change is on disk before it is acknowledged, so a timer
// survives a reboot; an item that came due while the box was off goes off
// once when it starts and says it is late; nothing goes off twice.
package schedule

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/storage"
)

// Store keeps the items; *storage.Schedule is one.
type Store interface {
	Put(ctx context.Context, it storage.Item) error
	Get(ctx context.Context, id string) (storage.Item, bool, error)
	List(ctx context.Context, kinds ...storage.ItemKind) ([]storage.Item, error)
}

// Options configure a Scheduler. Store is required.
type Options struct {
	Store Store
	// Now is the clock; default time.Now.
	Now func() time.Time
	// Location is the user's time zone for alarms; default time.Local.
	Location *time.Location
	// Grace is how late an item may go off and still not count as late;
	// default one minute.
	Grace time.Duration
	Log   *slog.Logger
}

// Alert is an item going off.
type Alert struct {
	Item storage.Item
	// LateBy is how long after its due time it went off, when it came due
	// while Hark was not running; zero otherwise.
	LateBy time.Duration
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
			s = l.T("It's %s. %s.", l.Clock(it.Due.Hour(), it.Due.Minute()), capitalize(it.Name))
		} else {
			s = l.T("It's %s. This is your alarm.", l.Clock(it.Due.Hour(), it.Due.Minute()))
		}
	case storage.Reminder:
		s = l.T("Reminder: %s.", strings.TrimSuffix(it.Name, "."))
	}
	if a.LateBy > 0 {
		s += " " + l.T("I was switched off when it came due, %s ago.", sayAgo(l, a.LateBy))
	}
	return s
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
	o    Options
	log  *slog.Logger
	mu   sync.Mutex // orders changes to the store
	wake chan struct{}
	seq  int
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
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Scheduler{o: o, log: o.Log.With("pkg", "schedule"), wake: make(chan struct{}, 1)}, nil
}

func (s *Scheduler) now() time.Time { return s.o.Now().In(s.o.Location) }

func (s *Scheduler) id(kind storage.ItemKind, now time.Time) string {
	s.seq++
	return fmt.Sprintf("%s-%d-%d", kind, now.UnixNano(), s.seq)
}

func (s *Scheduler) put(ctx context.Context, it storage.Item) error {
	if err := s.o.Store.Put(ctx, it); err != nil {
		return err
	}
	select {
	case s.wake <- struct{}{}:
	default:
	}
	return nil
}

// AddTimer starts a timer of d, with an optional name.
func (s *Scheduler) AddTimer(ctx context.Context, name string, d time.Duration) (storage.Item, error) {
	if d <= 0 {
		return storage.Item{}, errors.New("schedule: a timer needs a length")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	it := storage.Item{ID: s.id(storage.Timer, now), Kind: storage.Timer, Name: name, Created: now, Due: now.Add(d), Duration: d, State: storage.Pending,
		Lang: command.LanguageOf(ctx), Area: command.AreaOf(ctx)}
	return it, s.put(ctx, it)
}

// ChangeTimer gives a pending timer a new length, counted from now.
func (s *Scheduler) ChangeTimer(ctx context.Context, id string, d time.Duration) (storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok, err := s.o.Store.Get(ctx, id)
	if err != nil {
		return it, err
	}
	if !ok || !it.Active() {
		return it, fmt.Errorf("schedule: timer %s is not running", id)
	}
	now := s.now()
	it.Duration, it.Due, it.Created = d, now.Add(d), now
	return it, s.put(ctx, it)
}

// timer reads a pending timer for a change.
func (s *Scheduler) timer(ctx context.Context, id string) (storage.Item, error) {
	it, ok, err := s.o.Store.Get(ctx, id)
	if err != nil {
		return it, err
	}
	if !ok || !it.Active() || it.Kind != storage.Timer {
		return it, fmt.Errorf("schedule: timer %s is not running", id)
	}
	return it, nil
}

// PauseTimer stops a timer's countdown, keeping the time it has left.
func (s *Scheduler) PauseTimer(ctx context.Context, id string) (storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, err := s.timer(ctx, id)
	if err != nil || it.Paused {
		return it, err
	}
	it.Paused, it.Left = true, max(it.Due.Sub(s.now()), 0)
	return it, s.put(ctx, it)
}

// ResumeTimer counts a paused timer down again from the time it had left.
func (s *Scheduler) ResumeTimer(ctx context.Context, id string) (storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, err := s.timer(ctx, id)
	if err != nil || !it.Paused {
		return it, err
	}
	it.Due, it.Paused, it.Left = s.now().Add(it.Left), false, 0
	return it, s.put(ctx, it)
}

// AddToTimer gives a timer d more (less for a negative d), paused or not;
// it may not take more than the timer has left.
func (s *Scheduler) AddToTimer(ctx context.Context, id string, d time.Duration) (storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, err := s.timer(ctx, id)
	if err != nil {
		return it, err
	}
	left := it.Left
	if !it.Paused {
		left = it.Due.Sub(s.now())
	}
	if left+d <= 0 {
		return it, fmt.Errorf("%w: %v is more than the %v left", ErrTooMuch, -d, left.Round(time.Second))
	}
	if it.Paused {
		it.Left += d
	} else {
		it.Due = it.Due.Add(d)
	}
	it.Duration += d
	return it, s.put(ctx, it)
}

// ErrTooMuch reports taking more time off a timer than it has left.
var ErrTooMuch = errors.New("schedule: more than the timer has left")

// AddAlarm sets an alarm at hour:minute. With days it repeats on those
// days; otherwise it goes off once, on day when day is set (its date
// counts), else at the next hour:minute.
func (s *Scheduler) AddAlarm(ctx context.Context, name string, hour, minute int, days []time.Weekday, day time.Time) (storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	it := storage.Item{ID: s.id(storage.Alarm, now), Kind: storage.Alarm, Name: name, Created: now, Hour: hour, Minute: minute, Days: days, State: storage.Pending, Lang: command.LanguageOf(ctx)}
	if !day.IsZero() {
		it.Due = time.Date(day.Year(), day.Month(), day.Day(), hour, minute, 0, 0, s.o.Location)
		if !it.Due.After(now) {
			return storage.Item{}, fmt.Errorf("schedule: %s has already passed", it.Due.Format("Monday 3:04 PM"))
		}
	} else {
		it.Due = nextAlarm(now, hour, minute, days)
	}
	return it, s.put(ctx, it)
}

// nextAlarm is the first hour:minute after now on one of days (any day
// when days is empty).
func nextAlarm(now time.Time, hour, minute int, days []time.Weekday) time.Time {
	for i := 0; i < 8; i++ {
		t := time.Date(now.Year(), now.Month(), now.Day()+i, hour, minute, 0, 0, now.Location())
		if t.After(now) && (len(days) == 0 || slices.Contains(days, t.Weekday())) {
			return t
		}
	}
	return time.Date(now.Year(), now.Month(), now.Day()+1, hour, minute, 0, 0, now.Location())
}

// AddReminder reminds the user of message at due.
func (s *Scheduler) AddReminder(ctx context.Context, message string, due time.Time) (storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if !due.After(now) {
		return storage.Item{}, errors.New("schedule: that time has already passed")
	}
	it := storage.Item{ID: s.id(storage.Reminder, now), Kind: storage.Reminder, Name: message, Created: now, Due: due, State: storage.Pending, Lang: command.LanguageOf(ctx)}
	return it, s.put(ctx, it)
}

// Pending returns the items still to go off, of the given kinds (all when
// none are given), soonest first.
func (s *Scheduler) Pending(ctx context.Context, kinds ...storage.ItemKind) ([]storage.Item, error) {
	all, err := s.o.Store.List(ctx, kinds...)
	if err != nil {
		return nil, err
	}
	var out []storage.Item
	for _, it := range all {
		if it.Active() {
			out = append(out, it)
		}
	}
	return out, nil
}

// Cancel stops a pending item.
func (s *Scheduler) Cancel(ctx context.Context, id string) (storage.Item, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	it, ok, err := s.o.Store.Get(ctx, id)
	if err != nil {
		return it, err
	}
	if !ok || !it.Active() {
		return it, fmt.Errorf("schedule: %s is not pending", id)
	}
	it.State = storage.Cancelled
	return it, s.put(ctx, it)
}

// Run makes items go off until ctx is done, calling ring for each. ring must
// not block. Items that came due while Hark was not running go off at once,
// marked late; an item found ringing was interrupted by a power cut and is
// not rung again.
func (s *Scheduler) Run(ctx context.Context, ring func(Alert)) error {
	if err := s.recover(ctx); err != nil {
		return err
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		next, err := s.fire(ctx, ring)
		if err != nil {
			s.log.Warn("schedule check failed; retrying in a minute", "err", err)
			next = s.now().Add(time.Minute)
		}
		wait := time.Hour
		if !next.IsZero() {
			wait = min(wait, next.Sub(s.now()))
		}
		timer.Reset(max(wait, 0))
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case <-s.wake:
		}
	}
}

// recover settles items a power cut left ringing.
func (s *Scheduler) recover(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.o.Store.List(ctx)
	if err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	for _, it := range all {
		if it.State == storage.Ringing {
			s.log.Info("item was ringing when Hark stopped; not ringing it again", "kind", it.Kind, "id", it.ID)
			it.State = storage.Done
			if err := s.o.Store.Put(ctx, it); err != nil {
				return fmt.Errorf("schedule: %w", err)
			}
		}
	}
	return nil
}

// fire sets off every due item and returns when the next one is due (zero
// when none is pending).
func (s *Scheduler) fire(ctx context.Context, ring func(Alert)) (time.Time, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	all, err := s.o.Store.List(ctx)
	if err != nil {
		return time.Time{}, err
	}
	now := s.now()
	var next time.Time
	for _, it := range all {
		if !it.Active() || it.Paused {
			continue
		}
		if it.Due.After(now) {
			if next.IsZero() || it.Due.Before(next) {
				next = it.Due
			}
			continue
		}
		a := Alert{Item: it}
		late := now.Sub(it.Due)
		if late > s.o.Grace {
			a.LateBy = late // said in the announcement
		}
		// On disk first: whatever happens next, this occurrence never goes
		// off again.
		it.Rang, it.Late = now, a.LateBy > 0
		if it.Kind == storage.Alarm && len(it.Days) > 0 {
			it.Due = nextAlarm(now, it.Hour, it.Minute, it.Days)
			if next.IsZero() || it.Due.Before(next) {
				next = it.Due
			}
		} else {
			it.State = storage.Ringing
		}
		if err := s.o.Store.Put(ctx, it); err != nil {
			return time.Time{}, err
		}
		s.log.Info("item due", "kind", it.Kind, "id", it.ID, "late_ms", late.Milliseconds())
		ring(a)
		if it.State == storage.Ringing {
			it.State = storage.Done
			if err := s.o.Store.Put(ctx, it); err != nil {
				return time.Time{}, err
			}
		}
	}
	return next, nil
}
