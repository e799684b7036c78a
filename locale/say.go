package locale

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/harkbox/hark/locale/utterance"
)

// unit is a duration unit as said: one of it ("1 minute", "eine Minute")
// and the plural that follows a number ("minutes", "Minuten").
type unit struct{ one, many string }

// grammar is how a language says lists, durations, days and times.
type grammar struct {
	and, or string
	units   [4]unit // day, hour, minute, second
	// after are the units after a preposition, where the language
	// declines them ("in einer Stunde"); nil when they are the same.
	after    *[4]unit
	weekdays [7]string
	months   [12]string
	// everyDay, weekdays and weekends name the usual repeats; every
	// precedes a list of days.
	everyDay, onWeekdays, onWeekends, every string
	today, tomorrow, on                     string
}

var grammars = map[Lang]grammar{
	English: {
		and: "and", or: "or",
		units:    [4]unit{{"1 day", "days"}, {"1 hour", "hours"}, {"1 minute", "minutes"}, {"1 second", "seconds"}},
		weekdays: [7]string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"},
		months:   [12]string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
		everyDay: "every day", onWeekdays: "on weekdays", onWeekends: "on weekends", every: "every",
		today: "today", tomorrow: "tomorrow", on: "on",
	},
	German: {
		and: "und", or: "oder",
		units:    [4]unit{{"ein Tag", "Tage"}, {"eine Stunde", "Stunden"}, {"eine Minute", "Minuten"}, {"eine Sekunde", "Sekunden"}},
		after:    &[4]unit{{"einem Tag", "Tagen"}, {"einer Stunde", "Stunden"}, {"einer Minute", "Minuten"}, {"einer Sekunde", "Sekunden"}},
		weekdays: [7]string{"Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"},
		months:   [12]string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"},
		everyDay: "jeden Tag", onWeekdays: "werktags", onWeekends: "am Wochenende", every: "jeden",
		today: "heute", tomorrow: "morgen", on: "am",
	},
	French: {
		and: "et", or: "ou",
		units:    [4]unit{{"un jour", "jours"}, {"une heure", "heures"}, {"une minute", "minutes"}, {"une seconde", "secondes"}},
		weekdays: [7]string{"dimanche", "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi"},
		months:   [12]string{"janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre", "novembre", "décembre"},
		everyDay: "tous les jours", onWeekdays: "en semaine", onWeekends: "le week-end", every: "chaque",
		today: "aujourd'hui", tomorrow: "demain", on: "",
	},
	Spanish: {
		and: "y", or: "o",
		units:    [4]unit{{"un día", "días"}, {"una hora", "horas"}, {"un minuto", "minutos"}, {"un segundo", "segundos"}},
		weekdays: [7]string{"domingo", "lunes", "martes", "miércoles", "jueves", "viernes", "sábado"},
		months:   [12]string{"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
		everyDay: "todos los días", onWeekdays: "entre semana", onWeekends: "los fines de semana", every: "cada",
		today: "hoy", tomorrow: "mañana", on: "el",
	},
}

func (l Lang) grammar() grammar {
	if g, ok := grammars[l]; ok {
		return g
	}
	return grammars[English]
}

// And joins items as a list: "a, b and c", "a, b und c".
func (l Lang) And(items []string) string { return join(items, l.grammar().and) }

// Or joins items as alternatives: "a, b or c".
func (l Lang) Or(items []string) string { return join(items, l.grammar().or) }

func join(items []string, conj string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " " + conj + " " + items[len(items)-1]
}

// Duration says d the way a person says it: "1 hour and 30 minutes",
// "eine Stunde und 30 Minuten", "5 minutos". Parts below a second are
// dropped.
func (l Lang) Duration(d time.Duration) string { return l.duration(d, l.grammar().units) }

// After says d after a preposition: "in %s" is "in einer Stunde" in German.
func (l Lang) After(d time.Duration) string {
	if g := l.grammar(); g.after != nil {
		return l.duration(d, *g.after)
	}
	return l.Duration(d)
}

func (l Lang) duration(d time.Duration, units [4]unit) string {
	d = d.Round(time.Second)
	if d <= 0 {
		return "0 " + units[3].many
	}
	var parts []string
	for i, u := range []time.Duration{24 * time.Hour, time.Hour, time.Minute, time.Second} {
		if n := d / u; n > 0 {
			parts = append(parts, units[i].count(int(n)))
			d -= n * u
		}
	}
	return l.And(parts)
}

func (u unit) count(n int) string {
	if n == 1 {
		return u.one
	}
	return fmt.Sprintf("%d %s", n, u.many)
}

// Weekday names a day of the week.
func (l Lang) Weekday(d time.Weekday) string { return l.grammar().weekdays[d] }

// Clock says a time of day as it is said after "at" or "for": "7:30 AM" and
// "noon" in English, "7:30 Uhr" in German, "7 h 30" in French and "las 7 y
// media de la mañana" in Spanish.
func (l Lang) Clock(h, m int) string {
	switch l {
	case German:
		if h == 0 && m == 0 {
			return "Mitternacht"
		}
		if m == 0 {
			return fmt.Sprintf("%d Uhr", h)
		}
		return fmt.Sprintf("%d Uhr %d", h, m)
	case French:
		switch {
		case h == 12 && m == 0:
			return "midi"
		case h == 0 && m == 0:
			return "minuit"
		case m == 0:
			return fmt.Sprintf("%d %s", h, map[bool]string{true: "heure", false: "heures"}[h < 2])
		}
		return fmt.Sprintf("%d %s %d", h, map[bool]string{true: "heure", false: "heures"}[h < 2], m) // "0 heure 30": under two is singular
	case Spanish:
		return spanishClock(h, m)
	}
	switch {
	case h == 12 && m == 0:
		return "noon"
	case h == 0 && m == 0:
		return "midnight"
	}
	suffix := "AM"
	if h >= 12 {
		suffix = "PM"
	}
	return fmt.Sprintf("%d:%02d %s", twelve(h), m, suffix)
}

func twelve(h int) int {
	if h%12 == 0 {
		return 12
	}
	return h % 12
}

// spanishClock is the twelve-hour time with its article, minutes as
// quarters and halves, and the part of the day.
func spanishClock(h, m int) string {
	switch {
	case h == 12 && m == 0:
		return "las doce del mediodía"
	case h == 0 && m == 0:
		return "la medianoche"
	}
	hh := twelve(h)
	article := "las"
	if hh == 1 {
		article = "la"
	}
	s := fmt.Sprintf("%s %d", article, hh)
	switch m {
	case 0:
	case 15:
		s += " y cuarto"
	case 30:
		s += " y media"
	default:
		s += fmt.Sprintf(" y %d", m)
	}
	switch {
	case h < 6:
		return s + " de la madrugada"
	case h < 12:
		return s + " de la mañana"
	case h < 20:
		return s + " de la tarde"
	}
	return s + " de la noche"
}

// TimeNow is the whole sentence telling the time: "It's 2:30 PM.", "Es ist
// 14 Uhr 30.", "Il est 14 heures 30.", "Son las 2 y media de la tarde."
func (l Lang) TimeNow(h, m int) string {
	c := l.Clock(h, m)
	switch l {
	case German:
		return "Es ist " + c + "."
	case French:
		return "Il est " + c + "."
	case Spanish:
		if strings.HasPrefix(c, "la ") {
			return "Es " + c + "."
		}
		return "Son " + c + "."
	}
	return "It's " + c + "."
}

// Date says a date with its weekday: "Tuesday, November 24th, 2026",
// "Dienstag, der 24. November 2026", "mardi 24 novembre 2026", "martes, 24
// de noviembre de 2026".
func (l Lang) Date(t time.Time) string {
	g := l.grammar()
	wd, mo, d, y := g.weekdays[t.Weekday()], g.months[t.Month()-1], t.Day(), t.Year()
	switch l {
	case German:
		return fmt.Sprintf("%s, der %d. %s %d", wd, d, mo, y)
	case French:
		day := fmt.Sprint(d)
		if d == 1 {
			day = "1er"
		}
		return fmt.Sprintf("%s %s %s %d", wd, day, mo, y)
	case Spanish:
		return fmt.Sprintf("%s, %d de %s de %d", wd, d, mo, y)
	}
	return fmt.Sprintf("%s, %s %s, %d", wd, mo, Ordinal(d), y)
}

// DayOfMonth says a day of a month without the year: "November 24th",
// "24. November", "24 novembre", "24 de noviembre".
func (l Lang) DayOfMonth(t time.Time) string {
	mo, d := l.grammar().months[t.Month()-1], t.Day()
	switch l {
	case German:
		return fmt.Sprintf("%d. %s", d, mo)
	case French:
		return fmt.Sprintf("%d %s", d, mo)
	case Spanish:
		return fmt.Sprintf("%d de %s", d, mo)
	}
	return fmt.Sprintf("%s %s", mo, Ordinal(d))
}

// Ordinal writes an English ordinal: "1st", "22nd", "13th".
func Ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}

