package command

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/harkbox/hark/locale/utterance"
)

// artefacts are strings models put in place of an absent argument.
var artefacts = map[string]bool{"": true, "default": true, "none": true, "null": true, "nil": true, "n/a": true, "unknown": true, "undefined": true, "not specified": true}

// isArtefact reports whether v stands for "no value".
func isArtefact(v any) bool {
	if v == nil {
		return true
	}
	s, ok := v.(string)
	return ok && artefacts[strings.ToLower(strings.TrimSpace(s))]
}

// coerce checks v against t and returns it in the form Run sees: int64 for
// integers, float64 for numbers, time.Time for datetime, date and time,
// time.Duration for timedelta. A model's near misses are accepted where the
// meaning is plain: 5.0 for an integer, "5" or "five" for a number, 3 for a
// float.
func coerce(t Type, v any, now time.Time) (any, error) {
	loc := now.Location()
	switch t.Kind {
	case String:
		switch x := v.(type) {
		case string:
			return x, nil
		case float64, bool:
			return fmt.Sprint(x), nil
		}
	case Integer:
		f, ok := number(v)
		if ok && f == math.Trunc(f) {
			return int64(f), nil
		}
		if ok {
			return nil, fmt.Errorf("%v is not a whole number", v)
		}
	case Float:
		if f, ok := number(v); ok {
			return f, nil
		}
	case Boolean:
		switch x := v.(type) {
		case bool:
			return x, nil
		case string:
			if b, err := strconv.ParseBool(strings.ToLower(x)); err == nil {
				return b, nil
			}
		}
	case Dict:
		if m, ok := v.(map[string]any); ok {
			return m, nil
		}
	case Array:
		items, ok := v.([]any)
		if !ok {
			break
		}
		if t.Items == 0 {
			return items, nil
		}
		var out []any
		for i, it := range items {
			// A date key that names several days ("this_weekend") is
			// each of them, in a list of dates.
			if s, ok := it.(string); ok && (t.Items == DateTime || t.Items == Date) {
				if days := dateKey(s, now); len(days) > 1 {
					for _, d := range days {
						out = append(out, d)
					}
					continue
				}
			}
			c, err := coerce(Type{Kind: t.Items}, it, now)
			if err != nil {
				return nil, fmt.Errorf("item %d: %w", i, err)
			}
			out = append(out, c)
		}
		return out, nil
	case DateTime, Date, Time:
		switch x := v.(type) {
		case string:
			if t.Kind != Time {
				if days := dateKey(x, now); len(days) > 0 {
					return days[0], nil
				}
			}
			return parseTime(t.Kind, x, loc)
		case time.Time: // already parsed, as in a refined call
			return x, nil
		}
	case TimeDelta:
		if d, ok := v.(time.Duration); ok && d > 0 {
			return d, nil
		}
		return parseDelta(v)
	}
	return nil, fmt.Errorf("%v is not %s", describe(v), t.Kind.noun())
}

// noun names a kind in an error message.
func (k Kind) noun() string {
	return map[Kind]string{String: "a string", Integer: "an integer", Float: "a number", Boolean: "true or false",
		Array: "a list", Dict: "an object", DateTime: "a date and time", Date: "a date", Time: "a time of day",
		TimeDelta: "a duration"}[k]
}

func describe(v any) string {
	if s, ok := v.(string); ok {
		return strconv.Quote(s)
	}
	return fmt.Sprint(v)
}

// number reads a JSON number, a numeric string or a number in words.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case string:
		if f, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
			return f, true
		}
		words := utterance.Words(utterance.Normalize(x))
		if f, n, ok := utterance.Number(words); ok && n == len(words) && words[0] != "a" && words[0] != "an" {
			return f, true
		}
	}
	return 0, false
}

