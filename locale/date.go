package locale

import (
	"strconv"
	"strings"

	"github.com/harkbox/hark/locale/utterance"
)

// DaySaid reads a day said in l ("übermorgen", "der 25. Dezember", "el
// próximo viernes", "la Saint-Sylvestre") into the English that
// utterance.ParseDay reads ("the day after tomorrow", "25 december", "next
// friday", "new year's eve"): the feasts of a fixed date, the months, the
// days around today and the words that name a weekday to come or gone.
// The day's own words are read first, then the language's quantities
// (numbers, weekdays), then what joins them. English is normalized only.
func (l Lang) DaySaid(text string) string {
	s := utterance.Normalize(text)
	rules, ok := dayRules[l]
	if !ok {
		return s
	}
	if rules.word != nil {
		words := strings.Fields(s)
		for i, w := range words {
			words[i] = rules.word(w)
		}
		s = strings.Join(words, " ")
	}
	for _, r := range rules.before {
		s = r.apply(s)
	}
	s = l.Quantities(s)
	for _, r := range rules.after {
		s = r.apply(s)
	}
	return tidy(s)
}

// dayRules are a language's rules for a day said: word, when set,
// rewrites each word first; before rewrites before its quantities are
// read, and after after.
var dayRules = map[Lang]struct {
	word          func(string) string
	before, after []rule
}{
	German: {
		word: germanOrdinal,
		before: []rule{
			phrase(`(?:der |den |dem |am |zum )?(?:erster |ersten |1 )?weihnachtstag|weihnachten|(?:der |den |dem |am |zum )?weihnachtsfeiertag`, "christmas"),
			phrase(`(?:der |den |dem |am |zum )?(?:heiligabend|heiligen abend|heiliger abend|heilig abend)`, "christmas eve"),
			phrase(`(?:der |den |dem |am |zum |zu )?(?:silvester|silvesterabend)`, "new year's eve"),
			phrase(`(?:der |den |dem |am |zum |zu )?(?:neujahr|neujahrstag)|(?:das |dem )?neuen? jahr`, "new year's day"),
			phrase(`(?:der |den |dem |am |zum |zu )?valentinstag`, "valentine's day"),
			phrase(`übermorgen`, "the day after tomorrow"),
			phrase(`vorgestern`, "the day before yesterday"),
			phrase(`gestern`, "yesterday"),
			phrase(`(?:heute )?in einer woche|(?:heute )?in acht tagen`, "in 7 days"),
			phrase(`(?:am |den )?(?:nächsten|nächster|kommenden|kommender|diesen|dieser) (montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)`, "next $1"),
			phrase(`(?:am |den )?(?:letzten|letzter|vergangenen|vergangener) (montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)`, "last $1"),
			phrase(`(?:der|den|dem|am|zum) (\d+)`, "$1"),
		},
		after: []rule{
			phrase(`in (\d+) wochen`, "in $1 weeks"),
		},
	},
	French: {
		before: []rule{
			phrase(`(?:le |la )?(?:réveillon de noël|reveillon de noel|veille de noël|veille de noel|soir de noël|soir de noel)`, "christmas eve"),
			phrase(`(?:le |la )?(?:saint sylvestre|st sylvestre|réveillon du nouvel an|reveillon du nouvel an|réveillon de la saint sylvestre)`, "new year's eve"),
			phrase(`(?:le )?(?:jour de noël|jour de noel)|noël|noel`, "christmas"),
			phrase(`(?:le )?(?:jour de l'an|nouvel an)|(?:la )?nouvelle année`, "new year's day"),
			phrase(`(?:la )?(?:saint valentin|st valentin)`, "valentine's day"),
			phrase(`après demain|apres demain`, "the day after tomorrow"),
			phrase(`avant hier`, "the day before yesterday"),
			phrase(`hier`, "yesterday"),
			phrase(`dans une semaine|dans huit jours|d'ici une semaine`, "in 7 days"),
			phrase(`(?:le |ce )?(lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) (?:prochain|qui vient)`, "next $1"),
			phrase(`ce (lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)`, "next $1"),
			phrase(`(?:le )?(lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) dernier`, "last $1"),
			phrase(`1er|premier`, "1"),
		},
		after: []rule{
			phraseFn(`(?:le )?(\d+) (janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|septembre|octobre|novembre|décembre|decembre)(?: (\d{4}))?`,
				monthFrom(French)),
			phrase(`dans (\d+) semaines`, "in $1 weeks"),
			phrase(`le|la`, ""),
		},
	},
	Spanish: {
		before: []rule{
			phrase(`(?:la )?nochebuena`, "christmas eve"),
			phrase(`(?:la )?nochevieja`, "new year's eve"),
			phrase(`(?:el )?(?:día de )?navidad`, "christmas"),
			phrase(`(?:el )?(?:día de )?(?:año nuevo|ano nuevo)`, "new year's day"),
			phrase(`(?:el )?(?:día de )?(?:san valentín|san valentin|los enamorados)`, "valentine's day"),
			phrase(`anteayer|antier|antes de ayer`, "the day before yesterday"),
			phrase(`ayer`, "yesterday"),
			phrase(`dentro de una semana|en una semana|de hoy en ocho días`, "in 7 days"),
			phrase(`(?:el )?(?:próximo|proximo) (lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo)`, "next $1"),
			phrase(`(?:el )?(lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo) (?:que viene|próximo|proximo)`, "next $1"),
			phrase(`(?:el )?(lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo) pasado`, "last $1"),
			phrase(`(?:el )?primero de`, "1 de"),
		},
		after: []rule{
			phraseFn(`(?:el )?(\d+) de (enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)(?: de (\d{4}))?`,
				monthFrom(Spanish)),
			phrase(`(?:en|dentro de) (\d+) semanas`, "in $1 weeks"),
			phrase(`el|la`, ""),
		},
	},
}

