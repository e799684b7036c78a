package locale

import (
	"regexp"
	"strings"
)

var germanValues = map[string]int{
	"null": 0, "eins": 1, "zwei": 2, "zwo": 2, "drei": 3, "vier": 4, "fünf": 5, "sechs": 6, "sieben": 7, "acht": 8,
	"neun": 9, "zehn": 10, "elf": 11, "zwölf": 12, "dreizehn": 13, "vierzehn": 14, "fünfzehn": 15, "sechzehn": 16,
	"siebzehn": 17, "achtzehn": 18, "neunzehn": 19, "zwanzig": 20, "dreißig": 30, "dreissig": 30, "vierzig": 40,
	"fünfzig": 50, "sechzig": 60, "siebzig": 70, "achtzig": 80, "neunzig": 90,
}

var germanUnits = map[string]string{
	"sekunde": "second", "sekunden": "seconds", "minute": "minute", "minuten": "minutes",
	"stunde": "hour", "stunden": "hours", "tag": "day", "tage": "days", "tagen": "days",
}

// germanConvert are the converter's units as said in German beyond the
// names it says them by (unitNames), as its codes.
var germanConvert = map[string]string{
	"meile": "mi", "kilometern": "km", "km": "km", "metern": "m", "zentimetern": "cm", "cm": "cm", "mm": "mm",
	"fuss": "ft", "yards": "yd", "kilo": "kg", "kilos": "kg", "kg": "kg", "g": "g", "unze": "oz", "litern": "l", "l": "l",
	"ml": "ml", "tonne": "t", "celsius": "c", "fahrenheit": "f", "grad kelvin": "k",
	"stundenkilometer": "km/h", "stundenkilometern": "km/h", "km h": "km/h", "km / h": "km/h", "kmh": "km/h",
	"meilen die stunde": "mph", "mph": "mph", "meter die sekunde": "m/s",
}

