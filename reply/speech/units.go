package speech

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/harkbox/hark/locale"
)

// slashUnit is a unit written with a slash, which voices spell out with
// the slash ("kay em slash aitch"): its code in locale's unit names, which
// say it in German, French and Spanish, and its English names.
type slashUnit struct{ code, one, many string }

var slashUnits = map[string]slashUnit{
	"km/h": {"km/h", "kilometer per hour", "kilometers per hour"},
	"m/s":  {"m/s", "meter per second", "meters per second"},
	"ft/s": {"ft/s", "foot per second", "feet per second"},
	"mi/h": {"mph", "mile per hour", "miles per hour"},
}

// slashUnitRE finds the units and the number before them ("20 km/h",
// "12m/s"); unitWords checks what stands around them.
var slashUnitRE = regexp.MustCompile(`(?i)(\d+(?:[.,]\d+)?\s?)?(km/h|m/s|ft/s|mi/h)`)

// unitWords says the units written with a slash in words, in the language
// of lang, a language code ("en", "de-AT"; empty is English): "20 km/h" is
// "20 kilometers per hour", "20 Kilometer pro Stunde", "20 kilomètres par
// heure". In a language Hark has no unit names for, they stay as written.
// A unit inside a longer word or path ("m/s²", "/km/h") stays too.
func unitWords(s, lang string) string {
	l, known := locale.Of(lang)
	if lang != "" && !known {
		return s
	}
	matches := slashUnitRE.FindAllStringSubmatchIndex(s, -1)
	if matches == nil {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		start, end := m[0], m[1]
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if start > 0 && (unicode.IsLetter(before) || unicode.IsDigit(before) || before == '/') ||
			end < len(s) && (unicode.IsLetter(after) || unicode.IsDigit(after) || strings.ContainsRune("/²³", after)) {
			continue
		}
		u := slashUnits[strings.ToLower(s[m[4]:m[5]])]
		number := ""
		if m[2] >= 0 {
			number = strings.TrimSpace(s[m[2]:m[3]])
		}
		one := number == "1"
		name := u.many
		if one {
			name = u.one
		}
		if l != locale.English {
			name = l.Unit(u.code, name, one)
		}
		b.WriteString(s[last:start])
		if number != "" {
			b.WriteString(number + " ")
		}
		b.WriteString(name)
		last = end
	}
	b.WriteString(s[last:])
	return b.String()
}
