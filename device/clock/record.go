package clock

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/harkbox/hark/internal/atomicfile"
)

// RecordFile is the uptime record's name in the data directory.
const RecordFile = "clock.json"

// Record is the box's uptime record, kept on the data partition: the
// last moment the box was known to run, on its wall clock, and whether
// that clock was set. It tells, at the next start, what came due while
// the box was off, and `hark clock restore` sets a clock that booted
// behind to it, so the clock never starts behind the last shutdown.
type Record struct {
	Alive  time.Time `json:"alive"`
	Synced bool      `json:"synced"`
	// AliveSynced is the last moment the box was known to run on a clock
	// that was set; Alive, when Synced.
	AliveSynced time.Time `json:"alive_synced,omitzero"`
	// Boot is the clock's Boot when the record was written.
	Boot string `json:"boot,omitempty"`
}

// Continues reports whether c reads on from the clock the record was
// written on: the same boot, so that a time read then and one read now
// are apart by the time that passed, set or not.
func (r Record) Continues(c Source) bool { return r.Boot != "" && r.Boot == c.Boot() }

// LastAlive is the last moment the box was known to run on a set clock:
// what due times are compared with at the next start. Alive, read on a
// clock not yet set, is not: a restored clock runs on past the times of
// what waits for the real one, which never rang. Zero when unknown.
func (r Record) LastAlive() time.Time {
	if r.Synced {
		return r.Alive
	}
	return r.AliveSynced
}

// Load reads the record in dir; a missing record is the zero Record.
func Load(dir string) (Record, error) {
	var r Record
	b, err := os.ReadFile(filepath.Join(dir, RecordFile))
	if errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return r, fmt.Errorf("clock: read the uptime record: %w", err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, fmt.Errorf("clock: read the uptime record %s: %w", filepath.Join(dir, RecordFile), err)
	}
	return r, nil
}

// save writes the record of now into dir, keeping the last moment on a
// set clock from the record before while the clock is not set.
func save(dir string, c Source) error {
	r := Record{Alive: c.Now().UTC(), Synced: c.Synced(), Boot: c.Boot()}
	if r.Synced {
		r.AliveSynced = r.Alive
	} else if before, err := Load(dir); err == nil {
		r.AliveSynced = before.LastAlive()
	}
	b, _ := json.Marshal(r)
	return atomicfile.Write(filepath.Join(dir, RecordFile), append(b, '\n'), 0o644)
}

// Keep writes the uptime record into dir every interval, at each change
// of the clock and once more when ctx is done. A write that fails (a
// read-only data partition) is logged once and tried again at the next.
func Keep(ctx context.Context, dir string, c Source, interval time.Duration, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	failing := false
	write := func() {
		err := save(dir, c)
		switch {
		case err != nil && !failing:
			log.Warn("cannot keep the uptime record; what comes due while the box is off may not be told", "err", err)
		case err == nil && failing:
			log.Info("the uptime record is kept again")
		}
		failing = err != nil
	}
	for {
		ch := c.Changed() // taken before the clock is read, so no step is missed
		write()
		select {
		case <-ctx.Done():
			write()
			return
		case <-t.C:
		case <-ch:
		}
	}
}