func init() {
	weekdays := map[string]string{"montag": "monday", "dienstag": "tuesday", "mittwoch": "wednesday", "donnerstag": "thursday",
		"freitag": "friday", "samstag": "saturday", "sonnabend": "saturday", "sonntag": "sunday"}
	words := map[string]string{"heute": "today", "morgen": "tomorrow", "täglich": "daily", "werktags": "weekdays",
		"wochentags": "weekdays", "jeden": "every", "jede": "every"}
	for de, en := range weekdays {
		words[de] = en
		words[de+"s"] = en + "s"
	}
	books[German] = &phrasebook{
		numeral:  numeral{values: germanValues, mult: map[string]int{"hundert": 100, "tausend": 1000}, compound: germanCompound, decimal: []string{"komma"}},
		articles: []string{"ein", "eine", "einen", "einer", "einem"},
		units:    germanUnits,
		words:    words,
		and:      "und",
		quantities: []rule{
			phraseFn(`(\S+)timer`, func(g []string) string { return g[1] + " timer" }),
			phrase(`bitte`, ""),
			phrase(`(stell|stelle|mach|mache|sag|sage|setz|setze|erinnere|weck|wecke|schalte|schalt|lösche|lösch|dreh|drehe) mal`, "$1"),
			phrase(`(?:eine )?halbe stunde`, "30 minutes"),
			phrase(`(?:eine )?dreiviertelstunde|(?:eine )?dreiviertel stunde`, "45 minutes"),
			phrase(`(?:eine )?viertelstunde|(?:eine )?viertel stunde`, "15 minutes"),
			phrase(`anderthalb|ein ?einhalb`, "1.5"),
			phrase(`(\d+) einhalb`, "$1.5"), // "zwei einhalb", its number read first
			phraseFn(`(zwei|drei|vier|fünf) ?einhalb`, func(g []string) string {
				return map[string]string{"zwei": "2.5", "drei": "3.5", "vier": "4.5", "fünf": "5.5"}[g[1]]
			}),
			phrase(`heute abend`, "tonight"),
			phraseFn(`(um )?(viertel|\d+) (?:minuten )?(nach|vor) (mitternacht|mittag)`, germanNoon),
			phraseFn(`(um )?(\d+|ein)(?: uhr)? (?:mittags|am mittag)`, func(g []string) string {
				h := 1 // "ein Uhr"
				if g[2] != "ein" {
					h = atoi(g[2])
				}
				return midday(g[0], g[1], h, 0)
			}),
			phraseFn(`(um )?(\d+) (?:minuten )?(nach|vor) halb (\d+)`, germanPast),
			phraseFn(`(um )?(\d+) (?:minuten )?(nach|vor) (\d+)`, germanPast),
			phraseFn(`(um )?halb (\d+)`, func(g []string) string { return at(g[1]) + clockAt(before(atoi(g[2])), 30) }),
			phraseFn(`(um )?viertel nach (\d+)`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), 15) }),
			phraseFn(`(um )?(?:viertel vor|dreiviertel) (\d+)`, func(g []string) string { return at(g[1]) + clockAt(before(atoi(g[2])), 45) }),
			phraseFn(`(um )?(\d+) uhr (\d+)`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), atoi(g[3])) }),
			phraseFn(`(um )?(\d+):(\d+)(?: uhr)?`, func(g []string) string { return at(g[1]) + g[2] + ":" + g[3] }),
			phraseFn(`(um )(\d+)\.(\d{2})(?: uhr)?`, func(g []string) string { return at(g[1]) + g[2] + ":" + g[3] }), // "um 6.30", as whisper writes it
			phraseFn(`(\d+)\.(\d{2}) uhr`, func(g []string) string { return g[1] + ":" + g[2] }),
			phraseFn(`(um )?(\d+) uhr`, func(g []string) string { return at(g[1]) + g[2] }),
			phrase(`um (\d+)`, "at $1"),
			phrase(`um mitternacht`, "at midnight"),
			phraseFn(`(\d+(?::\d{2})?) (?:nachts|in der nacht)`, func(g []string) string { return night(g[1]) }),
			phraseFn(`(?:nachts|in der nacht|heute nacht) (?:at )?(\d+(?::\d{2})?)`, func(g []string) string { return "at " + night(g[1]) }),
			phrase(`heute nacht`, "tonight"),
			phrase(`übermorgen`, "the day after tomorrow"),
			phrase(`(?:um )?mittag|mittags`, "at noon"),
			phrase(`(morgen|heute|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag) (?:früh|morgen|vormittag)`, "$1 morning"), // "morgen früh": a part of a day named
			phrase(`(morgen|heute|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag) nachmittag`, "$1 afternoon"),
			phrase(`(morgen|heute|montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag) abend`, "$1 evening"),
			phrase(`morgens|früh|am morgen|in der früh|vormittags|am vormittag`, "am"),
			phrase(`abends|am abend|nachmittags|am nachmittag|nachts|in der nacht`, "pm"),
			phrase(`am wochenende|an wochenenden|jedes wochenende|fürs wochenende|für das wochenende|übers wochenende|vom wochenende`, "on weekends"),
			phrase(`an werktagen|an wochentagen|unter der woche|montags bis freitags|von montag bis freitag`, "on weekdays"),
			phrase(`jeden tag|alle tage`, "every day"),
			phrase(`(?:in der )?(?:nächsten|nächste|kommenden|kommende) woche (?:am )?(montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)|(?:am )?(montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag) (?:der |in der )?(?:nächsten|nächster|kommenden|kommender) woche`, "$1$2 next week"),
			phrase(`(?:am |den )?(?:nächsten|nächster|nächste|kommenden|kommender|diesen|dieser) (montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)`, "next $1"),
			phrase(`am (montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)`, "on $1"),
			phrase(`in (\d+(?:\.\d+)?) (sekunden|sekunde|minuten|minute|stunden|stunde|tagen|tag)`, "in $1 $2"),
		},
		trim: regexp.MustCompile(`^(?:(?:hey|hallo|ok|okay|also|und|bitte|kannst du|könntest du|würdest du|sag mir|sage mir|weißt du|ich möchte wissen|ich will wissen|jetzt) )+|(?: (?:bitte|danke|mal|jetzt|doch|für mich))+$`),
		// frames read the follow-ups that change the last call: yes and
		// no, more and less, again, "actually ...", "make it ...".
		frames: []rule{
			frame(`ja|jawohl|genau|ja bitte|mach das|mach es|klar|sicher`, "yes"),
			frame(`nein|nee|nein danke|lieber nicht`, "no"),
			frame(`(?:noch )?mehr|etwas mehr|ein bisschen mehr`, "more"),
			frame(`weniger|etwas weniger|ein bisschen weniger`, "less"),
			frame(`nochmal|noch einmal`, "again"),
			frame(`(?:nein |doch |eigentlich |lieber |ach |stattdessen |ich meinte |ich meine )+(.+?)(?: daraus| draus| lieber| stattdessen)?`, "actually $1"),
			frame(`(?:mach|mache|ändere|änder) (?:daraus |es |das |ihn )?(?:auf )?(\d.*?)(?: daraus| draus)?`, "make it $1"),
		},
	}
}

// at is "at " when the time was said with its preposition ("um", "à",
// "a"), "" when it was said bare.
func at(prep string) string {
	if prep != "" {
		return "at "
	}
	return ""
}

// englishUnits are the duration units a phrasebook has already read into
// English, as the converter names them.
var englishUnits = map[string]string{"hours": "hours", "minutes": "minutes", "seconds": "seconds", "days": "days", "hour": "hours", "minute": "minutes"}

// germanNoon reads a time said from midnight or noon: "Viertel nach
// Mitternacht", "Viertel vor Mitternacht", "zehn nach Mittag".
func germanNoon(g []string) string {
	base := 0
	if g[4] == "mittag" {
		base = 12
	}
	m := 15
	if g[2] != "viertel" {
		m = atoi(g[2])
	}
	if g[3] == "vor" {
		m = -m
	}
	return nearNoon(g[0], g[1], base, m)
}

// germanPast reads minutes past or to an hour, or to or past its half:
// "zehn nach sieben", "zwanzig vor neun", "fünf vor halb acht". Minutes
// that are none of a half hour's are left as said.
func germanPast(g []string) string {
	m, h := atoi(g[2]), atoi(g[len(g)-1])
	if m <= 0 || m >= 30 || h > 24 {
		return strings.TrimSpace(g[0])
	}
	if strings.Contains(g[0], "halb") { // from the half
		h, m = before(h), 30+m
		if g[3] == "vor" {
			m = 60 - m
		}
		return at(g[1]) + clockAt(h, m)
	}
	if g[3] == "vor" {
		return at(g[1]) + clockAt(before(h), 60-m)
	}
	return at(g[1]) + clockAt(h, m)
}
