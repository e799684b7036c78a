package locale

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/harkbox/hark/locale/utterance"
)

// rule rewrites a phrase. A quantity rule matches anywhere on word
// boundaries; a frame matches the whole utterance. The replacement is a
// template ($1 … $9 are the pattern's groups) or, when fn is set, fn's
// result for the groups.
type rule struct {
	re *regexp.Regexp
	to string
	fn func(g []string) string
	// frame marks a rule that must match the whole utterance.
	frame bool
	// whole, when set, reads the whole utterance in code instead.
	whole func(s string) string
}

// phrase is a quantity rule: pattern matches anywhere between word
// boundaries.
func phrase(pattern, to string) rule {
	return rule{re: regexp.MustCompile(`(^| )(?:` + pattern + `)( |$)`), to: to}
}

func phraseFn(pattern string, fn func(g []string) string) rule {
	return rule{re: regexp.MustCompile(`(^| )(?:` + pattern + `)( |$)`), fn: fn}
}

// frame is a whole-utterance rule.
func frame(pattern, to string) rule {
	return rule{re: regexp.MustCompile(`^(?:` + pattern + `)$`), to: to, frame: true}
}

func (r rule) expand(g []string) string {
	if r.fn != nil {
		return r.fn(g)
	}
	out := r.to
	for i := len(g) - 1; i >= 1; i-- {
		out = strings.ReplaceAll(out, "$"+strconv.Itoa(i), g[i])
	}
	return out
}

// apply rewrites every match of a quantity rule in s.
func (r rule) apply(s string) string {
	for range 4 { // matches that share a space are found on the next pass
		next := r.re.ReplaceAllStringFunc(s, func(m string) string {
			sub := r.re.FindStringSubmatch(m)
			inner := append([]string{sub[0]}, sub[2:len(sub)-1]...)
			return sub[1] + r.expand(inner) + sub[len(sub)-1]
		})
		if next == s {
			break
		}
		s = next
	}
	return s
}

// match rewrites s when a frame matches it whole.
func (r rule) match(s string) (string, bool) {
	if r.whole != nil {
		out := r.whole(s)
		return out, out != ""
	}
	g := r.re.FindStringSubmatch(s)
	if g == nil {
		return "", false
	}
	out := r.expand(g)
	return out, out != ""
}

// phrasebook is how the offline core reads one language: its numbers, its
// duration units and day names, and the frames that turn its ordinary
// phrasings of the core's commands into the English the commands read.
type phrasebook struct {
	numeral numeral
	// articles are "one" only before a unit: "eine Minute", "una hora".
	articles []string
	// elisions are the article and preposition a word is written onto,
	// with their full form: "l'" of "l'alarme" is "le".
	elisions map[string]string
	// words are replaced one for one after a number or anywhere: duration
	// units after a number, day names anywhere.
	units, words map[string]string
	// quantities rewrite durations, times of day and days anywhere.
	quantities []rule
	// and joins durations: "eine Stunde und 30 Minuten".
	and string
	// trim strips politeness around the utterance before the frames.
	trim *regexp.Regexp
	// frames rewrite the whole utterance; the first that matches wins.
	frames []rule
}

var books = map[Lang]*phrasebook{}

// Canonical rewrites a follow-up said in l into the English the commands'
// refinements read: "ja" is "yes", "eigentlich zehn Minuten" "actually 10
// minutes". What the frames do not know is returned with its numbers and
// quantities read. English is returned as said.
func (l Lang) Canonical(text string) string {
	b, ok := books[l]
	if !ok {
		return text
	}
	s := l.Quantities(text)
	if b.trim != nil {
		s = strings.TrimSpace(b.trim.ReplaceAllString(s, ""))
	}
	for _, f := range b.frames {
		if out, ok := f.match(s); ok {
			return tidy(out)
		}
	}
	return s
}

