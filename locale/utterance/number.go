package utterance

import (
	"math"
	"strconv"
	"strings"
)

var units = map[string]float64{
	"zero": 0, "oh": 0, "nought": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
	"fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
	"twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
	"eighty": 80, "ninety": 90, "a": 1, "an": 1, "single": 1, "couple": 2, "dozen": 12,
}

var scales = map[string]float64{"hundred": 100, "thousand": 1000, "million": 1e6, "billion": 1e9}

var fractions = map[string]float64{"half": 0.5, "quarter": 0.25, "third": 1.0 / 3, "thirds": 1.0 / 3, "halves": 0.5, "quarters": 0.25}

// Number reads a number at the start of words and returns it with the count
// of words it took. It reads digits ("12", "1,500", "2.5", "-3", "12%"
// without the sign), words ("twelve", "a hundred and five", "two point
// five", "minus four"), mixed forms ("2 hundred", "1 and a half") and
// "a"/"an" as one. It returns ok false when no number starts there.
func Number(words []string) (v float64, n int, ok bool) {
	if len(words) == 0 {
		return 0, 0, false
	}
	if words[0] == "minus" || words[0] == "negative" {
		v, n, ok := Number(words[1:])
		if !ok || words[1] == "a" || words[1] == "an" {
			return 0, 0, false
		}
		return -v, n + 1, true
	}
	total, current := 0.0, 0.0
	seen := false
	i := 0
	for ; i < len(words); i++ {
		w := words[i]
		if d, ok := digits(w); ok {
			if seen && current != 0 {
				break // "twenty 5" is two numbers
			}
			current += d
			seen = true
			continue
		}
		if u, ok := units[w]; ok {
			if (w == "a" || w == "an") && seen {
				break
			}
			if w == "dozen" || w == "couple" {
				if seen && current != 0 { // "two dozen"
					current *= u
					if w == "couple" {
						current /= 2
					}
					continue
				}
			}
			if seen && !addable(current, u) {
				break // "one two" is two numbers
			}
			current += u
			seen = true
			continue
		}
		if s, ok := scales[w]; ok && seen {
			if current == 0 {
				current = 1
			}
			current *= s
			if s >= 1000 {
				total += current
				current = 0
			}
			continue
		}
		if w == "and" && seen && i+1 < len(words) {
			// "a hundred and five", "one and a half": take "and" only if a
			// number follows that adds to this one.
			next := words[i+1]
			if next == "a" && i+2 < len(words) {
				if f, ok := fractions[words[i+2]]; ok {
					current += f
					i += 2
					continue
				}
			}
			if u, ok := units[next]; ok && next != "a" && next != "an" && u < 100 && total+current >= 100 {
				continue
			}
			break
		}
		if w == "point" && seen && i+1 < len(words) {
			frac, m := decimals(words[i+1:])
			if m == 0 {
				break
			}
			current += frac
			i += m
			continue
		}
		if f, ok := fractions[w]; ok && i == 1 && (words[0] == "a" || words[0] == "an") {
			current = f // "a half", "a quarter"
			continue
		}
		break
	}
	if !seen && len(words) > 0 {
		if f, ok := fractions[words[0]]; ok && (words[0] == "half" || words[0] == "quarter") {
			return f, 1, true
		}
	}
	if !seen {
		return 0, 0, false
	}
	// "a" or "an" alone is not a number unless something counted follows;
	// callers that accept it ("an hour") see n == 1 with words[0] "a".
	return total + current, i, true
}

// addable reports whether unit word u continues the number read so far:
// "twenty" + "one", "hundred" + "five", "a hundred twenty" + "three".
func addable(current, u float64) bool {
	if current == 0 {
		return true
	}
	r := int(current) % 100
	switch {
	case r == 0 && current >= 100:
		return u < 100
	case r >= 20 && r%10 == 0:
		return u < 10
	}
	return false
}

// decimals reads digit words after "point": "five", "two five".
func decimals(words []string) (float64, int) {
	frac, scale, n := 0.0, 0.1, 0
	for _, w := range words {
		u, ok := units[w]
		if !ok || u > 9 || w == "a" || w == "an" {
			if d, err := strconv.Atoi(w); err == nil && d >= 0 && d <= 9 {
				u = float64(d)
			} else {
				break
			}
		}
		frac += u * scale
		scale /= 10
		n++
	}
	return frac, n
}

func digits(w string) (float64, bool) {
	w = strings.TrimSuffix(w, "%")
	if w == "" || !(w[0] >= '0' && w[0] <= '9' || w[0] == '-' || w[0] == '.') {
		return 0, false
	}
	w = strings.ReplaceAll(w, ",", "")
	for _, suffix := range []string{"st", "nd", "rd", "th"} {
		w = strings.TrimSuffix(w, suffix)
	}
	f, err := strconv.ParseFloat(w, 64)
	return f, err == nil
}

// FindNumber returns the first number in words, where it starts, and how
// many words it takes. A lone "a" or "an" does not count.
func FindNumber(words []string) (v float64, at, n int, ok bool) {
	for i := range words {
		if words[i] == "a" || words[i] == "an" {
			continue
		}
		if v, n, ok := Number(words[i:]); ok {
			return v, i, n, true
		}
	}
	return 0, 0, 0, false
}

// FormatNumber writes v the way it should be spoken: whole numbers without
// decimals, others with at most four significant decimals.
func FormatNumber(v float64) string {
	if v == float64(int64(v)) && v < 1e15 && v > -1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	s := strconv.FormatFloat(v, 'f', 4, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "0" || s == "-0" {
		return strconv.FormatFloat(v, 'g', 3, 64)
	}
	return s
}

// SpokenNumber writes a result the way a person would say it, and
// reports whether it was rounded to get there. A value that has at most
// three decimals is said exactly ("12", "0.5", "2.25", "0.125"); any other
// is rounded by its size: to a whole number from 100 on, to one decimal
// from 10, to two from 1, and to three significant figures below 1
// ("454", "37.8", "3.33", "0.0123"). The rounded value is written in
// full, never in exponent form.
func SpokenNumber(v float64) (s string, rounded bool) {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return FormatNumber(v), false
	}
	if r := roundTo(v, 3); exactly(r, v) {
		return plain(r, 3), false
	}
	a := math.Abs(v)
	var decimals int
	switch {
	case a >= 100:
		decimals = 0
	case a >= 10:
		decimals = 1
	case a >= 1:
		decimals = 2
	default: // three significant figures: 0.0123
		decimals = 2 - int(math.Floor(math.Log10(a)))
	}
	r := roundTo(v, decimals)
	return plain(r, decimals), !exactly(r, v)
}

// roundTo rounds v to the given number of decimals, halves away from zero.
func roundTo(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}

// exactly reports whether r is v but for the float's last bits.
func exactly(r, v float64) bool {
	return math.Abs(r-v) <= 1e-9*math.Max(1, math.Abs(v))
}

// plain writes v with at most decimals decimals and no trailing zeros.
func plain(v float64, decimals int) string {
	s := strconv.FormatFloat(v, 'f', max(decimals, 0), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// IsDigits reports whether s is one or more ASCII digits and nothing else.
func IsDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
