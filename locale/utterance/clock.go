package utterance

import (
	"strconv"
	"strings"
	"time"
)

// ClockTime is a time of day as said. Without a morning or evening said,
// Explicit is false and Hour is 1–12 (or 13–23 for a 24-hour time, which is
// explicit): the caller picks the next of the two.
type ClockTime struct {
	Hour, Minute int
	Explicit     bool
}

// Next returns the first moment at or after now (exclusive of now itself)
// at this time of day in now's location. An ambiguous time ("seven") is
// the sooner of 07:00 and 19:00 (an alarm's is Waking).
func (c ClockTime) Next(now time.Time) time.Time {
	at := func(h int) time.Time {
		t := time.Date(now.Year(), now.Month(), now.Day(), h, c.Minute, 0, 0, now.Location())
		if !t.After(now) {
			t = t.AddDate(0, 0, 1)
		}
		return t
	}
	t := at(c.Hour)
	if !c.Explicit && c.Hour < 12 {
		if pm := at(c.Hour + 12); pm.Before(t) {
			t = pm
		}
	}
	return t
}

// Waking returns the moment an alarm said at c rings: as Next, except
// that an hour from 5 to 11 said without morning or evening is the
// morning's, even when the evening's comes sooner ("wake me at 7" at
// 10:00 is tomorrow at 07:00). An alarm wakes people, and a missed
// wake-up is the worse mistake; the answer names the day and the half
// of it, so one who meant the evening hears otherwise. Hours 1 to 4 and
// 12 stay the sooner of the two.
func (c ClockTime) Waking(now time.Time) time.Time {
	if !c.Explicit && c.Hour >= 5 && c.Hour <= 11 {
		return ClockTime{Hour: c.Hour, Minute: c.Minute, Explicit: true}.Next(now)
	}
	return c.Next(now)
}

// Say writes the time the way a speaker says it: "7:30 AM", "noon".
func (c ClockTime) Say() string {
	switch {
	case c.Explicit && c.Hour == 12 && c.Minute == 0:
		return "noon"
	case c.Explicit && c.Hour == 0 && c.Minute == 0:
		return "midnight"
	}
	t := time.Date(2000, 1, 1, c.Hour, c.Minute, 0, 0, time.UTC)
	if !c.Explicit {
		return t.Format("3:04")
	}
	return t.Format("3:04 PM")
}

// Clock reads a time of day at the start of words: "7", "7 am", "7:30 pm",
// "7pm", "seven thirty", "seven oh five", "half past seven", "quarter to
// eight", "ten past six in the evening", "noon", "midnight", "midnight
// thirty", "19:00", "6.30" (as whisper writes it), "7 o'clock". It
// returns the time and the words it took.
func Clock(words []string) (ClockTime, int, bool) {
	if len(words) == 0 {
		return ClockTime{}, 0, false
	}
	switch words[0] {
	case "noon", "midday", "midnight":
		c := ClockTime{Hour: 12, Explicit: true}
		if words[0] == "midnight" {
			c.Hour = 0
		}
		if m, k, ok := minutes(words[1:]); ok { // "midnight thirty"
			c.Minute = m
			return c, 1 + k, true
		}
		return c, 1, true
	}
	if c, n, ok := relativeClock(words); ok {
		return meridiem(c, words, n)
	}
	w := words[0]
	// "7pm", "7:30am"
	for _, suf := range []string{"am", "pm"} {
		if base, ok := strings.CutSuffix(w, suf); ok && base != "" {
			c, _, ok := Clock([]string{base})
			if !ok {
				return ClockTime{}, 0, false
			}
			return apply(c, suf), 1, true
		}
	}
	h, m, ok := strings.Cut(w, ":")
	if !ok { // "6.30", as whisper writes a time: two digits of minutes
		h, m, ok = strings.Cut(w, ".")
		ok = ok && len(m) == 2
	}
	if ok {
		hh, err1 := strconv.Atoi(h)
		mm, err2 := strconv.Atoi(m)
		if err1 != nil || err2 != nil || hh > 23 || mm > 59 || len(m) != 2 {
			return ClockTime{}, 0, false
		}
		return meridiem(ClockTime{Hour: hh, Minute: mm, Explicit: hh == 0 || hh > 12}, words, 1)
	}
	hv, n, ok := Number(words)
	if !ok || hv != float64(int(hv)) || hv < 0 || hv > 23 || words[0] == "a" || words[0] == "an" || n > 1 && hv > 12 && !isTens(words[:n]) {
		return ClockTime{}, 0, false
	}
	c := ClockTime{Hour: int(hv), Explicit: hv == 0 || hv > 12}
	if n < len(words) && (words[n] == "o'clock" || words[n] == "oclock") {
		return meridiem(c, words, n+1)
	}
	if m, k, ok := minutes(words[n:]); ok { // "seven thirty"
		c.Minute = m
		return meridiem(c, words, n+k)
	}
	return meridiem(c, words, n)
}

