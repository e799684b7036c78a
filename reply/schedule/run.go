package schedule

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/harkbox/hark/storage"
)

// recheck bounds a wait for a clock time, so a wall clock slewed (not
// stepped) by NTP over a long wait is read again before the item is due.
const recheck = 10 * time.Minute

// Run makes items go off until ctx is done, calling ring for each. ring must
// not block; it is called with the scheduler's lock held. Items that came
// due while Hark was not running go off at once, marked late; an item found
// ringing was interrupted by a power cut and is not rung again. A store
// that cannot be read or written does not stop it: it rings what it holds
// and keeps trying the store every Options.Retry.
func (s *Scheduler) Run(ctx context.Context, ring func(Alert)) error {
	s.mu.Lock()
	if err := s.load(ctx); err != nil {
		s.log.Warn("cannot read the timers, alarms and reminders; ringing what is set from now on, and trying again", "err", err)
	}
	s.mu.Unlock()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	// The channel is taken before the clock is read, so no step is missed.
	changed := s.clock.Changed()
	for {
		s.mu.Lock()
		s.load(ctx)
		s.flush(ctx)
		s.fire(ctx, ring)
		wait, ok := s.nextWait()
		s.mu.Unlock()
		var alarm <-chan time.Time
		if ok {
			timer.Reset(max(wait, 0))
			alarm = timer.C
		}
		select {
		case <-ctx.Done():
			return nil
		case <-alarm:
		case <-s.wake:
		case <-changed:
			changed = s.clock.Changed()
			s.mu.Lock()
			s.clockChanged(ctx)
			s.mu.Unlock()
		}
		timer.Stop()
	}
}

// load reads the store's pending items into memory, once it can: items
// set meanwhile are kept. It settles what it reads: an item a power cut
// left ringing is done, an alarm set in another zone moves to the same
// hour in this one, a held alarm is placed when the clock is set.
func (s *Scheduler) load(ctx context.Context) error {
	if s.loaded {
		return nil
	}
	all, err := s.o.Store.List(ctx)
	if err != nil {
		return fmt.Errorf("schedule: %w", err)
	}
	s.loaded = true
	now := s.now()
	for _, it := range all {
		if it.State != storage.Pending && it.State != storage.Ringing {
			continue
		}
		if mine, ok := s.items[it.ID]; ok {
			if mine.stored || sameItem(mine.it, it) {
				continue // read before, and changed since
			}
			// An item set while the store could not be read took an id the
			// store already had (two starts at the same clock reading): it
			// moves to a new id; both are kept.
			delete(s.items, it.ID)
			mine.it.ID += "-" + strconv.Itoa(s.seq)
			s.seq++
			s.items[mine.it.ID] = mine
			s.save(ctx, mine)
		}
		e := &entry{it: it, saved: true, stored: true}
		if s.o.Continues && it.Duration > 0 && it.State == storage.Pending && !it.Paused && !it.Held {
			// A countdown on the same clock: it goes on where it was.
			e.deadline, e.fresh = time.Now().Add(it.Due.Sub(now)), true
		}
		s.items[it.ID] = e
		if it.State == storage.Ringing {
			s.log.Info("item was ringing when Hark stopped; not ringing it again", "kind", it.Kind, "id", it.ID)
			e.it.State = storage.Done
			s.save(ctx, e)
			continue
		}
		if it.Kind == storage.Alarm && s.moveAlarm(&e.it, now) {
			s.log.Info("alarm moved to the same time in the box's zone", "id", it.ID, "zone", s.Location().String(), "due", e.it.Due)
			s.save(ctx, e)
		}
	}
	s.place(ctx, now)
	return nil
}

// save writes e's item. A refused write keeps it in memory, unsaved, and
// is tried again; a saved item that is no longer pending leaves memory.
func (s *Scheduler) save(ctx context.Context, e *entry) error {
	err := s.o.Store.Put(ctx, e.it)
	e.saved = err == nil
	switch {
	case err != nil && !s.failing:
		s.failing = true
		s.log.Warn("cannot save a timer, alarm or reminder; it is kept in memory and rings on time, and saving is tried again", "id", e.it.ID, "err", err)
	case err == nil && s.failing:
		s.failing = false
		s.log.Info("timers, alarms and reminders are saved again")
	}
	if e.saved && !e.it.Active() {
		delete(s.items, e.it.ID)
	}
	return err
}

// flush tries again to save what the store refused.
func (s *Scheduler) flush(ctx context.Context) error {
	var errs []error
	for _, e := range s.items {
		if e.saved {
			continue
		}
		if err := s.save(ctx, e); err != nil {
			errs = append(errs, fmt.Errorf("schedule: save %s: %w", e.it.ID, err))
			break // the store is still failing; the rest waits for the next try
		}
	}
	return errors.Join(errs...)
}

// Flush saves at once what the store refused before, reporting whether
// anything is still unsaved.
func (s *Scheduler) Flush(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.load(ctx); err != nil {
		return err
	}
	return s.flush(ctx)
}

// Unsaved returns the items whose latest change the store has not taken
// (it refused the write): they ring from memory and are lost if the box
// stops before the store takes them.
func (s *Scheduler) Unsaved() []storage.Item {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []storage.Item
	for _, e := range s.items {
		if !e.saved {
			out = append(out, e.it)
		}
	}
	slices.SortFunc(out, func(a, b storage.Item) int { return a.Due.Compare(b.Due) })
	return out
}

