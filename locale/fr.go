package locale

import (
	"regexp"
	"strings"
)

var frenchValues = map[string]int{
	"zéro": 0, "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8,
	"neuf": 9, "dix": 10, "onze": 11, "douze": 12, "treize": 13, "quatorze": 14, "quinze": 15, "seize": 16,
	"vingt": 20, "vingts": 20, "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60,
}

var frenchUnits = map[string]string{
	"seconde": "second", "secondes": "seconds", "minute": "minute", "minutes": "minutes",
	"heure": "hour", "heures": "hours", "jour": "day", "jours": "days",
}

// frenchConvert are the converter's units as said in French beyond the
// names it says them by (unitNames), as its codes.
var frenchConvert = map[string]string{
	"km": "km", "cm": "cm", "mm": "mm", "kilo": "kg", "kilos": "kg", "kg": "kg", "g": "g", "l": "l", "ml": "ml",
	"celsius": "c", "fahrenheit": "f",
	"noeud": "kn", "noeuds": "kn", "kilomètres heure": "km/h", "kilomètre heure": "km/h", "km h": "km/h", "km / h": "km/h",
	"kilomètres à l'heure": "km/h", "miles à l'heure": "mph", "cuillères à thé": "tsp", "cuillère à thé": "tsp",
}

func init() {
	words := map[string]string{"aujourd'hui": "today", "demain": "tomorrow", "lundi": "monday", "mardi": "tuesday",
		"mercredi": "wednesday", "jeudi": "thursday", "vendredi": "friday", "samedi": "saturday", "dimanche": "sunday"}
	books[French] = &phrasebook{
		numeral: numeral{values: frenchValues, mult: map[string]int{"cent": 100, "cents": 100, "mille": 1000},
			joiners: []string{"et"}, decimal: []string{"virgule"}},
		articles: []string{"un", "une"},
		elisions: map[string]string{"l'": "le", "d'": "de"},
		units:    frenchUnits,
		words:    words,
		and:      "et",
		quantities: []rule{
			phrase(`s'il te plaît|s'il te plait|s'il vous plaît|s'il vous plait|stp|svp`, ""),
			phrase(`(?:une )?demi heure|(?:une )?demie heure`, "30 minutes"),
			phrase(`(?:un )?quart de heure`, "15 minutes"),
			phrase(`(?:trois|3) quarts de heure`, "45 minutes"),
			phrase(`(\d+) pour 100`, "$1%"),
			phrase(`ce soir`, "tonight"),
			phrase(`(demain|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) matin`, "$1 morning"), // "demain matin": a part of a day named
			phrase(`(demain|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) après midi|(demain|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) apres midi`, "$1$2 afternoon"),
			phrase(`(demain|lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) soir`, "$1 evening"),
			phrase(`après demain|apres demain`, "the day after tomorrow"),
			phraseFn(`(à |pour |vers )(\d+) (?:heures?|h) et quart`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), 15) }),
			phraseFn(`(à |pour |vers )(\d+) (?:heures?|h) et demie?`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), 30) }),
			phraseFn(`(à |pour |vers )?(\d+) (?:heures?|h) moins le quart`, func(g []string) string { return at(g[1]) + clockAt(before(atoi(g[2])), 45) }),
			phraseFn(`(à |pour |vers )?(\d+) (?:heures?|h) moins (\d+)`, func(g []string) string { return at(g[1]) + clockAt(before(atoi(g[2])), 60-atoi(g[3])) }),
			phrase(`(\d+) (heures?|minutes?) et demie?`, "$1.5 $2"),
			phraseFn(`(à )?(\d+) (?:heures?|h) (\d+)`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), atoi(g[3])) }),
			phraseFn(`(à )?(\d+)h(\d+)`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), atoi(g[3])) }),
			phraseFn(`(à )?(\d+):(\d+)`, func(g []string) string { return at(g[1]) + g[2] + ":" + g[3] }),
			phraseFn(`(à |pour |vers )(\d+)\.(\d{2})(?: (?:heures?|h))?`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), atoi(g[3])) }), // "à 6.30", as whisper writes it
			phraseFn(`à (\d+) (?:heures?|h)|à (\d+)h`, func(g []string) string { return "at " + g[1] + g[2] }),
			phraseFn(`(à |pour |vers )?(midi|minuit) (et quart|et demie?|moins le quart|moins (\d+)|(\d+))`, frenchNoon),
			phrase(`à midi`, "at noon"),
			phrase(`à minuit`, "at midnight"),
			phraseFn(`^(midi|minuit)$`, func(g []string) string { return map[string]string{"midi": "noon", "minuit": "midnight"}[g[1]] }),
			phraseFn(`(\d+(?::\d{2})?) (?:de la nuit|dans la nuit|la nuit)`, func(g []string) string { return night(g[1]) }),
			phraseFn(`(?:cette nuit|la nuit|dans la nuit) (?:at )?(\d+(?::\d{2})?)`, func(g []string) string { return "at " + night(g[1]) }),
			phrase(`cette nuit`, "tonight"),
			phrase(`(\d+) (?:heures?|h) (du matin|du soir|le matin|le soir)`, "$1 $2"), // "8 heures du soir" is a time of day, not 8 hours
			phrase(`du matin|le matin`, "am"),
			phrase(`du soir|de le après midi|le après midi|le soir`, "pm"),
			phrase(`le week end|les week ends|le weekend|chaque week end|du week end|du weekend|des week ends`, "on weekends"),
			phrase(`en semaine|les jours de semaine|du lundi au vendredi`, "on weekdays"),
			phrase(`(?:le )?(lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) (?:de )?la semaine prochaine|la semaine prochaine (?:le )?(lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)`, "$1$2 next week"),
			phrase(`(?:le |ce )?(lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche) (?:prochain|qui vient)|ce (lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)`, "next $1$2"),
			phrase(`du (lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)`, "on $1"), // "le réveil du lundi"
			phrase(`tous les jours|chaque jour`, "every day"),
			phrase(`tous les (lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)s?|chaque (lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)`, "every $1$2"),
			phrase(`dans (\d+(?:\.\d+)?) (secondes?|minutes?|heures?|jours?)`, "in $1 $2"),
		},
		trim: regexp.MustCompile(`^(?:(?:hey|salut|ok|okay|alors|et|dis moi|dites moi|est ce que tu peux|tu peux|peux tu|pourrais tu|tu pourrais|je voudrais savoir|je veux savoir|sais tu|tu sais) )+|(?: (?:merci|maintenant|pour moi|stp))+$`),
		// frames read the follow-ups that change the last call: yes and
		// no, more and less, again, "actually ...", "make it ...".
		frames: []rule{
			frame(`oui|ouais|oui vas y|vas y|d'accord|bien sûr|confirme`, "yes"),
			frame(`non|non merci|surtout pas`, "no"),
			frame(`plus|encore plus|un peu plus|encore`, "more"),
			frame(`moins|un peu moins`, "less"),
			frame(`(?:non |en fait |plutôt |finalement |je voulais dire )+(.+?)(?: plutôt| à la place)?`, "actually $1"),
			frame(`(?:mets|fais|change)(?: le| en| ça| ça en)? (?:à |pour )?(\d.*)`, "make it $1"),
		},
	}
}

// frenchNoon reads a time said from noon or midnight: "midi et quart",
// "minuit et demie", "minuit moins le quart", "midi moins 10", "minuit
// 10". Minutes that are none of an hour's are left as said.
func frenchNoon(g []string) string {
	base := 0
	if g[2] == "midi" {
		base = 12
	}
	var m int
	switch {
	case g[3] == "et quart":
		m = 15
	case strings.HasPrefix(g[3], "et demi"):
		m = 30
	case g[3] == "moins le quart":
		m = -15
	case g[4] != "":
		m = -atoi(g[4])
	default:
		m = atoi(g[5])
	}
	return nearNoon(g[0], g[1], base, m)
}
