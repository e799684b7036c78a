// Package alert is the box's one alert service: it owns the timers, alarms
// and reminders (setting, changing, listing, cancelling, kept on disk by
// reply/schedule) and their ringing. While Run runs, each item that comes
// due is handed to a Ringer, and StopAlerts silences what rings, so neither
// the ringing nor "stop" passes through the program's wiring. An alert
// that rang unheard (the speaker failed) is kept on disk until the
// household is told, so a restart does not lose it. The built-in commands
// use it through interfaces of their own.
package alert

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// Alert is one item come due, as a Ringer rings it.
type Alert struct {
	ID string
	// Announcement is said before the ringing starts, in the voice of
	// Language (the language it was set in; "" for the box's own).
	Announcement string
	Language     string
	// Missed is said instead, once the box can speak again, when the
	// alert could not be heard (the speaker was gone).
	Missed string
	// MissedAt words Missed for the time it is told ("yesterday at
	// 10:10 PM" after midnight); Stale is when it is too old to tell
	// (MissedFor after it went off; zero when that is not known): the
	// Ringer drops it then, and calls Told.
	MissedAt func(now time.Time) string
	Stale    time.Time
	// Done is called once the alert has stopped ringing, however it
	// stopped, or was dropped before it rang: the Ringer must call it.
	Done func()
	// Unheard is called once if the alert rang unheard and is kept to be
	// told, before it can be told; Told once Missed needs telling no more
	// (it was said, or a press cut the telling short), and not while it is
	// kept for a later try. The Ringer must call them; each may block
	// briefly, writing to the store.
	Unheard, Told func()
}

// Ringer rings alerts: the box's pipeline, through device/box.
type Ringer interface {
	// Ring queues an alert to ring as soon as the box is free; it never
	// blocks.
	Ring(a Alert)
	// StopAlerts silences the ringing alert and drops those waiting,
	// reporting whether there was any. It is safe from any goroutine.
	StopAlerts() bool
	// StopAlert silences the alert of id, ringing or waiting, reporting
	// whether there was one.
	StopAlert(id string) bool
	// Tell keeps an alert that rang unheard before the box restarted, to
	// be told (its Missed) once the box can speak, and calls its Told
	// then; it never blocks, and does not ring.
	Tell(a Alert)
}

// Options configure a Service.
type Options struct {
	// Schedule configures the timers, alarms and reminders; its Store is
	// required.
	Schedule schedule.Options
	// Missed keeps the alerts that rang unheard until the household is
	// told; *storage.Missed is one. Nil keeps them in the Ringer's memory
	// only: a restart loses them.
	Missed MissedStore
}

// Service keeps the timers, alarms and reminders and rings them. Its
// methods are safe for concurrent use.
type Service struct {
	*schedule.Scheduler
	log *slog.Logger

	missed MissedStore // nil: not kept
	clock  schedule.Clock
	retry  time.Duration // how often a store that cannot be read is tried again

	mu       sync.Mutex
	ringer   Ringer                  // while Run runs
	ringing  map[string]storage.Item // handed to the ringer and not yet stopped
	silenced []silenced              // stopped within justRang, oldest first
	// handed are the missed alerts (by record id) this start handed to a
	// ringer or recorded: never handed over again.
	handed map[string]bool
}

// silenced is an item that stopped ringing, and when.
type silenced struct {
	it storage.Item
	at time.Time
}

// justRang is how long after it stops ringing an item is still what
// "stop the timer" means: the press that begins the turn silences it
// before the words are heard.
const justRang = time.Minute

// New returns the service over o.Schedule.Store (and o.Missed). Nothing
// rings until Run.
func New(o Options) (*Service, error) {
	s, err := schedule.New(o.Schedule)
	if err != nil {
		return nil, err
	}
	log := o.Schedule.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	retry := o.Schedule.Retry
	if retry == 0 {
		retry = 30 * time.Second
	}
	return &Service{Scheduler: s, log: log.With("pkg", "alert"), missed: o.Missed, clock: o.Schedule.Clock, retry: retry,
		ringing: map[string]storage.Item{}, handed: map[string]bool{}}, nil
}

// ErrRunning reports a second Run while one runs.
var ErrRunning = errors.New("alert: the service is already running")

// Run rings every item as it comes due through r until ctx is done; items
// that came due while the box was off ring at once, marked late. Each that
// rings unheard is recorded (Options.Missed) until it is told; the ones
// recorded before this start and never told are handed to r's Tell, or
// dropped when they went off more than MissedFor ago. It returns nil when
// ctx is done.
func (s *Service) Run(ctx context.Context, r Ringer) error {
	s.mu.Lock()
	if s.ringer != nil {
		s.mu.Unlock()
		return ErrRunning
	}
	s.ringer = r
	clear(s.handed) // what an earlier Run handed over went with its ringer
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.ringer = nil
		clear(s.ringing)
		s.mu.Unlock()
	}()
	tctx, stopTelling := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer stopTelling()
	wg.Go(func() { s.tellMissed(tctx, r) })
	// The store is written beyond ctx: an alert that rings unheard until
	// the box stops is told after it starts again.
	keep := context.WithoutCancel(ctx)
	err := s.Scheduler.Run(ctx, func(a schedule.Alert) {
		id := a.Item.ID
		s.mu.Lock()
		s.ringing[id] = a.Item
		s.mu.Unlock()
		m := missedOf(a)
		r.Ring(Alert{ID: id, Announcement: a.Announcement(), Language: a.Item.Lang, Missed: a.Missed(a.At), MissedAt: a.Missed, Stale: stale(a.At), Done: func() { s.stopped(id) },
			Unheard: func() { s.unheard(keep, m) }, Told: func() { s.clearMissed(keep, m) }})
	})
	if err != nil && ctx.Err() == nil {
		return err
	}
	return nil
}

