package locale

import (
	"strings"
	"testing"
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
