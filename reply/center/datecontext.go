package center

import (
	"strings"
	"time"
)

// DateContext is the calendar around now in a node's time zone, which a
// Jarvis node builds its tool schemas and examples from. Every date is
// YYYY-MM-DD in the node's zone; UTCStartOfDay is when that day begins, in
// UTC. Weeks run Sunday to Saturday.
type DateContext struct {
	Current       CurrentDate   `json:"current"`
	RelativeDates RelativeDates `json:"relative_dates"`
	Weekend       WeekendDates  `json:"weekend"`
	Weeks         WeekDates     `json:"weeks"`
	Months        SpanDates     `json:"months"`
	Years         YearDates     `json:"years"`
	Weekdays      WeekdayDates  `json:"weekdays"`
	Timezone      TimezoneInfo  `json:"timezone"`
}

// DateInfo is one day.
type DateInfo struct {
	Date          string `json:"date"`
	UTCStartOfDay string `json:"utc_start_of_day"`
}

// NamedDate is one day with its name ("Saturday", "Next Monday").
type NamedDate struct {
	Day string `json:"day"`
	DateInfo
}

// CurrentDate is now.
type CurrentDate struct {
	Date          string `json:"date"`     // "Sunday, November 22 2026"
	DateISO       string `json:"date_iso"` // "2026-11-22"
	Time          string `json:"time"`     // "10:15 AM"
	Datetime      string `json:"datetime"` // now in UTC, RFC 3339
	Weekday       string `json:"weekday"`  // "sunday"
	WeekdayNumber int    `json:"weekday_number"`
	UTCStartOfDay string `json:"utc_start_of_day"`
}

// RelativeDates are the days around today.
type RelativeDates struct {
	Tomorrow           DateInfo  `json:"tomorrow"`
	Yesterday          DateInfo  `json:"yesterday"`
	DayAfterTomorrow   DateInfo  `json:"day_after_tomorrow"`
	DayBeforeYesterday DateInfo  `json:"day_before_yesterday"`
	LastNight          LastNight `json:"last_night"`
}

// LastNight is yesterday at 7 pm.
type LastNight struct {
	Date     string `json:"date"`
	Time     string `json:"time"`
	Datetime string `json:"datetime"`
}

// WeekendDates are Saturday and Sunday of this, the next and the last
// weekend; on a weekend day, this weekend is the current one.
type WeekendDates struct {
	ThisWeekend []NamedDate `json:"this_weekend"`
	NextWeekend []NamedDate `json:"next_weekend"`
	LastWeekend []NamedDate `json:"last_weekend"`
}

// WeekDates are the seven days of this, the next and the last week.
type WeekDates struct {
	ThisWeek []NamedDate `json:"this_week"`
	NextWeek []NamedDate `json:"next_week"`
	LastWeek []NamedDate `json:"last_week"`
}

// SpanDates are the first and last day of this, the next and the last
// month.
type SpanDates struct {
	ThisMonth []DateInfo `json:"this_month"`
	NextMonth []DateInfo `json:"next_month"`
	LastMonth []DateInfo `json:"last_month"`
}

// YearDates are the first and last day of this, the next and the last
// year.
type YearDates struct {
	ThisYear []DateInfo `json:"this_year"`
	NextYear []DateInfo `json:"next_year"`
	LastYear []DateInfo `json:"last_year"`
}

// WeekdayDates are each weekday of the next week and of the last one.
type WeekdayDates struct {
	NextMonday    DateInfo `json:"next_monday"`
	NextTuesday   DateInfo `json:"next_tuesday"`
	NextWednesday DateInfo `json:"next_wednesday"`
	NextThursday  DateInfo `json:"next_thursday"`
	NextFriday    DateInfo `json:"next_friday"`
	NextSaturday  DateInfo `json:"next_saturday"`
	NextSunday    DateInfo `json:"next_sunday"`
	LastMonday    DateInfo `json:"last_monday"`
	LastTuesday   DateInfo `json:"last_tuesday"`
	LastWednesday DateInfo `json:"last_wednesday"`
	LastThursday  DateInfo `json:"last_thursday"`
	LastFriday    DateInfo `json:"last_friday"`
	LastSaturday  DateInfo `json:"last_saturday"`
	LastSunday    DateInfo `json:"last_sunday"`
}

// TimezoneInfo names the zone the dates are in: the node's when the center
// could read it, else the center's own.
type TimezoneInfo struct {
	UserTimezone    string `json:"user_timezone"`
	CurrentTimezone string `json:"current_timezone"`
	IsDST           bool   `json:"is_dst"`
}