// left is how long until e is due, and whether it can be known: a clock
// time waits while the clock is not set.
func (s *Scheduler) left(e *entry, now, mono time.Time, synced bool) (time.Duration, bool) {
	switch {
	case !e.it.Active() || e.it.Held || e.it.Paused:
		return 0, false
	case !e.deadline.IsZero():
		return e.deadline.Sub(mono), true
	case !synced:
		return 0, false
	}
	return e.it.Due.Sub(now), true
}

// fire sets off every item that is due, soonest first.
func (s *Scheduler) fire(ctx context.Context, ring func(Alert)) {
	now, mono, synced := s.now(), time.Now(), s.clock.Synced()
	var due []*entry
	for _, e := range s.items {
		if d, ok := s.left(e, now, mono, synced); ok && d <= 0 {
			due = append(due, e)
		}
	}
	slices.SortFunc(due, func(a, b *entry) int { return a.it.Due.Compare(b.it.Due) })
	for _, e := range due {
		s.goOff(ctx, e, now, mono, synced, ring)
	}
}

// goOff rings e (or, when it rang before and only the record was lost,
// settles it) and records that it did, before ring is called: whatever
// happens next, this occurrence never goes off again.
func (s *Scheduler) goOff(ctx context.Context, e *entry, now, mono time.Time, synced bool, ring func(Alert)) {
	it := e.it
	late := now.Sub(it.Due)
	if !e.deadline.IsZero() {
		late = mono.Sub(e.deadline)
	}
	a := Alert{Item: it}
	if synced {
		a.At = now
	}
	ringIt := true
	if !e.fresh {
		// Set before this start: was the box off when it came due?
		start := now.Add(-time.Since(s.began))
		switch {
		case !s.o.LastAlive.IsZero() && !it.Due.After(s.o.LastAlive):
			// The box ran past its due time, so it went off then; only
			// the record of it was lost (the store refused it).
			s.log.Info("item came due while the box ran; its ringing was not saved, so it is not rung again", "kind", it.Kind, "id", it.ID)
			ringIt = false
		case it.Due.Before(start) && late > s.o.Grace:
			a.LateBy = late // said in the announcement
		}
	}
	it.Rang, it.Late = now, a.LateBy > 0
	if it.Kind == storage.Alarm && len(it.Days) > 0 {
		it.Due = nextAlarm(now, it.Hour, it.Minute, it.Days)
	} else {
		it.State = storage.Done
	}
	e.it, e.deadline = it, time.Time{}
	s.save(ctx, e)
	if ringIt {
		s.log.Info("item due", "kind", it.Kind, "id", it.ID, "late_ms", late.Milliseconds())
		ring(a)
	}
}

// nextWait is how long until the next item is due, bounded for clock
// times (recheck) and while something waits to be saved or read.
func (s *Scheduler) nextWait() (time.Duration, bool) {
	now, mono, synced := s.now(), time.Now(), s.clock.Synced()
	var wait time.Duration
	found := false
	take := func(d time.Duration) {
		if !found || d < wait {
			wait, found = d, true
		}
	}
	for _, e := range s.items {
		if !e.saved {
			take(s.o.Retry)
		}
		d, ok := s.left(e, now, mono, synced)
		if !ok {
			continue
		}
		if e.deadline.IsZero() {
			d = min(d, recheck)
		}
		take(d)
	}
	if !s.loaded {
		take(s.o.Retry)
	}
	return wait, found
}

// clockChanged follows a step of the wall clock or its being set: each
// countdown keeps its monotonic deadline, so its wall-clock due time moves
// by the step; held alarms are placed once the clock is set.
func (s *Scheduler) clockChanged(ctx context.Context) {
	now, mono := s.now(), time.Now()
	moved := 0
	var step time.Duration
	for _, e := range s.items {
		if e.deadline.IsZero() || !e.it.Active() {
			continue
		}
		due := now.Add(e.deadline.Sub(mono))
		if d := due.Sub(e.it.Due); d > time.Second || d < -time.Second {
			e.it.Due, step = due, d
			moved++
			s.save(ctx, e)
		}
	}
	if moved > 0 {
		s.log.Info("the wall clock was stepped: countdowns keep their time", "step_ms", step.Milliseconds(), "moved", moved)
	}
	s.place(ctx, now)
}

// place works out held alarms' times once the clock is set: the next
// hour:minute (on one of their days) from now.
func (s *Scheduler) place(ctx context.Context, now time.Time) {
	if !s.clock.Synced() {
		return
	}
	for _, e := range s.items {
		if !e.it.Held || !e.it.Active() {
			continue
		}
		e.it.Held = false
		e.it.Zone = s.Location().String()
		e.it.Due = nextAlarm(now, e.it.Hour, e.it.Minute, e.it.Days)
		s.log.Info("the clock is set: held alarm placed", "id", e.it.ID, "due", e.it.Due.Format(time.RFC3339))
		s.save(ctx, e)
	}
}

// sameItem reports whether a and b are one item (as set; what changes as
// it goes off aside).
func sameItem(a, b storage.Item) bool {
	return a.Kind == b.Kind && a.Created.Equal(b.Created) && a.Name == b.Name && a.Duration == b.Duration &&
		a.Hour == b.Hour && a.Minute == b.Minute
}