// When says when a one-off item is due, relative to now: "7:00 AM
// tomorrow", "morgen um 7 Uhr", "demain à 7 heures", "mañana a las 7 de la
// mañana".
func (l Lang) When(due, now time.Time) string {
	g := l.grammar()
	clock := l.Clock(due.Hour(), due.Minute())
	days := utterance.CalendarDays(now, due.In(now.Location()))
	var when string
	switch {
	case days == 0:
		when = g.today
	case days == 1:
		when = g.tomorrow
	case days < 7:
		when = strings.TrimSpace(g.on + " " + g.weekdays[due.Weekday()])
	default:
		when = strings.TrimSpace(g.on + " " + l.DayOfMonth(due))
		if l == French {
			when = "le " + when
		}
	}
	switch l {
	case German:
		return when + " um " + clock
	case French:
		return when + " à " + clock
	case Spanish:
		return when + " a " + clock
	}
	return clock + " " + when
}

// EveryDay and the others name a repeating alarm's days.
func (l Lang) Days(days []time.Weekday) string {
	g := l.grammar()
	sorted := slices.Clone(days)
	slices.Sort(sorted)
	switch {
	case len(sorted) == 7:
		return g.everyDay
	case slices.Equal(sorted, []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}):
		return g.onWeekdays
	case len(sorted) == 2 && sorted[0] == time.Sunday && sorted[1] == time.Saturday:
		return g.onWeekends
	}
	var names []string
	for _, d := range sorted {
		names = append(names, g.weekdays[d])
	}
	return g.every + " " + l.And(names)
}

