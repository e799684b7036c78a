package locale

import (
	"regexp"
)

var frenchValues = map[string]int{
	"zéro": 0, "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5, "six": 6, "sept": 7, "huit": 8,
	"neuf": 9, "dix": 10, "onze": 11, "douze": 12, "treize": 13, "quatorze": 14, "quinze": 15, "seize": 16,
	"vingt": 20, "vingts": 20, "trente": 30, "quarante": 40, "cinquante": 50, "soixante": 60,
}

var frenchItems = items{
	timer:    []string{"minuteur", "minuteurs", "minuterie", "timer", "timers", "compte", "chrono"},
	alarm:    []string{"alarme", "alarmes", "réveil", "réveils"},
	reminder: []string{"rappel", "rappels"},
	cancel:   []string{"annule", "annuler", "arrête", "arrêter", "arrete", "supprime", "supprimer", "efface", "effacer", "stoppe", "stop", "enlève", "retire", "désactive", "coupe"},
	ask:      []string{"quels", "quel", "quelles", "quelle", "combien", "reste", "restant", "liste", "montre", "ai", "as", "y", "encore"},
	all:      []string{"tous", "toutes"},
	about:    []string{"pour", "de", "du", "d'"},
	skip:     []string{"le", "la", "les", "mon", "ma", "mes", "un", "une", "tous", "toutes", "ce"},
}

var frenchUnits = map[string]string{
	"seconde": "second", "secondes": "seconds", "minute": "minute", "minutes": "minutes",
	"heure": "hour", "heures": "hours", "jour": "day", "jours": "days",
}