// Quantities reads the numbers, durations, times of day and days said in
// l into the English the commands read ("halb acht" is "7:30", "zwei
// Minuten" "2 minutes", "demain" "tomorrow"), normalized; the other words
// are left as they are. English is normalized only.
func (l Lang) Quantities(text string) string {
	b, ok := books[l]
	if !ok {
		return utterance.Normalize(text)
	}
	var words []string
	for _, w := range strings.Fields(utterance.Normalize(text)) {
		if p, rest, ok := elided(w, b.elisions); ok {
			words = append(words, p, rest)
			continue
		}
		words = append(words, w)
	}
	words = b.digits(words)
	for i, w := range words {
		if slices.Contains(b.articles, w) && i+1 < len(words) && b.units[words[i+1]] != "" {
			words[i] = "1"
		}
	}
	s := strings.Join(words, " ")
	for _, q := range b.quantities {
		s = q.apply(s)
	}
	for _, q := range dayParts {
		s = q.apply(s)
	}
	words = strings.Fields(s)
	for i, w := range words {
		switch u, ok := b.units[w]; {
		case ok && i > 0 && isNumber(words[i-1]):
			words[i] = u
		case w == b.and && i > 0 && i+1 < len(words) && isUnit(words[i-1]) && isNumber(words[i+1]):
			words[i] = "and"
		default:
			if e, ok := b.words[w]; ok {
				words[i] = e
			}
		}
	}
	return strings.Join(words, " ")
}

// digits writes the numbers in words as digits; an article is one only
// before a unit: "eine Minute", but not "eine Frage".
func (b *phrasebook) digits(words []string) []string {
	return b.numeral.digitsFor(words, func(i int) bool {
		return slices.Contains(b.articles, words[i]) && (i+1 >= len(words) || b.units[words[i+1]] == "")
	})
}

func isUnit(w string) bool {
	switch w {
	case "second", "seconds", "minute", "minutes", "hour", "hours", "day", "days":
		return true
	}
	return false
}

func isNumber(w string) bool {
	_, err := strconv.ParseFloat(w, 64)
	return err == nil
}

// tidy collapses what templates leave behind: doubled spaces, "for at 7".
var tidier = strings.NewReplacer("for at ", "for ", "at at ", "at ", "to to ", "to ")

func tidy(s string) string { return tidier.Replace(strings.Join(strings.Fields(s), " ")) }

// clockAt writes an hour and minute as the English clock reads them.
func clockAt(h, m int) string {
	if m == 0 {
		return strconv.Itoa(h)
	}
	return strconv.Itoa(h) + ":" + pad(m)
}

// fromNoon writes the time some minutes after noon (base 12) or midnight
// (base 0), or before it when negative ("minuit moins le quart"), as the
// English clock reads it without doubt: "0:30", "11:45 am", "12:15",
// "23:45".
func fromNoon(base, minutes int) string {
	t := ((base*60+minutes)%(24*60) + 24*60) % (24 * 60)
	h, m := t/60, t%60
	switch {
	case h == 0:
		return "0:" + pad(m)
	case h < 12:
		return clockAt(h, m) + " am"
	}
	return clockAt(h, m)
}

// nearNoon is what a phrasebook reads for a time said some minutes from
// noon or midnight, after prep ("à", "a", "um" or none): the time as
// fromNoon writes it, or said as it was when the minutes are none of an
// hour's.
func nearNoon(said, prep string, base, minutes int) string {
	if minutes == 0 || minutes <= -60 || minutes >= 60 {
		return said
	}
	return at(prep) + fromNoon(base, minutes)
}

// midday writes an hour said "at midday" ("zwölf Uhr mittags", "las
// doce del mediodía", "la una del mediodía") as the English clock reads
// it: twelve is noon, one to five the early afternoon, ten and eleven the
// late morning; another hour is left as said.
func midday(said, prep string, h, m int) string {
	switch {
	case h == 12 || h >= 1 && h <= 5:
		return at(prep) + clockAt(h, m) + " pm"
	case h == 10 || h == 11:
		return at(prep) + clockAt(h, m) + " am"
	}
	return strings.TrimSpace(said)
}

// night writes a time said "at night" ("drei Uhr nachts", "las doce de la
// noche", "deux heures de la nuit") as the English clock reads it: twelve
// is midnight ("12 am"), one to five the small hours ("3 am"), six to
// eleven the evening ("11 pm"). A 24-hour time is left as said.
func night(clock string) string {
	h, m, _ := strings.Cut(clock, ":")
	c := utterance.ClockTime{Hour: atoi(h), Minute: atoi(m)}
	if c.Hour == 0 || c.Hour > 12 {
		return clock
	}
	c = c.AtNight()
	half := "am"
	if c.Hour >= 12 {
		half = "pm"
	}
	return clockAt((c.Hour+11)%12+1, c.Minute) + " " + half
}