// Dates is the date context of now in loc.
func Dates(now time.Time, loc *time.Location) DateContext {
	now = now.In(loc)
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, loc)
	day := func(d time.Time) DateInfo {
		start := time.Date(d.Year(), d.Month(), d.Day(), 0, 0, 0, 0, loc)
		return DateInfo{Date: start.Format(time.DateOnly), UTCStartOfDay: utc(start)}
	}
	add := func(days int) time.Time { return today.AddDate(0, 0, days) }
	named := func(prefix string, from time.Time, n int) []NamedDate {
		out := make([]NamedDate, n)
		for i := range out {
			d := from.AddDate(0, 0, i)
			out[i] = NamedDate{Day: strings.TrimSpace(prefix + " " + d.Weekday().String()), DateInfo: day(d)}
		}
		return out
	}
	span := func(first, last time.Time) []DateInfo { return []DateInfo{day(first), day(last)} }
	month := func(m int) []DateInfo {
		first := time.Date(now.Year(), now.Month()+time.Month(m), 1, 0, 0, 0, 0, loc)
		return span(first, first.AddDate(0, 1, -1))
	}
	year := func(y int) []DateInfo {
		return span(time.Date(now.Year()+y, 1, 1, 0, 0, 0, 0, loc), time.Date(now.Year()+y, 12, 31, 0, 0, 0, 0, loc))
	}
	sunday := add(-int(now.Weekday())) // this week's first day
	// This weekend: the one under way, or the coming one.
	saturday := sunday.AddDate(0, 0, 6)
	if now.Weekday() == time.Sunday {
		saturday = add(-1)
	}
	yesterday := add(-1)
	lastNight := time.Date(yesterday.Year(), yesterday.Month(), yesterday.Day(), 19, 0, 0, 0, loc)
	weekday := (int(now.Weekday()) + 6) % 7 // Monday is 0
	return DateContext{
		Current: CurrentDate{Date: now.Format("Monday, January 02 2006"), DateISO: now.Format(time.DateOnly),
			Time: now.Format("03:04 PM"), Datetime: utc(now), Weekday: strings.ToLower(now.Weekday().String()),
			WeekdayNumber: weekday, UTCStartOfDay: utc(today)},
		RelativeDates: RelativeDates{Tomorrow: day(add(1)), Yesterday: day(yesterday), DayAfterTomorrow: day(add(2)),
			DayBeforeYesterday: day(add(-2)), LastNight: LastNight{Date: yesterday.Format(time.DateOnly), Time: "19:00:00", Datetime: utc(lastNight)}},
		Weekend: WeekendDates{ThisWeekend: named("", saturday, 2), NextWeekend: named("", saturday.AddDate(0, 0, 7), 2),
			LastWeekend: named("", saturday.AddDate(0, 0, -7), 2)},
		Weeks:    WeekDates{ThisWeek: named("", sunday, 7), NextWeek: named("Next", sunday.AddDate(0, 0, 7), 7), LastWeek: named("Last", sunday.AddDate(0, 0, -7), 7)},
		Months:   SpanDates{ThisMonth: month(0), NextMonth: month(1), LastMonth: month(-1)},
		Years:    YearDates{ThisYear: year(0), NextYear: year(1), LastYear: year(-1)},
		Weekdays: weekdays(sunday, day),
		Timezone: TimezoneInfo{UserTimezone: loc.String(), CurrentTimezone: abbreviation(now), IsDST: now.IsDST()},
	}
}

// weekdays are the days of the week after the one starting on sunday, and
// of the week before it.
func weekdays(sunday time.Time, day func(time.Time) DateInfo) WeekdayDates {
	next := func(wd time.Weekday) DateInfo { return day(sunday.AddDate(0, 0, 7+int(wd))) }
	last := func(wd time.Weekday) DateInfo { return day(sunday.AddDate(0, 0, -7+int(wd))) }
	return WeekdayDates{
		NextMonday: next(time.Monday), NextTuesday: next(time.Tuesday), NextWednesday: next(time.Wednesday),
		NextThursday: next(time.Thursday), NextFriday: next(time.Friday), NextSaturday: next(time.Saturday),
		NextSunday: next(time.Sunday), // the Sunday next week starts with
		LastMonday: last(time.Monday), LastTuesday: last(time.Tuesday), LastWednesday: last(time.Wednesday),
		LastThursday: last(time.Thursday), LastFriday: last(time.Friday), LastSaturday: last(time.Saturday),
		LastSunday: last(time.Sunday),
	}
}

// abbreviation is the name of t's zone at t ("EST", "CEST"), or its offset
// where the zone has no name for it.
func abbreviation(t time.Time) string {
	name, _ := t.Zone()
	if name == "" || name[0] == '+' || name[0] == '-' {
		return t.Format("UTC-07:00")
	}
	return name
}

// utc is t in UTC as RFC 3339 with a Z.
func utc(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