var frenchConvert = map[string]string{
	"mile": "miles", "miles": "miles", "kilomètre": "kilometers", "kilomètres": "kilometers", "km": "kilometers",
	"mètre": "meters", "mètres": "meters", "centimètre": "centimeters", "centimètres": "centimeters", "cm": "centimeters",
	"millimètres": "millimeters", "pouce": "inches", "pouces": "inches", "pied": "feet", "pieds": "feet",
	"kilo": "kilograms", "kilos": "kilograms", "kilogramme": "kilograms", "kilogrammes": "kilograms", "kg": "kilograms",
	"gramme": "grams", "grammes": "grams", "g": "grams", "livre": "pounds", "livres": "pounds", "once": "ounces", "onces": "ounces",
	"litre": "liters", "litres": "liters", "l": "liters", "millilitres": "milliliters", "ml": "milliliters",
	"gallon": "gallons", "gallons": "gallons", "tasse": "cups", "tasses": "cups",
	"degrés celsius": "celsius", "degré celsius": "celsius", "celsius": "celsius",
	"degrés fahrenheit": "fahrenheit", "degré fahrenheit": "fahrenheit", "fahrenheit": "fahrenheit",
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
			phrase(`trois quarts de heure`, "45 minutes"),
			phrase(`(\d+) pour 100`, "$1%"),
			phrase(`ce soir|cette nuit`, "tonight"),
			phraseFn(`(à |pour |vers )(\d+) (?:heures?|h) et quart`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), 15) }),
			phraseFn(`(à |pour |vers )(\d+) (?:heures?|h) et demie?`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), 30) }),
			phraseFn(`(à |pour |vers )?(\d+) (?:heures?|h) moins le quart`, func(g []string) string { return at(g[1]) + clockAt(before(atoi(g[2])), 45) }),
			phraseFn(`(à |pour |vers )?(\d+) (?:heures?|h) moins (\d+)`, func(g []string) string { return at(g[1]) + clockAt(before(atoi(g[2])), 60-atoi(g[3])) }),
			phrase(`(\d+) (heures?|minutes?) et demie?`, "$1.5 $2"),
			phraseFn(`(à )?(\d+) (?:heures?|h) (\d+)`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), atoi(g[3])) }),
			phraseFn(`(à )?(\d+)h(\d+)`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), atoi(g[3])) }),
			phraseFn(`(à )?(\d+):(\d+)`, func(g []string) string { return at(g[1]) + g[2] + ":" + g[3] }),
			phraseFn(`à (\d+) (?:heures?|h)|à (\d+)h`, func(g []string) string { return "at " + g[1] + g[2] }),
			phrase(`à midi`, "at noon"),
			phrase(`à minuit`, "at midnight"),
			phrase(`du matin|le matin`, "am"),
			phrase(`du soir|de le après midi|le après midi|le soir`, "pm"),
			phrase(`le week end|les week ends|le weekend|chaque week end`, "on weekends"),
			phrase(`en semaine|les jours de semaine|du lundi au vendredi`, "on weekdays"),
			phrase(`tous les jours|chaque jour`, "every day"),
			phrase(`tous les (lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)s?|chaque (lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)`, "every $1$2"),
			phrase(`dans (\d+(?:\.\d+)?) (secondes?|minutes?|heures?|jours?)`, "in $1 $2"),
		},
		trim: regexp.MustCompile(`^(?:(?:hey|salut|ok|okay|alors|et|dis moi|dites moi|est ce que tu peux|tu peux|peux tu|pourrais tu|tu pourrais|je voudrais savoir|je veux savoir|sais tu|tu sais) )+|(?: (?:merci|maintenant|pour moi|stp))+$`),
		frames: []rule{
			frame(`quelle est (?:ton|votre|le|la) adresse (?:web|internet)|quelle est (?:ton|votre|le|la) url|(?:quelle est )?(?:le|la) adresse de (?:ta|votre) page web|où est (?:ta|votre) page web|comment (?:ouvrir|trouver) (?:ta|votre) page web`, "what is your web address"),
			frame(`quelle est (?:ton|votre|le|la) adresse ip`, "what is your ip address"),
			frame(`quelle heure est il(?: maintenant)?|quelle heure il est|il est quelle heure|le heure|quelle heure|vous avez le heure|tu as le heure|donne moi le heure`, "what time is it"),
			frame(`quelle est la date(?: today)?|quelle date sommes nous(?: today)?|on est le combien(?: today)?|nous sommes le combien(?: today)?|quelle date on est|la date`, "what is the date"),
			frame(`quel jour (?:sommes nous|on est|est on|est il|est ce)(?: today)?|on est quel jour(?: today)?|quel jour de la semaine sommes nous`, "what day is it"),
			frameFn(`(?:quel temps (?:fait il|fera t il|va t il faire|il fait|il va faire|fait il)|il fait quel temps|la météo|météo|quelle est la météo|quelles sont les prévisions|il fait chaud|il fait froid)((?: \S+)*)`, func(g []string) string { return weather("what is the weather", g[1], "à") }),
			frameFn(`(?:va t il pleuvoir|est ce qu'il va pleuvoir|il va pleuvoir|il pleut)((?: \S+)*)`, func(g []string) string { return weather("will it rain", g[1], "à") }),
			frame(`oui|ouais|oui vas y|vas y|d'accord|bien sûr|confirme`, "yes"),
			frame(`non|non merci|surtout pas`, "no"),
			frame(`stop|arrête|arrete|arrête toi|tais toi|silence|chut|ça suffit|ca suffit|c'est tout|laisse tomber|oublie ça|rien|annule|merci c'est tout|assez`, "stop"),
			frame(`combien de temps (?:reste t il|il reste|reste|me reste t il)(?: sur le (?:minuteur|timer))?|il reste combien de temps|combien de temps encore`, "how much time is left"),
			{whole: frenchItems.read},
			frameFn(`(?:mets|mettre|met|règle|regle|lance|démarre|demarre|programme|crée|fais|configure)(?: moi)?(?: un| le)? (?:minuteur|timer|minuterie|compte à rebours)(?: (?:pour les |pour le |pour la |pour )(\S+))? (?:de|pour|sur|à) (.+)`, timer("de", "pour", "un", "une")),
			frameFn(`(?:un )?(?:minuteur|timer|minuterie) (?:de|pour) (.+)`, func(g []string) string { return "set a timer for " + g[1] }),
			frame(`(?:mets|mettre|met|règle|regle|programme|crée|fais)(?: moi)?(?: une| la| un| le)? (?:alarme|réveil) (?:à |pour |a )?(.+)`, "set an alarm for $1"),
			frame(`(?:une )?(?:alarme|réveil) (?:à|pour) (.+)`, "set an alarm for $1"),
			frame(`réveille (?:moi|nous) (.+)`, "wake me up $1"),
			frameFn(`rappelle (?:moi|nous) (.+)`, func(g []string) string { return reminder(g[1], []string{"de", "que", "qu'", "à"}) }),
			frame(`(?:plus fort|monte le son|monte le volume|augmente le volume|augmente le son|encore plus fort|un peu plus fort|volume plus fort|parle plus fort|monte)`, "louder"),
			frame(`(?:moins fort|baisse le son|baisse le volume|diminue le volume|diminue le son|un peu moins fort|plus bas|parle moins fort|baisse|trop fort)`, "quieter"),
			frame(`(?:mets|met|règle|regle|fixe)? ?(?:le )?volume (?:à |a |sur )?(\d+)(?: pour cent| %)?`, "set the volume to $1"),
			frame(`coupe le son|mets toi en sourdine|sourdine|muet|mode muet|coupe le volume`, "mute"),
			frame(`remets le son|rétablis le son|réactive le son|enlève la sourdine|active le son`, "unmute"),
			frame(`quel est le volume|à combien est le volume|c'est quoi le volume|quel volume`, "what is the volume"),
			frameFn(`(?:combien font|combien fait|combien ça fait|ça fait combien|c'est combien|calcule|combien est|que font|que fait|qu'est ce que|quel est le résultat de|combien) (.+?)(?: font| fait| ça fait)?`, frenchSum),
			frameFn(`(-?\d.*?)`, frenchSum),
			frameFn(`combien (?:de |d')(.+?) (?:dans|font|fait|y a t il dans|en) (-?\d\S*) (.+?)`, func(g []string) string { return convertTo(frenchConvert, g[2], g[3], g[1]) }),
			frameFn(`(?:convertis |convertir |combien font |combien fait |ça fait combien |calcule )?(-?\d\S*) (.+?) (?:en|à) (.+?)`, func(g []string) string { return convertTo(frenchConvert, g[1], g[2], g[3]) }),
			frame(`souviens toi (?:que|qu')(.+)|rappelle toi (?:que|qu')(.+)|retiens (?:que|qu')(.+)|n'oublie pas (?:que|qu')(.+)`, "remember that $1$2$3$4"),
			frame(`que sais tu (?:de|sur) moi|qu'est ce que tu sais (?:de|sur) moi|qu'est ce que je t'ai dit`, "what do you know about me"),
			frame(`que sais tu (?:de|sur|du|des) (.+)|qu'est ce que tu sais (?:de|sur|du|des) (.+)|tu te souviens (?:de|du|des) (.+)`, "what do you remember about $1$2$3"),
			frame(`oublie (?:que|qu')(.+)|oublie ce que je t'ai dit (?:sur|de) (.+)`, "forget that $1$2"),
			frame(`plus|encore plus|un peu plus|encore`, "more"),
			frame(`moins|un peu moins`, "less"),
			frame(`(?:non |en fait |plutôt |finalement |je voulais dire )+(.+?)(?: plutôt| à la place)?`, "actually $1"),
			frame(`(?:mets|fais|change)(?: le| en| ça| ça en)? (?:à |pour )?(\d.*)`, "make it $1"),
		},
	}
}

// frenchSum reads "12 fois 4", "100 divisé par 8", "15 pour cent de 80".
func frenchSum(g []string) string {
	return sum(g[len(g)-1], map[string]string{
		"plus": "plus", "et": "plus", "moins": "minus", "fois": "times", "x": "times", "multiplié par": "times",
		"divisé par": "divided by", "sur": "divided by", "puissance": "to the power of", "à la puissance": "to the power of",
		"pour cent de": "percent of", "% de": "percent of",
	}, map[string]string{"au carré": "squared", "au cube": "cubed"})
}