// dayParts move the part of the day said before a time ("abends um
// sieben", "esta noche a las doce") after it, where the clock reads it:
// "pm at 7" is "at 7 pm", "tonight at 12" "at 12 tonight".
var dayParts = []rule{
	phrase(`(am|pm) at (\d+(?::\d{2})?)`, "at $2 $1"),
	phraseFn(`tonight at (\d+(?::\d{2})?)( am| pm)?`, func(g []string) string {
		if g[2] != "" {
			return "at " + g[1] + g[2]
		}
		return "at " + g[1] + " tonight"
	}),
}

func pad(m int) string {
	if m < 10 {
		return "0" + strconv.Itoa(m)
	}
	return strconv.Itoa(m)
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

// before is the hour before h on a twelve- or 24-hour clock: "halb acht"
// is 7:30.
func before(h int) int {
	if h <= 1 {
		return h + 11
	}
	return h - 1
}

var clockRE = regexp.MustCompile(`^\d{1,2}(?::\d{2})?$`)

// reminder reads the rest of "remind me ..." in a language where the
// message and the time come in either order: the time as read into
// English ("in 10 minutes", "tomorrow at 9 am", "on friday"), the message
// led by one of links ("an", "de", "que") or by nothing.
func reminder(rest string, links []string) string {
	words := strings.Fields(rest)
	if n := whenLen(words); n > 0 && n == len(words) { // the time alone: what of is asked
		return "remind me " + rest
	}
	if n := whenLen(words); n == 0 && len(words) > 2 && isDay(words[0]) && slices.Contains(links, words[1]) {
		return "remind me on " + words[0] + " to " + strings.Join(words[2:], " ") // "lundi d'appeler", "Montag an den Arzt"
	}
	if n := whenLen(words); n > 0 && n < len(words) { // the time first
		msg := words[n:]
		if slices.Contains(links, msg[0]) && len(msg) > 1 {
			msg = msg[1:]
		}
		return "remind me " + onDays(words[:n]) + " to " + strings.Join(msg, " ")
	}
	if len(words) > 0 && slices.Contains(links, words[0]) {
		words = words[1:]
	}
	for i := 1; i < len(words); i++ { // the message first, then the time
		if whenLen(words[i:]) == len(words)-i && !slices.Contains(dayOwners, words[i-1]) && words[i-1] != "on" && words[i-1] != "next" {
			return "remind me " + onDays(words[i:]) + " to " + strings.Join(words[:i], " ")
		}
	}
	return ""
}

// dayOwners are the words before a day that make it the message's, not
// when it is due: "für Sonntag", "pour dimanche", "para el domingo".
var dayOwners = []string{"für", "bis", "vor", "pour", "jusqu'à", "avant", "para", "hasta", "antes", "for", "until", "before", "by"}

// whenLen is how many words at the start of words say when: "in 10
// minutes", "tomorrow at 9 am", "on friday", "next friday", "tonight".
func whenLen(words []string) int {
	n := 0
	for n < len(words) {
		w := words[n]
		switch {
		case w == "tomorrow" || w == "today" || w == "tonight":
			n++
		case (w == "morning" || w == "afternoon" || w == "evening") && n > 0 && (words[n-1] == "tomorrow" || isDay(words[n-1])): // "tomorrow morning"
			n++
		case w == "the" && n+3 < len(words) && words[n+1] == "day" && words[n+2] == "after" && words[n+3] == "tomorrow":
			n += 4
		case w == "in" && n+2 < len(words) && isNumber(words[n+1]) && isUnit(words[n+2]):
			n += 3
		case w == "and" && n > 0 && isUnit(words[n-1]) && n+2 < len(words) && isNumber(words[n+1]) && isUnit(words[n+2]):
			n += 3 // "in 1 hour and 30 minutes"
		case w == "at" && n+1 < len(words) && (clockRE.MatchString(words[n+1]) || words[n+1] == "noon" || words[n+1] == "midnight"):
			n += 2
			if n < len(words) && (words[n] == "am" || words[n] == "pm") {
				n++
			}
		case (w == "on" || w == "next") && n+1 < len(words) && isDay(words[n+1]):
			n += 2
		case w == "on" && n+2 < len(words) && words[n+1] == "next" && isDay(words[n+2]):
			n += 3
		case isDay(w) && (n+1 < len(words) && slices.Contains([]string{"at", "morning", "afternoon", "evening"}, words[n+1]) || n+1 == len(words)): // "lundi à 9 heures", "lundi soir", "… lundi", said without "le"
			n++
		case isDay(w) && n+2 < len(words) && words[n+1] == "next" && words[n+2] == "week":
			n++
		case w == "next" && n > 0 && isDay(words[n-1]) && n+1 < len(words) && words[n+1] == "week": // "monday next week"
			n += 2
		default:
			return n
		}
	}
	return n
}

// onDays joins the words of a time, with "on" before a day said bare
// ("monday at 9" is "on monday at 9"), as the English reader takes it.
func onDays(when []string) string {
	var out []string
	for i, w := range when {
		if isDay(w) && (i == 0 || when[i-1] != "on" && when[i-1] != "next") {
			out = append(out, "on")
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

func isDay(w string) bool {
	switch w {
	case "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday":
		return true
	}
	return false
}

// elided splits "l'alarme" into "le" and "alarme".
func elided(w string, elisions map[string]string) (string, string, bool) {
	for p, full := range elisions {
		if rest, ok := strings.CutPrefix(w, p); ok && rest != "" {
			return full, rest, true
		}
	}
	return "", "", false
}

// convertUnits are the converter's units as said in each language, as
// their codes: the names it says them by, and others people say.
var convertUnits = func() map[Lang]map[string]string {
	m := map[Lang]map[string]string{German: germanConvert, French: frenchConvert, Spanish: spanishConvert}
	for l, names := range unitNames {
		for code, forms := range names {
			for _, said := range forms {
				m[l][utterance.Normalize(said)] = code
			}
		}
	}
	return m
}()

// reminderLinks are the words that lead a reminder's message in each
// language: "an", "de", "que".
var reminderLinks = map[Lang][]string{
	German:  {"an", "daran", "dass", "zu"},
	French:  {"de", "que", "qu'", "à"},
	Spanish: {"que", "de", "a", "para"},
}

// UnitName is the converter's code of a unit said in l ("Meilen" is
// "mi"), or its English name, and whether l has one; English names are
// their own.
func (l Lang) UnitName(said string) (string, bool) {
	w := strings.TrimSpace(utterance.Normalize(said))
	if u, ok := convertUnits[l][w]; ok {
		return u, true
	}
	if en, ok := englishUnits[w]; ok {
		return en, true
	}
	return w, l == English
}

// Reminder reads the rest of "remind me ..." said in l (time and message
// in either order, the message led by its link word) into the English
// "in 10 minutes to take the pizza out", with the quantities read; "" when
// it has no time. English is returned normalized.
func (l Lang) Reminder(rest string) string {
	q := l.Quantities(rest)
	links, ok := reminderLinks[l]
	if !ok {
		return q
	}
	out := reminder(q, links)
	return strings.TrimPrefix(out, "remind me ")
}

// atWords are the words that put a time of day in each language: "um 7",
// "à 7 heures", "a las 7".
var atWords = map[Lang]string{German: "um", French: "à", Spanish: "a las"}

// WhenSaid reads a time of day and the days said in l ("7 heures", "demain à 7
// h 30", "halb acht") into English ("at 7", "tomorrow at 7:30", "7:30"): a
// time said bare gets the language's "at" first, so it reads as a time of
// day rather than a duration.
func (l Lang) WhenSaid(text string) string {
	if at, ok := atWords[l]; ok {
		if f := strings.Fields(utterance.Normalize(text)); len(f) > 0 {
			if _, _, isNum := l.ReadNumber(f); isNum || clockRE.MatchString(f[0]) {
				text = at + " " + text
			}
		}
	}
	return l.Quantities(text)
}