// minutes reads the minutes said after an hour, at the start of rest:
// "thirty", "oh five", "45"; and how many words they took.
func minutes(rest []string) (int, int, bool) {
	if len(rest) > 1 && (rest[0] == "oh" || rest[0] == "o") {
		if m, k, ok := Number(rest[1:]); ok && m < 10 && k == 1 {
			return int(m), 2, true
		}
	}
	if m, k, ok := Number(rest); ok && m == float64(int(m)) && m >= 10 && m < 60 && rest[0] != "a" && rest[0] != "an" {
		if k >= len(rest) || !isUnitWord(rest[k]) {
			return int(m), k, true
		}
	}
	return 0, 0, false
}

// isTens reports whether a multi-word hour is like "twenty three".
func isTens(words []string) bool { return words[0] == "twenty" }

// isUnitWord reports words that make a number a quantity, not minutes.
func isUnitWord(w string) bool {
	_, ok := durationUnits[w]
	return ok || w == "percent" || w == "degrees" || w == "times"
}

// relativeClock reads "half past seven", "quarter to eight", "ten past six",
// "twenty to nine".
func relativeClock(words []string) (ClockTime, int, bool) {
	var mins float64
	var n int
	switch {
	case words[0] == "half":
		mins, n = 30, 1
	case words[0] == "quarter":
		mins, n = 15, 1
	case words[0] == "a" && len(words) > 1 && words[1] == "quarter":
		mins, n = 15, 2
	default:
		v, k, ok := Number(words)
		if !ok || v <= 0 || v >= 60 || v != float64(int(v)) {
			return ClockTime{}, 0, false
		}
		mins, n = v, k
		if n < len(words) && (words[n] == "minutes" || words[n] == "minute") {
			n++
		}
	}
	if n+1 >= len(words) || (words[n] != "past" && words[n] != "to" && words[n] != "after") {
		return ClockTime{}, 0, false
	}
	to := words[n] == "to"
	var hour int
	switch words[n+1] {
	case "noon", "midday":
		hour = 12
	case "midnight":
		hour = 0
	default:
		h, k, ok := Number(words[n+1:])
		if !ok || k != 1 || h < 0 || h > 23 || h != float64(int(h)) {
			return ClockTime{}, 0, false
		}
		hour = int(h)
	}
	explicit := hour == 0 || hour > 12 || words[n+1] == "noon" || words[n+1] == "midday" || words[n+1] == "midnight"
	c := ClockTime{Hour: hour, Minute: int(mins), Explicit: explicit}
	if to {
		c.Hour = (c.Hour + 23) % 24
		c.Minute = 60 - int(mins)
		if !explicit && c.Hour == 0 {
			c.Hour = 12 // "quarter to one": 12:45
		}
	}
	return c, n + 2, true
}

// meridiem reads "am", "pm", "a m", "in the morning", "in the evening" after
// the n words of a time and applies it.
func meridiem(c ClockTime, words []string, n int) (ClockTime, int, bool) {
	rest := words[n:]
	join := func(k int) string { return strings.Join(rest[:min(k, len(rest))], " ") }
	switch {
	case len(rest) == 0:
	case rest[0] == "am" || rest[0] == "pm":
		return apply(c, rest[0]), n + 1, true
	case join(2) == "a m" || join(2) == "p m":
		return apply(c, rest[0]+"m"), n + 2, true
	case join(3) == "in the morning":
		return apply(c, "am"), n + 3, true
	case join(3) == "in the afternoon" || join(3) == "in the evening":
		return apply(c, "pm"), n + 3, true
	case join(2) == "at night":
		return c.AtNight(), n + 2, true
	case rest[0] == "tonight":
		if !c.Explicit && c.Hour == 5 {
			return apply(c, "pm"), n + 1, true // "five tonight" is this evening
		}
		return c.AtNight(), n + 1, true
	}
	return c, n, true
}

// AtNight places a time said "at night" on the 24-hour clock: twelve is
// midnight, one to five the small hours, six to eleven the evening ("half
// past twelve at night" is 00:30, "three at night" 03:00, "eleven at
// night" 23:00). A time already explicit is returned as it is.
func (c ClockTime) AtNight() ClockTime {
	switch {
	case c.Explicit:
		return c
	case c.Hour == 12 || c.Hour <= 5:
		return apply(c, "am")
	}
	return apply(c, "pm")
}

func apply(c ClockTime, m string) ClockTime {
	if c.Hour > 12 {
		return c // already 24-hour
	}
	h := c.Hour % 12
	if m == "pm" {
		h += 12
	}
	return ClockTime{Hour: h, Minute: c.Minute, Explicit: true}
}

// FindClock returns the first time of day in words that follows one of the
// given marker words ("at", "for"), where the time starts and how many
// words it takes. With no markers, any position counts.
func FindClock(words []string, markers ...string) (c ClockTime, at, n int, ok bool) {
	for i := range words {
		if len(markers) > 0 && (i == 0 || !contains(markers, words[i-1])) {
			continue
		}
		if c, n, ok := Clock(words[i:]); ok {
			return c, i, n, true
		}
	}
	return ClockTime{}, 0, 0, false
}

func contains(list []string, w string) bool {
	for _, x := range list {
		if x == w {
			return true
		}
	}
	return false
}
