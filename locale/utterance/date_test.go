package utterance

import (
	"testing"
	"time"
)

// TestParseDay: each way of naming a day, read whole, is the day it
// names when asked on the given day; what names no day, or more than a
// day, is not read.
func TestParseDay(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	sun := time.Date(2026, 11, 22, 10, 15, 0, 0, berlin)  // a Sunday
	fri := time.Date(2026, 11, 27, 8, 0, 0, 0, berlin)    // a Friday
	xmas := time.Date(2026, 12, 25, 23, 59, 0, 0, berlin) // Christmas Day
	nye := time.Date(2026, 12, 31, 22, 0, 0, 0, berlin)   // New Year's Eve
	dst := time.Date(2026, 3, 28, 23, 30, 0, 0, berlin)   // the night the clocks go forward
	leap := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)   // the next 29 February is 2028's
	for _, tc := range []struct {
		now       time.Time
		said, day string // day as 2006-01-02
		canonical string
	}{
		{sun, "today", "2026-11-22", "today"},
		{sun, "tomorrow", "2026-11-23", "tomorrow"},
		{sun, "yesterday", "2026-11-21", "yesterday"},
		{sun, "the day after tomorrow", "2026-11-24", "in 2 days"},
		{sun, "the day before yesterday", "2026-11-20", "2 days ago"},
		{sun, "in 3 days", "2026-11-25", "in 3 days"},
		{sun, "a week from today", "2026-11-29", "in 7 days"},
		{sun, "one week from now", "2026-11-29", "in 7 days"},
		{sun, "in two weeks", "2026-12-06", "in 14 days"},
		{sun, "ten days ago", "2026-11-12", "10 days ago"},
		{sun, "friday", "2026-11-27", "friday"},
		{sun, "on friday", "2026-11-27", "friday"},
		{sun, "next friday", "2026-11-27", "friday"},
		{sun, "this coming friday", "2026-11-27", "friday"},
		{sun, "sunday", "2026-11-29", "sunday"},
		{sun, "last friday", "2026-11-20", "last friday"},
		{fri, "friday", "2026-12-04", "friday"},
		{fri, "next friday", "2026-12-04", "friday"},
		{sun, "december 25th", "2026-12-25", "december 25"},
		{sun, "December 25", "2026-12-25", "december 25"},
		{sun, "the 25th of december", "2026-12-25", "december 25"},
		{sun, "25 december", "2026-12-25", "december 25"},
		{sun, "december the twenty fifth", "2026-12-25", "december 25"},
		{sun, "the thirty-first of december", "2026-12-31", "december 31"},
		{sun, "december 31st", "2026-12-31", "december 31"},
		{sun, "january first", "2027-01-01", "january 1"},
		{sun, "march 3rd", "2027-03-03", "march 3"},
		{sun, "march 3rd 2030", "2030-03-03", "march 3 2030"},
		{sun, "november 22nd", "2026-11-22", "november 22"},
		{sun, "november 21st", "2027-11-21", "november 21"},
		{sun, "2026-12-25", "2026-12-25", "december 25 2026"},
		{sun, "christmas", "2026-12-25", "december 25"},
		{sun, "Christmas Day", "2026-12-25", "december 25"},
		{sun, "christmas eve", "2026-12-24", "december 24"},
		{sun, "new year", "2027-01-01", "january 1"},
		{sun, "new year's day", "2027-01-01", "january 1"},
		{sun, "the new year", "2027-01-01", "january 1"},
		{sun, "new year's eve", "2026-12-31", "december 31"},
		{sun, "halloween", "2027-10-31", "october 31"},
		{sun, "valentine's day", "2027-02-14", "february 14"},
		{xmas, "christmas", "2026-12-25", "december 25"},
		{xmas, "tomorrow", "2026-12-26", "tomorrow"},
		{nye, "tomorrow", "2027-01-01", "tomorrow"},
		{nye, "new year's day", "2027-01-01", "january 1"},
		{nye, "new year's eve", "2026-12-31", "december 31"},
		{dst, "tomorrow", "2026-03-29", "tomorrow"},
		{dst, "monday", "2026-03-30", "monday"},
		{dst, "in 2 days", "2026-03-30", "in 2 days"},
		{leap, "february 29th", "2028-02-29", "february 29"},
	} {
		d, ok := ParseDay(tc.said)
		if !ok {
			t.Errorf("%q: not read", tc.said)
			continue
		}
		if got := d.On(tc.now).Format("2006-01-02"); got != tc.day {
			t.Errorf("%q on %s: %s, want %s", tc.said, tc.now.Format("Mon 2006-01-02"), got, tc.day)
		}
		if got := d.String(); got != tc.canonical {
			t.Errorf("%q: written %q, want %q", tc.said, got, tc.canonical)
		}
		if again, ok := ParseDay(d.String()); !ok || again != d {
			t.Errorf("%q: %q does not read back (%v %v)", tc.said, d.String(), again, ok)
		}
	}
	for _, said := range []string{"", "the meeting", "my birthday", "easter", "february 30th", "april 31", "december", "25th",
		"friday at 7", "tomorrow and friday", "13 december 25", "every friday", "fridays", "the 0th of may", "in 0 days friday"} {
		if d, ok := ParseDay(said); ok {
			t.Errorf("%q read as %q", said, d.String())
		}
	}
}

// TestCalendarDays: days between two times are whole days of the
// calendar in their zone, whatever the hours between them, across a
// change of the clocks and of the year.
func TestCalendarDays(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	at := func(y int, m time.Month, d, h int) time.Time { return time.Date(y, m, d, h, 0, 0, 0, berlin) }
	for _, tc := range []struct {
		from, to time.Time
		want     int
	}{
		{at(2026, 11, 22, 23), at(2026, 11, 23, 0), 1},
		{at(2026, 11, 22, 0), at(2026, 11, 22, 23), 0},
		{at(2026, 3, 28, 23), at(2026, 3, 30, 0), 2},   // spring forward: 24 hours
		{at(2026, 10, 24, 0), at(2026, 10, 26, 23), 2}, // fall back: 72 hours
		{at(2026, 12, 31, 22), at(2027, 1, 1, 0), 1},
		{at(2026, 12, 25, 12), at(2026, 12, 24, 12), -1},
	} {
		if got := CalendarDays(tc.from, tc.to); got != tc.want {
			t.Errorf("%s to %s: %d days, want %d", tc.from, tc.to, got, tc.want)
		}
	}
}