var timeLayouts = map[Kind][]string{
	// Seed 001: a datetime may be a plain date ("2025-01-01"), midnight.
	DateTime: {time.RFC3339, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"},
	Date:     {"2006-01-02"},
	Time:     {"15:04:05", "15:04"},
}

func parseTime(k Kind, s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range timeLayouts[k] {
		if t, err := time.ParseInLocation(layout, s, loc); err == nil {
			return t, nil
		}
	}
	if k == Time { // "7 pm", "half past seven"
		words := utterance.Words(utterance.Normalize(s))
		if c, n, ok := utterance.Clock(words); ok && n == len(words) {
			return time.Date(0, 1, 1, c.Hour, c.Minute, 0, 0, loc), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not %s", s, k.noun())
}

var isoDuration = regexp.MustCompile(`^P(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$`)

// parseDelta reads a duration: ISO 8601 ("PT5M"), Go ("1h30m"), seconds as
// a number, or words ("an hour and a half").
func parseDelta(v any) (time.Duration, error) {
	switch x := v.(type) {
	case float64:
		if x > 0 {
			return time.Duration(x * float64(time.Second)), nil
		}
	case string:
		s := strings.TrimSpace(x)
		if m := isoDuration.FindStringSubmatch(strings.ToUpper(s)); m != nil && s != "P" && s != "PT" {
			var d time.Duration
			for i, u := range []time.Duration{24 * time.Hour, time.Hour, time.Minute, time.Second} {
				if m[i+1] != "" {
					f, _ := strconv.ParseFloat(m[i+1], 64)
					d += time.Duration(f * float64(u))
				}
			}
			if d > 0 {
				return d, nil
			}
		}
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			return d, nil
		}
		if f, err := strconv.ParseFloat(s, 64); err == nil && f > 0 {
			return time.Duration(f * float64(time.Second)), nil
		}
		words := utterance.Words(utterance.Normalize(s))
		if d, n, ok := utterance.Duration(words); ok && n == len(words) {
			return d, nil
		}
	}
	return 0, fmt.Errorf("%s is not a duration", describe(v))
}

// validate checks one present argument: its type, its enum, its custom
// check.
func (p *Parameter) validate(v any, now time.Time) (any, *Problem) {
	c, err := coerce(p.typ, v, now)
	if err != nil {
		return nil, &Problem{Param: p.Name, Message: err.Error(), Valid: p.Enum}
	}
	if len(p.Enum) > 0 {
		s := fmt.Sprint(c)
		if str, ok := c.(string); ok {
			s = strings.ToLower(strings.TrimSpace(str))
		}
		found := false
		for _, e := range p.Enum {
			if strings.EqualFold(e, s) {
				found, c = true, e
				if p.typ.Kind != String {
					c, _ = coerce(p.typ, e, now)
				}
				break
			}
		}
		if !found {
			return nil, &Problem{Param: p.Name, Message: fmt.Sprintf("%s is not one of %s", describe(v), strings.Join(p.Enum, ", ")), Valid: p.Enum}
		}
	}
	if p.Check != nil {
		if err := p.Check(c); err != nil {
			return nil, &Problem{Param: p.Name, Message: err.Error(), Valid: p.Enum}
		}
	}
	return c, nil
}

// dateKey reads the date keys of seed 001 ("today", "tomorrow",
// "this_weekend"...) and weekday names, relative to now: the midnights of
// the days named, nil for anything else.
func dateKey(s string, now time.Time) []time.Time {
	k := strings.ReplaceAll(strings.ToLower(strings.TrimSpace(s)), " ", "_")
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	switch k {
	case "today", "tonight", "this_morning", "this_afternoon", "this_evening", "now":
		return []time.Time{day}
	case "tomorrow", "tomorrow_morning", "tomorrow_afternoon", "tomorrow_evening", "tomorrow_night":
		return []time.Time{day.AddDate(0, 0, 1)}
	case "yesterday":
		return []time.Time{day.AddDate(0, 0, -1)}
	case "day_after_tomorrow":
		return []time.Time{day.AddDate(0, 0, 2)}
	case "this_weekend", "weekend":
		sat := day.AddDate(0, 0, (int(time.Saturday)-int(day.Weekday())+7)%7)
		if day.Weekday() == time.Sunday {
			return []time.Time{day}
		}
		return []time.Time{sat, sat.AddDate(0, 0, 1)}
	case "next_weekend":
		sat := day.AddDate(0, 0, (int(time.Saturday)-int(day.Weekday())+7)%7+7)
		return []time.Time{sat, sat.AddDate(0, 0, 1)}
	case "this_week", "next_7_days":
		var out []time.Time
		for i := range 7 {
			out = append(out, day.AddDate(0, 0, i))
		}
		return out
	}
	next := strings.HasPrefix(k, "next_")
	name := strings.TrimPrefix(strings.TrimPrefix(k, "next_"), "this_")
	for wd := time.Sunday; wd <= time.Saturday; wd++ {
		if strings.ToLower(wd.String()) == name {
			ahead := (int(wd) - int(day.Weekday()) + 7) % 7
			if next && ahead == 0 {
				ahead = 7
			}
			return []time.Time{day.AddDate(0, 0, ahead)}
		}
	}
	return nil
}
