package utterance

import "time"

var dayNames = map[string]time.Weekday{
	"sunday": time.Sunday, "monday": time.Monday, "tuesday": time.Tuesday, "wednesday": time.Wednesday,
	"thursday": time.Thursday, "friday": time.Friday, "saturday": time.Saturday,
	"sundays": time.Sunday, "mondays": time.Monday, "tuesdays": time.Tuesday, "wednesdays": time.Wednesday,
	"thursdays": time.Thursday, "fridays": time.Friday, "saturdays": time.Saturday,
}

// Weekdays are Monday to Friday; Weekend is Saturday and Sunday.
var (
	Weekdays = []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}
	Weekend  = []time.Weekday{time.Saturday, time.Sunday}
	EveryDay = []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday}
)

// Days reads which days an utterance names. Repeat is true for "every
// monday", "on mondays", "on weekdays", "daily", "every day"; a plain "on
// friday" names one coming day; "tomorrow" is Offset 1 and "today" or
// "tonight" Offset 0. Found is false when no day is named.
type Days struct {
	Repeat bool
	Days   []time.Weekday
	Offset int // days from today, for "today" and "tomorrow"; -1 when not said
	Found  bool
}

// FindDays scans words for days.
func FindDays(words []string) Days {
	d := Days{Offset: -1}
	every := false
	seen := map[time.Weekday]bool{}
	add := func(days ...time.Weekday) {
		for _, w := range days {
			if !seen[w] {
				seen[w] = true
				d.Days = append(d.Days, w)
			}
		}
	}
	for i, w := range words {
		switch w {
		case "every", "each":
			every = true
		case "daily":
			every = true
			add(EveryDay...)
		case "day":
			if i > 0 && (words[i-1] == "every" || words[i-1] == "each") {
				add(EveryDay...)
			}
		case "weekdays", "weekday", "workdays":
			every = true
			add(Weekdays...)
		case "weekends", "weekend":
			every = every || w == "weekends" || i > 0 && words[i-1] == "every"
			add(Weekend...)
		case "today", "tonight":
			d.Offset = 0
			d.Found = true
		case "tomorrow":
			d.Offset = 1
			d.Found = true
		default:
			if wd, ok := dayNames[w]; ok {
				add(wd)
				if w[len(w)-1] == 's' {
					every = true
				}
			}
		}
	}
	if len(d.Days) > 0 {
		d.Found = true
		d.Repeat = every
	}
	return d
}
