package storage

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// MissedAlert is a timer, alarm or reminder that went off while nobody
// could hear it (the speaker failed; only the lights showed it), kept
// until the household is told.
type MissedAlert struct {
	// ID names this going-off: a repeating alarm missed twice is two.
	ID string `json:"id"`
	// Item is the item as it went off (its Rang is when).
	Item Item `json:"item"`
	// At is when it went off on the household's clock, in its zone; zero
	// when the box's clock was not set then.
	At time.Time `json:"at,omitzero"`
	// LateBy is how long after its due time it went off, when it came due
	// while the box was off; zero otherwise.
	LateBy time.Duration `json:"late_by,omitempty"`
}

// Missed is the record of alerts nobody heard.
type Missed struct{ db *DB }

// Missed returns the record of missed alerts of db.
func (db *DB) Missed() *Missed { return &Missed{db: db} }

const missedPrefix = "missed/"

// Put keeps a, replacing one with the same ID. Like the schedule's, the
// write may use the storage reserve and is never held in memory: it
// returns once a is on disk, or fails (ErrUnavailable while the card
// cannot take it).
func (m *Missed) Put(ctx context.Context, a MissedAlert) error {
	if a.ID == "" {
		return fmt.Errorf("storage: write missed %s: no id", a.Item.Kind)
	}
	return m.db.putCritical(ctx, "write missed "+string(a.Item.Kind), missedPrefix+a.ID, a)
}

// Delete forgets the missed alert of id; one not kept is no error.
func (m *Missed) Delete(ctx context.Context, id string) error {
	return m.db.delCritical(ctx, "delete missed alert", missedPrefix+id)
}

// List returns the missed alerts, oldest first. While nothing is open it
// fails with ErrUnavailable, as Schedule.List does.
func (m *Missed) List(ctx context.Context) ([]MissedAlert, error) {
	if err := m.db.readable("list missed alerts"); err != nil {
		return nil, err
	}
	var out []MissedAlert
	err := records(ctx, m.db, "list missed alerts", missedPrefix, func(_ string, a MissedAlert) error {
		out = append(out, a)
		return nil
	})
	slices.SortStableFunc(out, func(a, b MissedAlert) int { return a.Item.Rang.Compare(b.Item.Rang) })
	return out, err
}
