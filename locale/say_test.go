package locale

import (
	"strings"
	"testing"
	"time"
)

// TestClockAfterItsPreposition: an alarm set before the clock is, said
// with its time after "a", "um" or "à", carries the time's own article
// once (never two articles, as "a las próximas las 7" had).
func TestClockAfterItsPreposition(t *testing.T) {
	const format = "Alarm set for %s. My clock isn't set yet, so it will ring at the next %s once it is."
	for _, tt := range []struct {
		l    Lang
		h    int
		want string
	}{
		{Spanish, 7, "sonará a las 7 de la mañana en cuanto"},
		{Spanish, 13, "sonará a la 1 de la tarde en cuanto"},
		{German, 7, "klingelt um 7 Uhr, sobald"},
		{German, 0, "klingelt um Mitternacht, sobald"},
		{French, 7, "sonnera à 7 heures dès"},
		{French, 12, "sonnera à midi dès"},
	} {
		got := tt.l.T(format, "mañana", tt.l.Clock(tt.h, 0))
		if !strings.Contains(got, tt.want) {
			t.Errorf("%s at %d: %q, want it to say %q", tt.l, tt.h, got, tt.want)
		}
	}
}

// TestWhenAcrossTheClockChange: an item two days away is said by its
// weekday, not as tomorrow, when the clocks go forward between, and one a
// week away by its date: before, the 47 hours from Saturday to Monday's
// midnight were taken for one day, and a Saturday a week off was "on
// Saturday", said on a Saturday.
func TestWhenAcrossTheClockChange(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	now := time.Date(2026, 3, 28, 10, 0, 0, 0, berlin) // Saturday; the clocks go forward on Sunday at 2:00
	for _, tt := range []struct {
		due  time.Time
		want string
	}{
		{time.Date(2026, 3, 29, 9, 0, 0, 0, berlin), "9:00 AM tomorrow"},
		{time.Date(2026, 3, 30, 9, 0, 0, 0, berlin), "9:00 AM on Monday"},
		{time.Date(2026, 4, 3, 9, 0, 0, 0, berlin), "9:00 AM on Friday"},
		{time.Date(2026, 4, 4, 9, 0, 0, 0, berlin), "9:00 AM on April 4th"}, // not "on Saturday", said on one
	} {
		if got := English.When(tt.due, now); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.due.Format("Mon 2 Jan 15:04"), got, tt.want)
		}
	}
}