// monthNames are the months in l as said, January first, with the
// spellings without accents.
var monthNames = map[Lang][][]string{
	German: {{"januar", "jänner"}, {"februar"}, {"märz", "maerz"}, {"april"}, {"mai"}, {"juni"}, {"juli"}, {"august"},
		{"september"}, {"oktober"}, {"november"}, {"dezember"}},
	French: {{"janvier"}, {"février", "fevrier"}, {"mars"}, {"avril"}, {"mai"}, {"juin"}, {"juillet"}, {"août", "aout"},
		{"septembre"}, {"octobre"}, {"novembre"}, {"décembre", "decembre"}},
	Spanish: {{"enero"}, {"febrero"}, {"marzo"}, {"abril"}, {"mayo"}, {"junio"}, {"julio"}, {"agosto"},
		{"septiembre", "setiembre"}, {"octubre"}, {"noviembre"}, {"diciembre"}},
}

var englishMonths = [12]string{"january", "february", "march", "april", "may", "june", "july", "august", "september",
	"october", "november", "december"}

// month is the English name of a month said in l, or "".
func month(l Lang, said string) string {
	for i, names := range monthNames[l] {
		for _, n := range names {
			if n == said {
				return englishMonths[i]
			}
		}
	}
	return ""
}

// monthFrom reads a day of a month said in l, with its year or not ("25
// décembre", "31 de diciembre de 2027"): groups day, month, year.
func monthFrom(l Lang) func(g []string) string {
	return func(g []string) string {
		m := month(l, g[2])
		if m == "" {
			return g[0]
		}
		return strings.TrimSpace(g[1] + " " + m + " " + g[3])
	}
}

func init() {
	// German months are read with the day's own words, before "mai" or
	// "august" meet anything else.
	r := dayRules[German]
	for i, names := range monthNames[German] {
		r.before = append(r.before, phrase(strings.Join(names, "|"), englishMonths[i]))
	}
	dayRules[German] = r
}

// germanStems are ordinals whose stem is not the number's word: "ersten",
// "dritten", "siebten", "achten".
var germanStems = map[string]string{"er": "eins", "ers": "eins", "drit": "drei", "sieb": "sieben", "ach": "acht"}

// germanOrdinal writes a German ordinal of a day of the month as its
// digits ("fünfundzwanzigsten" is "25", "ersten" "1"); another word is
// left as said.
func germanOrdinal(w string) string {
	for _, suffix := range []string{"sten", "ster", "stem", "stes", "ste", "ten", "ter", "tem", "tes", "te"} {
		stem, ok := strings.CutSuffix(w, suffix)
		if !ok || stem == "" {
			continue
		}
		if s, ok := germanStems[stem]; ok {
			stem = s
		}
		if v, n, ok := German.ReadNumber([]string{stem}); ok && n == 1 && v >= 1 && v <= 31 && v == float64(int(v)) {
			return strconv.Itoa(int(v))
		}
	}
	return w
}
