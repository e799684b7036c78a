package utterance

import (
	"slices"
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	tests := []struct {
		in       string
		h, m     int
		explicit bool
		n        int
	}{
		{"7", 7, 0, false, 1},
		{"7 am", 7, 0, true, 2},
		{"7:30 pm", 19, 30, true, 2},
		{"7pm", 19, 0, true, 1},
		{"7:30am", 7, 30, true, 1},
		{"seven thirty", 7, 30, false, 2},
		{"seven oh five", 7, 5, false, 3},
		{"half past seven", 7, 30, false, 3},
		{"quarter to eight", 7, 45, false, 3},
		{"a quarter past nine in the morning", 9, 15, true, 7},
		{"ten past six in the evening", 18, 10, true, 6},
		{"twenty to nine", 8, 40, false, 3},
		{"noon", 12, 0, true, 1},
		{"midnight", 0, 0, true, 1},
		{"midnight thirty", 0, 30, true, 2},
		{"noon oh five", 12, 5, true, 3},
		{"midnight 30 minutes", 0, 0, true, 1},
		{"19:00", 19, 0, true, 1},
		{"7 o'clock", 7, 0, false, 2},
		{"6 in the morning", 6, 0, true, 4},
		{"twelve pm", 12, 0, true, 2},
		{"12 am", 0, 0, true, 2},
		{"11 at night", 23, 0, true, 3},
		{"six thirty p m", 18, 30, true, 4},
		{"quarter to one", 12, 45, false, 3},
		{"twenty three fifteen", 23, 15, true, 3},
		{"6.30", 6, 30, false, 1}, // as whisper writes it
		{"6.30 pm", 18, 30, true, 2},
		{"18.45", 18, 45, true, 1},
	}
	for _, tt := range tests {
		c, n, ok := Clock(Words(tt.in))
		if !ok || c.Hour != tt.h || c.Minute != tt.m || c.Explicit != tt.explicit || n != tt.n {
			t.Errorf("Clock(%q) = %+v, %d, %v; want %02d:%02d explicit=%v n=%d", tt.in, c, n, ok, tt.h, tt.m, tt.explicit, tt.n)
		}
	}
	for _, in := range []string{"25", "7:75", "hello", "a quarter", "five minutes", "7.5", "6.3", "7.75", "25.30", "6.300"} {
		if c, n, ok := Clock(Words(in)); ok && n == len(Words(in)) {
			t.Errorf("Clock(%q) = %+v, want no time", in, c)
		}
	}
}

// TestClockAtNight: twelve at night is midnight, one to five the small
// hours, later the evening; "tonight" is the same but for five, which is
// this evening.
func TestClockAtNight(t *testing.T) {
	tests := []struct {
		in   string
		h, m int
	}{
		{"twelve tonight", 0, 0},
		{"12 at night", 0, 0},
		{"half past twelve at night", 0, 30},
		{"quarter to one at night", 0, 45},
		{"three at night", 3, 0},
		{"5 at night", 5, 0},
		{"9 at night", 21, 0},
		{"11 at night", 23, 0},
		{"2:30 tonight", 2, 30},
		{"five tonight", 17, 0},
		{"nine tonight", 21, 0},
		{"23:00 at night", 23, 0},
	}
	for _, tt := range tests {
		words := Words(tt.in)
		c, n, ok := Clock(words)
		if !ok || n != len(words) || c.Hour != tt.h || c.Minute != tt.m || !c.Explicit {
			t.Errorf("Clock(%q) = %+v, %d words, %v; want %02d:%02d explicit, all %d words", tt.in, c, n, ok, tt.h, tt.m, len(words))
		}
	}
}

func TestClockNext(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	now := time.Date(2026, 11, 22, 22, 0, 0, 0, loc) // 10 pm
	tests := []struct {
		c    ClockTime
		want time.Time
	}{
		{ClockTime{Hour: 7}, time.Date(2026, 11, 23, 7, 0, 0, 0, loc)},                   // "7" at 10 pm: tomorrow morning
		{ClockTime{Hour: 11}, time.Date(2026, 11, 22, 23, 0, 0, 0, loc)},                 // "11" at 10 pm: tonight
		{ClockTime{Hour: 7, Explicit: true}, time.Date(2026, 11, 23, 7, 0, 0, 0, loc)},   // 7 am
		{ClockTime{Hour: 22, Explicit: true}, time.Date(2026, 11, 23, 22, 0, 0, 0, loc)}, // now is not "next"
	}
	for _, tt := range tests {
		if got := tt.c.Next(now); !got.Equal(tt.want) {
			t.Errorf("%+v.Next = %v, want %v", tt.c, got, tt.want)
		}
	}
	afternoon := time.Date(2026, 11, 22, 15, 0, 0, 0, loc)
	if got := (ClockTime{Hour: 7}).Next(afternoon); got.Hour() != 19 {
		t.Errorf("\"7\" at 3 pm = %v, want 7 pm today", got)
	}
}