// At says a repeating alarm's time with its days: "7:00 AM on weekdays",
// "werktags um 7 Uhr".
func (l Lang) At(h, m int, days []time.Weekday) string {
	c, d := l.Clock(h, m), l.Days(days)
	switch l {
	case German:
		return d + " um " + c
	case French:
		return d + " à " + c
	case Spanish:
		return d + " a " + c
	}
	return c + " " + d
}

// Number writes a number as digits with the language's decimal mark:
// "2.5" in English, "2,5" in German, French and Spanish.
func (l Lang) Number(digits string) string {
	if l == English {
		return digits
	}
	return strings.Replace(digits, ".", ",", 1)
}

// Unit names a unit of the converter by its code, as one or many; the
// English name is used where the language has none.
func (l Lang) Unit(code, english string, one bool) string {
	names, ok := unitNames[l][code]
	if !ok {
		return english
	}
	if one {
		return names[0]
	}
	return names[1]
}

// unitNames are the converter's units in each language, one and many.
var unitNames = map[Lang]map[string][2]string{
	German: {
		"mm": {"Millimeter", "Millimeter"}, "cm": {"Zentimeter", "Zentimeter"}, "m": {"Meter", "Meter"}, "km": {"Kilometer", "Kilometer"},
		"in": {"Zoll", "Zoll"}, "ft": {"Fuß", "Fuß"}, "yd": {"Yard", "Yards"}, "mi": {"Meile", "Meilen"}, "nmi": {"Seemeile", "Seemeilen"},
		"mg": {"Milligramm", "Milligramm"}, "g": {"Gramm", "Gramm"}, "kg": {"Kilogramm", "Kilogramm"}, "t": {"Tonne", "Tonnen"},
		"oz": {"Unze", "Unzen"}, "lb": {"Pfund", "Pfund"}, "st": {"Stone", "Stone"}, "ml": {"Milliliter", "Milliliter"},
		"cl": {"Zentiliter", "Zentiliter"}, "dl": {"Deziliter", "Deziliter"}, "l": {"Liter", "Liter"}, "tsp": {"Teelöffel", "Teelöffel"},
		"tbsp": {"Esslöffel", "Esslöffel"}, "floz": {"Flüssigunze", "Flüssigunzen"}, "cup": {"Tasse", "Tassen"}, "pt": {"Pint", "Pints"},
		"qt": {"Quart", "Quarts"}, "gal": {"Gallone", "Gallonen"}, "m/s": {"Meter pro Sekunde", "Meter pro Sekunde"},
		"km/h": {"Kilometer pro Stunde", "Kilometer pro Stunde"}, "mph": {"Meile pro Stunde", "Meilen pro Stunde"}, "kn": {"Knoten", "Knoten"},
		"ft/s": {"Fuß pro Sekunde", "Fuß pro Sekunde"}, "c": {"Grad Celsius", "Grad Celsius"}, "f": {"Grad Fahrenheit", "Grad Fahrenheit"}, "k": {"Kelvin", "Kelvin"},
	},
	French: {
		"mm": {"millimètre", "millimètres"}, "cm": {"centimètre", "centimètres"}, "m": {"mètre", "mètres"}, "km": {"kilomètre", "kilomètres"},
		"in": {"pouce", "pouces"}, "ft": {"pied", "pieds"}, "yd": {"yard", "yards"}, "mi": {"mile", "miles"}, "nmi": {"mille marin", "milles marins"},
		"mg": {"milligramme", "milligrammes"}, "g": {"gramme", "grammes"}, "kg": {"kilogramme", "kilogrammes"}, "t": {"tonne", "tonnes"},
		"oz": {"once", "onces"}, "lb": {"livre", "livres"}, "st": {"stone", "stones"}, "ml": {"millilitre", "millilitres"},
		"cl": {"centilitre", "centilitres"}, "dl": {"décilitre", "décilitres"}, "l": {"litre", "litres"}, "tsp": {"cuillère à café", "cuillères à café"},
		"tbsp": {"cuillère à soupe", "cuillères à soupe"}, "floz": {"once liquide", "onces liquides"}, "cup": {"tasse", "tasses"}, "pt": {"pinte", "pintes"},
		"qt": {"quart", "quarts"}, "gal": {"gallon", "gallons"}, "m/s": {"mètre par seconde", "mètres par seconde"},
		"km/h": {"kilomètre par heure", "kilomètres par heure"}, "mph": {"mile par heure", "miles par heure"}, "kn": {"nœud", "nœuds"},
		"ft/s": {"pied par seconde", "pieds par seconde"}, "c": {"degré Celsius", "degrés Celsius"}, "f": {"degré Fahrenheit", "degrés Fahrenheit"}, "k": {"kelvin", "kelvins"},
	},
	Spanish: {
		"mm": {"milímetro", "milímetros"}, "cm": {"centímetro", "centímetros"}, "m": {"metro", "metros"}, "km": {"kilómetro", "kilómetros"},
		"in": {"pulgada", "pulgadas"}, "ft": {"pie", "pies"}, "yd": {"yarda", "yardas"}, "mi": {"milla", "millas"}, "nmi": {"milla náutica", "millas náuticas"},
		"mg": {"miligramo", "miligramos"}, "g": {"gramo", "gramos"}, "kg": {"kilogramo", "kilogramos"}, "t": {"tonelada", "toneladas"},
		"oz": {"onza", "onzas"}, "lb": {"libra", "libras"}, "st": {"stone", "stones"}, "ml": {"mililitro", "mililitros"},
		"cl": {"centilitro", "centilitros"}, "dl": {"decilitro", "decilitros"}, "l": {"litro", "litros"}, "tsp": {"cucharadita", "cucharaditas"},
		"tbsp": {"cucharada", "cucharadas"}, "floz": {"onza líquida", "onzas líquidas"}, "cup": {"taza", "tazas"}, "pt": {"pinta", "pintas"},
		"qt": {"cuarto de galón", "cuartos de galón"}, "gal": {"galón", "galones"}, "m/s": {"metro por segundo", "metros por segundo"},
		"km/h": {"kilómetro por hora", "kilómetros por hora"}, "mph": {"milla por hora", "millas por hora"}, "kn": {"nudo", "nudos"},
		"ft/s": {"pie por segundo", "pies por segundo"}, "c": {"grado Celsius", "grados Celsius"}, "f": {"grado Fahrenheit", "grados Fahrenheit"}, "k": {"kelvin", "kelvin"},
	},
}

