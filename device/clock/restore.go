package clock

import (
	"fmt"
	"time"
)

// Restore sets the system clock to the uptime record in dir when the clock
// is behind it (a board without a real-time clock boots behind), and
// returns the time it set, zero when it set nothing. It needs the
// CAP_SYS_TIME capability: hark-clock.service runs it as root before
// time-set.target, ahead of hark.service and of NTP.
func Restore(dir string) (time.Time, error) {
	r, err := Load(dir)
	if err != nil {
		return time.Time{}, err
	}
	return restore(r, time.Now(), setSystemClock)
}

// restore sets the clock with set to r's time when now is behind it.
func restore(r Record, now time.Time, set func(time.Time) error) (time.Time, error) {
	if r.Alive.IsZero() || !now.Before(r.Alive) {
		return time.Time{}, nil
	}
	if err := set(r.Alive); err != nil {
		return time.Time{}, fmt.Errorf("clock: set the clock to %s: %w", r.Alive.Format(time.RFC3339), err)
	}
	return r.Alive, nil
}