// TestClockWaking: an alarm's hour from 5 to 11 without morning or
// evening is the morning's; 1 to 4 and 12 the sooner of the two.
func TestClockWaking(t *testing.T) {
	loc := time.FixedZone("X", 3600)
	at := func(d, h, m int) time.Time { return time.Date(2026, 11, d, h, m, 0, 0, loc) }
	tests := []struct {
		c         ClockTime
		now, want time.Time
	}{
		{ClockTime{Hour: 7}, at(22, 9, 45), at(23, 7, 0)},                   // "7" at 9:45: tomorrow morning, not tonight
		{ClockTime{Hour: 5}, at(22, 9, 45), at(23, 5, 0)},                   // "5": a wake-up too
		{ClockTime{Hour: 11, Minute: 30}, at(22, 9, 45), at(22, 11, 30)},    // the morning still to come today
		{ClockTime{Hour: 7}, at(22, 6, 0), at(22, 7, 0)},                    // early: this morning
		{ClockTime{Hour: 3}, at(22, 9, 45), at(22, 15, 0)},                  // 1 to 4: the sooner
		{ClockTime{Hour: 12, Minute: 30}, at(22, 9, 45), at(22, 12, 30)},    // 12: the sooner
		{ClockTime{Hour: 19, Explicit: true}, at(22, 9, 45), at(22, 19, 0)}, // said as the evening
		{ClockTime{Hour: 19, Explicit: true}, at(22, 9, 45), at(22, 19, 0)},
	}
	for _, tt := range tests {
		if got := tt.c.Waking(tt.now); !got.Equal(tt.want) {
			t.Errorf("%+v.Waking(%s) = %s, want %s", tt.c, tt.now.Format("15:04"), got.Format("Mon 15:04"), tt.want.Format("Mon 15:04"))
		}
	}
}

func TestClockSay(t *testing.T) {
	for c, want := range map[ClockTime]string{
		{Hour: 7, Minute: 30, Explicit: true}: "7:30 AM",
		{Hour: 19, Explicit: true}:            "7:00 PM",
		{Hour: 12, Explicit: true}:            "noon",
		{Hour: 7, Minute: 5}:                  "7:05",
	} {
		if got := c.Say(); got != want {
			t.Errorf("%+v.Say() = %q, want %q", c, got, want)
		}
	}
}

func TestFindClock(t *testing.T) {
	c, at, _, ok := FindClock(Words("remind me at 5 pm to call mom"), "at")
	if !ok || c.Hour != 17 || at != 3 {
		t.Errorf("FindClock = %+v at %d, %v", c, at, ok)
	}
	if _, _, _, ok := FindClock(Words("remind me in 5 minutes"), "at"); ok {
		t.Error("found a clock time without the marker")
	}
}

func TestFindDays(t *testing.T) {
	tests := []struct {
		in     string
		repeat bool
		days   []time.Weekday
		offset int
	}{
		{"wake me at 7 on weekdays", true, Weekdays, -1},
		{"every monday and wednesday", true, []time.Weekday{time.Monday, time.Wednesday}, -1},
		{"on fridays", true, []time.Weekday{time.Friday}, -1},
		{"on friday", false, []time.Weekday{time.Friday}, -1},
		{"every day", true, EveryDay, -1},
		{"daily at 8", true, EveryDay, -1},
		{"at 7 tomorrow", false, nil, 1},
		{"on weekends", true, Weekend, -1},
	}
	for _, tt := range tests {
		d := FindDays(Words(tt.in))
		if !d.Found || d.Repeat != tt.repeat || !slices.Equal(d.Days, tt.days) || d.Offset != tt.offset {
			t.Errorf("FindDays(%q) = %+v", tt.in, d)
		}
	}
	if d := FindDays(Words("set an alarm for 7")); d.Found {
		t.Errorf("found days in %+v", d)
	}
}
