package locale

import (
	"slices"
	"strings"
	"unicode"
)

// cues are words and letters that mark a language in a short request. A
// word scores one in each language it is listed in ("in" is English and
// German, "en" French and Spanish); a letter only one language uses scores
// two.
var cues = map[Lang][]string{
	English: {"the", "what", "is", "it", "a", "an", "set", "timer", "for", "me", "my", "to", "how", "much", "time",
		"please", "and", "minutes", "remind", "alarm", "volume", "louder", "stop", "of", "in", "at", "you", "i", "do",
		"turn", "up", "down", "cancel", "date", "day", "today", "tomorrow", "wake", "times", "plus", "percent", "convert",
		"many", "are", "remember", "that", "forget", "about", "know", "quieter", "mute", "on", "off", "hours", "seconds", "with", "thanks", "thank", "help",
		"weather", "rain", "snow", "forecast", "will", "be", "like", "cold", "hot", "light", "lights", "kitchen", "switch"},
	German: {"der", "die", "das", "und", "ist", "ein", "eine", "einen", "für", "mit", "mich", "mir", "wie", "spät", "was",
		"viel", "stell", "stelle", "uhr", "minuten", "stunden", "sekunden", "lauter", "leiser", "erinnere", "wecker",
		"bitte", "ich", "du", "nicht", "auf", "um", "es", "halb", "viertel", "morgen", "heute", "welcher", "welches",
		"weck", "lautstärke", "lösche", "stopp", "sind", "habe", "noch", "mal", "plus", "geteilt", "durch", "merk", "dir", "dass",
		"vergiss", "weißt", "über", "wieviel", "rechne", "zeit", "übrig", "datum", "tag", "ton", "aus", "an", "daran", "timer", "danke", "dankeschön", "kannst", "hilfe", "nein", "eigentlich",
		"in", "im", "wetter", "regnet", "regnen", "regen", "schnee", "schneit", "kalt", "wird", "licht", "schalte", "mach", "küche", "wohnzimmer"},
	French: {"le", "la", "les", "de", "du", "des", "un", "une", "est", "et", "il", "quelle", "quel", "heure", "heures",
		"pour", "dans", "moi", "je", "tu", "à", "combien", "font", "fait", "mets", "minuteur", "réveil", "rappelle",
		"fois", "divisé", "par", "plus", "moins", "fort", "baisse", "arrête", "annule", "aujourd'hui", "demain", "c'est",
		"est-ce", "sommes", "nous", "jour", "volume", "son", "souviens", "oublie", "sais", "que", "qu'est", "alarme", "réveille", "minutes", "merci", "beaucoup", "peux", "faire", "aide", "non",
		"en", "au", "aux", "météo", "temps", "pleuvoir", "pleut", "neige", "fera", "froid", "chaud", "allume", "éteins", "lumière", "cuisine", "salon"},
	Spanish: {"el", "la", "los", "las", "de", "del", "un", "una", "es", "y", "por", "cuánto", "cuanto", "qué", "hora",
		"son", "pon", "ponme", "temporizador", "alarma", "recuérdame", "minutos", "horas", "segundos", "más", "menos",
		"entre", "sube", "baja", "volumen", "para", "cancela", "hoy", "mañana", "está", "despiértame", "día", "fecha",
		"recuerda", "olvida", "sabes", "mi", "que", "tengo", "queda", "cuántos", "convierte", "silencia", "dime", "gracias", "muchas", "puedes", "hacer", "ayuda",
		"en", "a", "va", "tiempo", "llover", "llueve", "lloverá", "clima", "hace", "frío", "calor", "enciende", "apaga", "luz", "luces", "cocina", "salón"},
}

// letters only one of the languages writes.
var letters = map[rune]Lang{
	'ä': German, 'ö': German, 'ü': German, 'ß': German,
	'è': French, 'ê': French, 'à': French, 'ç': French, 'ù': French, 'â': French, 'î': French, 'ô': French, 'œ': French,
	'ñ': Spanish, 'á': Spanish, 'í': Spanish, 'ó': Spanish, 'ú': Spanish, '¿': Spanish, '¡': Spanish,
}

// Detect tells which offline language a typed or transcribed request is
// in, by its words and letters. It reports false when the text is too
// short or too even to tell ("ok", "Paris"): the caller then uses what it
// knew before.
func Detect(text string) (Lang, bool) {
	score := map[Lang]int{}
	lower := strings.ToLower(text)
	for _, r := range lower {
		if l, ok := letters[r]; ok {
			score[l] += 2
		}
	}
	words := strings.FieldsFunc(lower, func(r rune) bool {
		return !unicode.IsLetter(r) && r != '\'' && r != '-'
	})
	for _, w := range words {
		for l, list := range cues {
			if slices.Contains(list, w) {
				score[l]++
			}
		}
		if i := strings.IndexByte(w, '-'); i > 0 { // "est-il", "rappelle-moi"
			for _, part := range strings.Split(w, "-") {
				if slices.Contains(cues[French], part) {
					score[French]++
				}
			}
		}
	}
	best, second := English, -1
	top := -1
	for _, l := range All {
		switch s := score[l]; {
		case s > top:
			second, top, best = top, s, l
		case s > second:
			second = s
		}
	}
	if top <= 0 || top == second {
		return English, false
	}
	return best, true
}
