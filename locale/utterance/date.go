package utterance

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Day is a day asked about: one some days from today ("tomorrow", "in
// three days"), a weekday to come or gone ("friday", "last friday") or a
// date of the calendar ("december 25th", "christmas"), in a year said or
// the next one it falls in.
//
// A weekday named is always one to come: "friday" said on a Friday is the
// one a week later, as an alarm for "friday" is; "last friday" is one
// gone, a week ago on a Friday.
type Day struct {
	kind    dayKind
	offset  int          // days from today: dayOffset
	weekday time.Weekday // dayNext, dayLast
	month   time.Month   // dayDate
	date    int          // dayDate: the day of the month
	year    int          // dayDate: 0 for the next one that has the date
}

type dayKind int

const (
	dayOffset dayKind = iota
	dayNext
	dayLast
	dayDate
)

// holidays are the feasts of a fixed date; a moving one (Easter,
// Thanksgiving) is not read.
var holidays = map[string][2]int{
	"christmas": {12, 25}, "christmas day": {12, 25}, "xmas": {12, 25}, "xmas day": {12, 25},
	"christmas eve": {12, 24}, "xmas eve": {12, 24},
	"new year": {1, 1}, "new years": {1, 1}, "new year's": {1, 1}, "new year's day": {1, 1}, "new years day": {1, 1},
	"new year's eve": {12, 31}, "new years eve": {12, 31},
	"halloween":       {10, 31},
	"valentine's day": {2, 14}, "valentines day": {2, 14}, "valentine's": {2, 14}, "saint valentine's day": {2, 14},
	"st valentine's day": {2, 14},
}

var months = map[string]time.Month{
	"january": time.January, "february": time.February, "march": time.March, "april": time.April, "may": time.May,
	"june": time.June, "july": time.July, "august": time.August, "september": time.September, "october": time.October,
	"november": time.November, "december": time.December,
	"jan": time.January, "feb": time.February, "mar": time.March, "apr": time.April, "jun": time.June, "jul": time.July,
	"aug": time.August, "sep": time.September, "sept": time.September, "oct": time.October, "nov": time.November, "dec": time.December,
}

var ordinals = map[string]int{
	"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9,
	"tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "sixteenth": 16,
	"seventeenth": 17, "eighteenth": 18, "nineteenth": 19, "twentieth": 20, "thirtieth": 30,
}

// ParseDay reads a day said in English ("tomorrow", "next friday", "the
// 25th of december", "christmas eve", "a week from today") or written as
// the model writes one ("2026-12-25"). It reads the whole of s or
// nothing.
func ParseDay(s string) (Day, bool) {
	if t, err := time.Parse("2006-01-02", strings.TrimSpace(s)); err == nil {
		return Day{kind: dayDate, month: t.Month(), date: t.Day(), year: t.Year()}, true
	}
	return ReadDay(Words(Normalize(s)))
}

// ReadDay reads a day from the whole of words, a normalized English
// utterance's.
func ReadDay(words []string) (Day, bool) {
	for len(words) > 0 && (words[0] == "on" || words[0] == "the" || words[0] == "for") {
		words = words[1:]
	}
	if len(words) == 0 {
		return Day{}, false
	}
	s := strings.Join(words, " ")
	switch s {
	case "today", "now":
		return Day{kind: dayOffset}, true
	case "tomorrow":
		return Day{kind: dayOffset, offset: 1}, true
	case "yesterday":
		return Day{kind: dayOffset, offset: -1}, true
	case "day after tomorrow":
		return Day{kind: dayOffset, offset: 2}, true
	case "day before yesterday":
		return Day{kind: dayOffset, offset: -2}, true
	}
	if md, ok := holidays[s]; ok {
		return Day{kind: dayDate, month: time.Month(md[0]), date: md[1]}, true
	}
	if d, ok := readOffset(words); ok {
		return d, true
	}
	if d, ok := readWeekday(words); ok {
		return d, true
	}
	return readDate(words)
}

// readOffset reads "in 3 days", "a week from today", "two weeks from
// now", "10 days ago".
func readOffset(words []string) (Day, bool) {
	sign := 1
	switch {
	case words[0] == "in":
		words = words[1:]
	case len(words) > 1 && words[len(words)-1] == "ago":
		sign, words = -1, words[:len(words)-1]
	case len(words) > 2 && words[len(words)-2] == "from" && (words[len(words)-1] == "today" || words[len(words)-1] == "now"):
		words = words[:len(words)-2]
	default:
		return Day{}, false
	}
	v, n, ok := Number(words)
	if !ok || n != len(words)-1 || v != float64(int(v)) || v <= 0 {
		return Day{}, false
	}
	per := 0
	switch words[n] {
	case "day", "days":
		per = 1
	case "week", "weeks":
		per = 7
	default:
		return Day{}, false
	}
	return Day{kind: dayOffset, offset: sign * int(v) * per}, true
}

// readWeekday reads "friday", "next friday", "this coming friday", "last
// friday".
func readWeekday(words []string) (Day, bool) {
	kind := dayNext
	switch {
	case len(words) == 2 && words[0] == "last":
		kind = dayLast
		words = words[1:]
	case len(words) == 3 && words[0] == "this" && words[1] == "coming":
		words = words[2:]
	case len(words) == 2 && (words[0] == "next" || words[0] == "this" || words[0] == "coming"):
		words = words[1:]
	}
	if len(words) != 1 || strings.HasSuffix(words[0], "s") { // "fridays" repeats
		return Day{}, false
	}
	wd, ok := dayNames[words[0]]
	if !ok {
		return Day{}, false
	}
	return Day{kind: kind, weekday: wd}, true
}

// readDate reads a month and its day, in either order, with a year or
// without: "december 25th", "december the twenty fifth", "the 25th of
// december", "25 december 2027".
func readDate(words []string) (Day, bool) {
	d := Day{kind: dayDate}
	if m, ok := months[words[0]]; ok {
		rest := words[1:]
		if len(rest) > 0 && rest[0] == "the" {
			rest = rest[1:]
		}
		n, used, ok := dayOfMonth(rest)
		if !ok {
			return Day{}, false
		}
		d.month, d.date, words = m, n, rest[used:]
	} else {
		n, used, ok := dayOfMonth(words)
		if !ok {
			return Day{}, false
		}
		rest := words[used:]
		if len(rest) > 0 && rest[0] == "of" {
			rest = rest[1:]
		}
		if len(rest) == 0 {
			return Day{}, false
		}
		m, ok := months[rest[0]]
		if !ok {
			return Day{}, false
		}
		d.month, d.date, words = m, n, rest[1:]
	}
	switch len(words) {
	case 0:
	case 1:
		y, err := strconv.Atoi(words[0])
		if err != nil || y < 1900 || y > 2999 {
			return Day{}, false
		}
		d.year = y
	default:
		return Day{}, false
	}
	if !d.exists() {
		return Day{}, false
	}
	return d, true
}

// dayOfMonth reads the day of a month at the start of words: "25", "25th",
// "twenty fifth", "twenty five", "first".
func dayOfMonth(words []string) (int, int, bool) {
	if len(words) == 0 {
		return 0, 0, false
	}
	w := words[0]
	for _, suffix := range []string{"st", "nd", "rd", "th"} {
		if digits, ok := strings.CutSuffix(w, suffix); ok && IsDigits(digits) {
			w = digits
		}
	}
	if IsDigits(w) {
		n, err := strconv.Atoi(w)
		return n, 1, err == nil && n >= 1 && n <= 31
	}
	if n, ok := ordinals[w]; ok {
		return n, 1, true
	}
	if (w == "twenty" || w == "thirty") && len(words) > 1 {
		if n, ok := ordinals[words[1]]; ok && n < 10 {
			tens := map[string]int{"twenty": 20, "thirty": 30}[w]
			return tens + n, 2, tens+n <= 31
		}
	}
	if w == "a" || w == "an" {
		return 0, 0, false
	}
	v, n, ok := Number(words)
	if !ok || v != float64(int(v)) || v < 1 || v > 31 {
		return 0, 0, false
	}
	return int(v), n, true
}

// exists reports whether the date is one of the calendar: in its year,
// or in some year when none is said (29 February).
func (d Day) exists() bool {
	y := d.year
	if y == 0 {
		y = 2028 // a leap year
	}
	t := time.Date(y, d.month, d.date, 12, 0, 0, 0, time.UTC)
	return t.Month() == d.month && t.Day() == d.date
}

// On returns the day asked about on the day of now, at midnight in now's
// location: a date without a year is the next that has it, today
// included.
func (d Day) On(now time.Time) time.Time {
	y, m, dd := now.Date()
	today := time.Date(y, m, dd, 0, 0, 0, 0, now.Location())
	switch d.kind {
	case dayOffset:
		return today.AddDate(0, 0, d.offset)
	case dayNext:
		for i := 1; ; i++ {
			if t := today.AddDate(0, 0, i); t.Weekday() == d.weekday {
				return t
			}
		}
	case dayLast:
		for i := 1; ; i++ {
			if t := today.AddDate(0, 0, -i); t.Weekday() == d.weekday {
				return t
			}
		}
	}
	if d.year != 0 {
		return time.Date(d.year, d.month, d.date, 0, 0, 0, 0, now.Location())
	}
	for yy := y; ; yy++ {
		t := time.Date(yy, d.month, d.date, 0, 0, 0, 0, now.Location())
		if t.Day() == d.date && !t.Before(today) {
			return t
		}
	}
}

// String writes the day as ParseDay reads it back: "tomorrow", "in 3
// days", "friday", "last friday", "december 25", "december 25 2027".
func (d Day) String() string {
	switch d.kind {
	case dayOffset:
		switch d.offset {
		case 0:
			return "today"
		case 1:
			return "tomorrow"
		case -1:
			return "yesterday"
		}
		if d.offset < 0 {
			return fmt.Sprintf("%d days ago", -d.offset)
		}
		return fmt.Sprintf("in %d days", d.offset)
	case dayNext:
		return strings.ToLower(d.weekday.String())
	case dayLast:
		return "last " + strings.ToLower(d.weekday.String())
	}
	s := fmt.Sprintf("%s %d", strings.ToLower(d.month.String()), d.date)
	if d.year != 0 {
		s += fmt.Sprintf(" %d", d.year)
	}
	return s
}

// CalendarDays counts the days of the calendar from the day of from to
// the day of to, each in its own location: 1 from late tonight to early
// tomorrow, however many hours the clocks made of it.
func CalendarDays(from, to time.Time) int {
	civil := func(t time.Time) time.Time {
		y, m, d := t.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	}
	return int(civil(to).Sub(civil(from)) / (24 * time.Hour))
}
