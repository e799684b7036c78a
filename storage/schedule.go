package storage

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// ItemKind is what a scheduled item is.
type ItemKind string

// The kinds of scheduled items.
const (
	Timer    ItemKind = "timer"
	Alarm    ItemKind = "alarm"
	Reminder ItemKind = "reminder"
)

// ItemState is where a scheduled item is in its life. An item goes
// Pending → Ringing → Done; Cancelled ends it early. A repeating alarm goes
// back to Pending with its next due time after it rang.
type ItemState string

// The item states.
const (
	Pending   ItemState = "pending"
	Ringing   ItemState = "ringing"
	Done      ItemState = "done"
	Cancelled ItemState = "cancelled"
)

// Item is a timer, alarm or reminder. Its times are wall-clock times; a
// timer's Due is moved with each step of the wall clock while the box
// runs (the scheduler counts it on the monotonic clock).
type Item struct {
	ID      string    `json:"id"`
	Kind    ItemKind  `json:"kind"`
	Name    string    `json:"name,omitempty"` // a timer's or alarm's label; a reminder's message
	Created time.Time `json:"created"`
	Due     time.Time `json:"due"`
	State   ItemState `json:"state"`
	// Duration is a timer's length as set.
	Duration time.Duration `json:"duration,omitempty"`
	// Paused is set on a timer that is paused, with Left the time it had
	// left then; Due means nothing while it is paused.
	Paused bool          `json:"paused,omitempty"`
	Left   time.Duration `json:"left,omitempty"`
	// Hour, Minute and Days describe an alarm: its time of day and, for a
	// repeating alarm, its days.
	Hour   int            `json:"hour,omitempty"`
	Minute int            `json:"minute,omitempty"`
	Days   []time.Weekday `json:"days,omitempty"`
	// Zone is the time zone an alarm rings in (an IANA name): when the
	// box's zone changes, the alarm moves to the same hour in the new one.
	Zone string `json:"zone,omitempty"`
	// Held marks an alarm set before the box's clock was set: it waits
	// for the clock, and its Due is then worked out anew from Hour, Minute
	// and Days. Until then Due is only a guess.
	Held bool `json:"held,omitempty"`
	// Rang is when the item last went off, and Late whether that was after
	// its due time because the box was off.
	Rang time.Time `json:"rang,omitzero"`
	Late bool      `json:"late,omitempty"`
	// Lang is the language the item was set in (an ISO 639-1 code), which
	// it is announced in; empty for the box's own language.
	Lang string `json:"lang,omitempty"`
	// Area is the room of the speaker it was set on ("the kitchen
	// timer"); empty when the speaker's room is not configured.
	Area string `json:"area,omitempty"`
}

// Active reports whether the item is still to go off.
func (it Item) Active() bool { return it.State == Pending }

// Schedule is the record of timers, alarms and reminders.
type Schedule struct{ db *DB }

// Schedule returns the schedule of db.
func (db *DB) Schedule() *Schedule { return &Schedule{db: db} }

const schedulePrefix = "schedule/"

// Put stores it, replacing an item with the same ID. It returns once the
// item is on disk, or fails at once with ErrUnavailable while the card
// cannot take it (see DB.Health): the schedule is never held in memory by
// the store, so the caller keeps what it could not store.
func (s *Schedule) Put(ctx context.Context, it Item) error {
	if it.ID == "" {
		return fmt.Errorf("storage: write %s: no id", it.Kind)
	}
	// Timers already set must still ring on a full disk, and whether one
	// rang must be on disk before it rings: the schedule writes into the
	// reserve, down to its last quarter.
	return s.db.putCritical(ctx, "write "+string(it.Kind), schedulePrefix+it.ID, it)
}

// Get returns the item with id.
func (s *Schedule) Get(ctx context.Context, id string) (Item, bool, error) {
	var it Item
	ok, err := s.db.get(ctx, "read schedule", schedulePrefix+id, &it)
	return it, ok, err
}

// List returns the items of the given kinds (all kinds when none are given),
// sorted by due time. While nothing is open (the card slow to open, or not
// there) it fails with ErrUnavailable: an empty list would be taken for
// the household's schedule.
func (s *Schedule) List(ctx context.Context, kinds ...ItemKind) ([]Item, error) {
	if err := s.db.readable("list schedule"); err != nil {
		return nil, err
	}
	var out []Item
	err := records(ctx, s.db, "list schedule", schedulePrefix, func(_ string, it Item) error {
		if len(kinds) == 0 || slices.Contains(kinds, it.Kind) {
			out = append(out, it)
		}
		return nil
	})
	slices.SortStableFunc(out, func(a, b Item) int { return a.Due.Compare(b.Due) })
	return out, err
}

// Delete removes the item with id.
func (s *Schedule) Delete(ctx context.Context, id string) error {
	return s.db.delCritical(ctx, "delete schedule item", schedulePrefix+id)
}