// StopAlerts silences what rings, reporting whether anything did; nothing
// rings while Run is not running (hark ask).
func (s *Service) StopAlerts() bool {
	s.mu.Lock()
	r := s.ringer
	was := slices.Collect(maps.Keys(s.ringing))
	s.mu.Unlock()
	if r == nil {
		return false
	}
	stopped := r.StopAlerts()
	s.stopped(was...) // silenced now, whenever the ringer reports it done
	return stopped
}

// stopped forgets that the items of ids ring.
func (s *Service) stopped(ids ...string) {
	now := time.Now()
	s.mu.Lock()
	for _, id := range ids {
		if it, ok := s.ringing[id]; ok {
			s.silenced = append(s.silenced, silenced{it, now})
		}
		delete(s.ringing, id)
	}
	s.forget(now)
	s.mu.Unlock()
}

// forget drops what stopped ringing more than justRang ago.
func (s *Service) forget(now time.Time) {
	s.silenced = slices.DeleteFunc(s.silenced, func(x silenced) bool { return now.Sub(x.at) > justRang })
}

// JustRang lists the items of kind that ring now, wait to, or stopped
// ringing in the last minute: the timer "stop the timer" means when one
// has just gone off, though others still run.
func (s *Service) JustRang(kind storage.ItemKind) []storage.Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.forget(time.Now())
	var out []storage.Item
	for _, it := range s.ringing {
		if it.Kind == kind {
			out = append(out, it)
		}
	}
	for _, x := range s.silenced {
		if x.it.Kind == kind && !slices.ContainsFunc(out, func(it storage.Item) bool { return it.ID == x.it.ID }) {
			out = append(out, x.it)
		}
	}
	return out
}

// Ringing lists the items ringing now, or waiting their turn to ring,
// oldest due first.
func (s *Service) Ringing() []storage.Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]storage.Item, 0, len(s.ringing))
	for _, it := range s.ringing {
		out = append(out, it)
	}
	slices.SortFunc(out, func(a, b storage.Item) int { return a.Due.Compare(b.Due) })
	return out
}

// StopAlert silences the item of id if it rings (or waits to), reporting
// whether it did.
func (s *Service) StopAlert(id string) bool {
	s.mu.Lock()
	r := s.ringer
	_, ringing := s.ringing[id]
	s.mu.Unlock()
	if r == nil || !ringing {
		return false
	}
	stopped := r.StopAlert(id)
	s.stopped(id)
	return stopped
}

// Request is a timer, alarm or reminder set from outside a conversation
// (the daemon's API): a timer In from now, an alarm or reminder At a time.
type Request struct {
	Kind storage.ItemKind
	Name string
	In   time.Duration
	At   time.Time
}

// Set sets what r asks for by the rules the spoken commands keep: a timer
// of up to schedule.MaxTimer, an alarm or a reminder in the future (an
// alarm rings at At's hour and minute in the service's time zone), a
// reminder of something, In a while or At a time. A refusal wraps
// schedule.ErrInvalid (or, for a clock time before the clock is set,
// schedule.ErrClockNotSet) and says why.
func (s *Service) Set(ctx context.Context, r Request) (storage.Item, error) {
	switch r.Kind {
	case storage.Timer:
		return s.AddTimer(ctx, r.Name, r.In)
	case storage.Alarm:
		if r.At.IsZero() {
			return storage.Item{}, fmt.Errorf("%w: an alarm needs a time", schedule.ErrInvalid)
		}
		at := r.At.In(s.Location())
		return s.AddAlarm(ctx, r.Name, at.Hour(), at.Minute(), nil, at)
	case storage.Reminder:
		if strings.TrimSpace(r.Name) == "" {
			return storage.Item{}, fmt.Errorf("%w: a reminder needs something to remind of", schedule.ErrInvalid)
		}
		switch {
		case r.In > 0:
			return s.AddReminderIn(ctx, r.Name, r.In)
		case r.At.IsZero():
			return storage.Item{}, fmt.Errorf("%w: a reminder needs a time", schedule.ErrInvalid)
		}
		return s.AddReminder(ctx, r.Name, r.At)
	}
	return storage.Item{}, fmt.Errorf("%w: %q is not a timer, alarm or reminder", schedule.ErrInvalid, r.Kind)
}
