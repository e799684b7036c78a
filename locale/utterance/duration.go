package utterance

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

var durationUnits = map[string]time.Duration{
	"second": time.Second, "seconds": time.Second, "sec": time.Second, "secs": time.Second, "s": time.Second,
	"minute": time.Minute, "minutes": time.Minute, "min": time.Minute, "mins": time.Minute, "m": time.Minute,
	"hour": time.Hour, "hours": time.Hour, "hr": time.Hour, "hrs": time.Hour, "h": time.Hour,
	"day": 24 * time.Hour, "days": 24 * time.Hour,
}

var compact = regexp.MustCompile(`^(?:(\d+(?:\.\d+)?)h)?(?:(\d+(?:\.\d+)?)m(?:in)?)?(?:(\d+(?:\.\d+)?)s)?$`)

// Duration reads a duration at the start of words: "five minutes", "an hour
// and a half", "1 hour 30 minutes", "half an hour", "a quarter of an hour",
// "two and a half hours", "90s", "1h30m". It returns the duration and the
// number of words it took.
func Duration(words []string) (time.Duration, int, bool) {
	var total time.Duration
	i := 0
	for i < len(words) {
		d, unit, n, ok := durationTerm(words[i:])
		if !ok {
			break
		}
		total += d
		i += n
		if i+2 < len(words) && words[i] == "and" && words[i+1] == "a" && words[i+2] == "half" && unit > 0 {
			total += unit / 2 // "an hour and a half"
			i += 3
		}
		if i+1 < len(words) && words[i] == "and" {
			if _, _, _, ok := durationTerm(words[i+1:]); ok {
				i++
			}
		}
	}
	if i == 0 || total <= 0 {
		return 0, 0, false
	}
	return total, i, true
}

// durationTerm reads one "number unit" and returns its length, its unit and
// the words it took.
func durationTerm(words []string) (d, unit time.Duration, n int, ok bool) {
	w := words[0]
	if m := compact.FindStringSubmatch(w); m != nil && w != "" && strings.ContainsAny(w, "0123456789") {
		for k, u := range []time.Duration{time.Hour, time.Minute, time.Second} {
			if m[k+1] != "" {
				f, _ := strconv.ParseFloat(m[k+1], 64)
				d += time.Duration(f * float64(u))
				unit = u
			}
		}
		return d, unit, 1, d > 0
	}
	// "half an hour", "half a minute", "quarter of an hour", "a quarter hour"
	start := 0
	if w == "a" && len(words) > 1 && (words[1] == "half" || words[1] == "quarter") {
		start = 1
	}
	if f, ok := map[string]float64{"half": 0.5, "quarter": 0.25}[words[start]]; ok {
		j := start + 1
		for j < len(words) && (words[j] == "of" || words[j] == "an" || words[j] == "a") {
			j++
		}
		if j < len(words) {
			if u, ok := durationUnits[words[j]]; ok && words[j] != "s" && words[j] != "m" && words[j] != "h" {
				return time.Duration(f * float64(u)), u, j + 1, true
			}
		}
		return 0, 0, 0, false
	}
	// "minute and a half": the one unit, the half is Duration's
	if u, ok := durationUnits[w]; ok && len(w) > 1 && len(words) > 3 && words[1] == "and" && words[2] == "a" && words[3] == "half" {
		return u, u, 1, true
	}
	v, n, ok := Number(words)
	if !ok || n >= len(words) || v <= 0 {
		return 0, 0, 0, false
	}
	if words[n] == "quarters" || words[n] == "quarter" { // "three quarters of an hour"
		j := n + 1
		for j < len(words) && (words[j] == "of" || words[j] == "an" || words[j] == "a") {
			j++
		}
		if j < len(words) {
			if u, ok := durationUnits[words[j]]; ok && len(words[j]) > 1 {
				return time.Duration(v / 4 * float64(u)), u, j + 1, true
			}
		}
		return 0, 0, 0, false
	}
	u, ok := durationUnits[words[n]]
	if !ok {
		return 0, 0, 0, false
	}
	return time.Duration(v * float64(u)), u, n + 1, true
}

// FindDuration returns the first duration in words, where it starts and how
// many words it takes.
func FindDuration(words []string) (d time.Duration, at, n int, ok bool) {
	for i := range words {
		if d, n, ok := Duration(words[i:]); ok {
			return d, i, n, true
		}
	}
	return 0, 0, 0, false
}
