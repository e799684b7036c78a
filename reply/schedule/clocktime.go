package schedule

import (
	"slices"
	"time"

	"github.com/harkbox/hark/storage"
)

// alarmAt is hour:minute on a date in loc. A time the clocks skip (spring
// forward) is the moment they jump over it; a time they repeat (fall back)
// is its first occurrence.
func alarmAt(year int, month time.Month, day, hour, minute int, loc *time.Location) time.Time {
	t := time.Date(year, month, day, hour, minute, 0, 0, loc)
	start, end := t.ZoneBounds()
	if start.IsZero() {
		return t
	}
	want := time.Date(year, month, day, hour, minute, 0, 0, time.UTC)
	if read := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), 0, 0, time.UTC); !read.Equal(want) {
		// Skipped: time.Date moved it across the gap, forwards (east of
		// UTC, as Go does today) or backwards (west of it). The jump is
		// where the zone in effect began, or where it ends.
		if read.After(want) {
			return start
		}
		if !end.IsZero() {
			return end
		}
		return t
	}
	// Repeated: the same reading an offset earlier, in the zone before.
	_, off := t.Zone()
	_, before := start.Add(-time.Second).Zone()
	if before > off {
		if u := t.Add(-time.Duration(before-off) * time.Second); u.Before(start) && u.Hour() == hour && u.Minute() == minute {
			return u
		}
	}
	return t
}

// nextAlarm is the first hour:minute after now on one of days (any day
// when days is empty), in now's zone.
func nextAlarm(now time.Time, hour, minute int, days []time.Weekday) time.Time {
	loc := now.Location()
	y, m, d := now.Date()
	for i := 0; i < 9; i++ {
		date := time.Date(y, m, d+i, 12, 0, 0, 0, loc) // noon: never in a gap
		if len(days) > 0 && !slices.Contains(days, date.Weekday()) {
			continue
		}
		if t := alarmAt(date.Year(), date.Month(), date.Day(), hour, minute, loc); t.After(now) {
			return t
		}
	}
	return alarmAt(y, m, d+1, hour, minute, loc)
}

// daysApart is how many calendar days day is after now's date, both read
// in now's zone.
func daysApart(now, day time.Time) int {
	a := time.Date(now.Year(), now.Month(), now.Day(), 12, 0, 0, 0, time.UTC)
	b := time.Date(day.Year(), day.Month(), day.Day(), 12, 0, 0, 0, time.UTC)
	return int(b.Sub(a).Hours() / 24)
}

// moveAlarm puts an alarm set in another time zone at the same hour in
// the scheduler's, on the same date (or its next time, when it repeats
// or that has passed), and reports whether the item changed. A record without a
// zone (from before zones were kept) counts as set in the zone its due
// time was written in.
func (s *Scheduler) moveAlarm(it *storage.Item, now time.Time) bool {
	loc := s.Location()
	if it.Zone == loc.String() {
		return false
	}
	old := it.Due
	if it.Zone != "" {
		if z, err := time.LoadLocation(it.Zone); err == nil {
			old = old.In(z)
		}
	}
	it.Zone = loc.String()
	if it.Held {
		return true
	}
	due := alarmAt(old.Year(), old.Month(), old.Day(), it.Hour, it.Minute, loc)
	if len(it.Days) > 0 || !due.After(now) {
		due = nextAlarm(now, it.Hour, it.Minute, it.Days)
	}
	it.Due = due
	return true
}