// yours are the words a user says of themselves and how Hark says them
// back: "my" is "your". Only words whose swap needs no change to the verb
// are swapped in German, French and Spanish ("mein" but not "ich bin").
var yours = map[Lang]map[string]string{
	English: {"my": "your", "me": "you", "i": "you", "mine": "yours", "myself": "yourself",
		"we": "you", "our": "your", "ours": "yours", "us": "you", "ourselves": "yourselves"},
	German: {"mein": "dein", "meine": "deine", "meinen": "deinen", "meinem": "deinem", "meiner": "deiner", "meines": "deines",
		"mich": "dich", "mir": "dir",
		"unser": "euer", "unsere": "eure", "unseren": "euren", "unserem": "eurem", "unserer": "eurer", "unseres": "eures", "uns": "euch"},
	French: {"mon": "ton", "ma": "ta", "mes": "tes", "moi": "toi", "notre": "votre", "nos": "vos"},
	Spanish: {"mi": "tu", "mis": "tus",
		"nuestro": "vuestro", "nuestra": "vuestra", "nuestros": "vuestros", "nuestras": "vuestras"},
}

// Yours turns what the user said of themselves into how Hark says it
// back: "call my mom" is "call your mom", "meine Mutter anrufen" is "deine
// Mutter anrufen". A capital stays.
func (l Lang) Yours(s string) string {
	swap := yours[l]
	words := strings.Fields(s)
	for i, w := range words {
		to, ok := swap[strings.ToLower(w)]
		if !ok {
			if l == English && strings.EqualFold(w, "am") && i > 0 && words[i-1] == "you" {
				words[i] = "are"
			}
			continue
		}
		if w != strings.ToLower(w) && w != "I" {
			to = strings.ToUpper(to[:1]) + to[1:]
		}
		words[i] = to
	}
	return strings.Join(words, " ")
}
