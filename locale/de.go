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

var germanItems = items{
	timer:    []string{"timer", "timers", "kurzzeitwecker"},
	alarm:    []string{"wecker", "alarm", "alarme", "weckzeit", "weckzeiten"},
	reminder: []string{"erinnerung", "erinnerungen"},
	cancel: []string{"stopp", "stoppe", "stoppen", "stop", "beende", "beenden", "lösche", "lösch", "löschen", "entferne",
		"entfernen", "annulliere", "annullieren", "abbrechen", "brich", "breche", "ab", "aus", "ausschalten", "storniere", "streiche"},
	ask:   []string{"welche", "welcher", "wann", "zeig", "zeige", "liste", "habe", "hab", "gibt", "läuft", "laufen", "wie", "noch", "übrig"},
	all:   []string{"alle", "sämtliche"},
	about: []string{"an", "für", "zu", "wegen"},
	skip:  []string{"den", "die", "das", "der", "alle", "meinen", "meine", "mein", "einen", "ein", "lösche", "lösch", "stoppe", "stopp", "beende", "entferne"},
}

var germanUnits = map[string]string{
	"sekunde": "second", "sekunden": "seconds", "minute": "minute", "minuten": "minutes",
	"stunde": "hour", "stunden": "hours", "tag": "day", "tage": "days", "tagen": "days",
}

// germanConvert names the units of the converter.
var germanConvert = map[string]string{
	"meile": "miles", "meilen": "miles", "kilometer": "kilometers", "kilometern": "kilometers", "km": "kilometers",
	"meter": "meters", "metern": "meters", "zentimeter": "centimeters", "zentimetern": "centimeters", "cm": "centimeters",
	"millimeter": "millimeters", "zoll": "inches", "fuß": "feet", "fuss": "feet", "yard": "yards", "yards": "yards",
	"kilo": "kilograms", "kilos": "kilograms", "kilogramm": "kilograms", "kg": "kilograms", "gramm": "grams", "g": "grams",
	"pfund": "pounds", "unze": "ounces", "unzen": "ounces", "liter": "liters", "litern": "liters", "l": "liters",
	"milliliter": "milliliters", "ml": "milliliters", "gallone": "gallons", "gallonen": "gallons", "tasse": "cups", "tassen": "cups",
	"grad celsius": "celsius", "celsius": "celsius", "grad fahrenheit": "fahrenheit", "fahrenheit": "fahrenheit",
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
			phrase(`anderthalb|eineinhalb`, "1.5"),
			phraseFn(`(zwei|drei|vier|fünf)einhalb`, func(g []string) string {
				return map[string]string{"zwei": "2.5", "drei": "3.5", "vier": "4.5", "fünf": "5.5"}[g[1]]
			}),
			phrase(`heute abend|heute nacht`, "tonight"),
			phraseFn(`(um )?halb (\d+)`, func(g []string) string { return at(g[1]) + clockAt(before(atoi(g[2])), 30) }),
			phraseFn(`(um )?viertel nach (\d+)`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), 15) }),
			phraseFn(`(um )?(?:viertel vor|dreiviertel) (\d+)`, func(g []string) string { return at(g[1]) + clockAt(before(atoi(g[2])), 45) }),
			phraseFn(`(um )?(\d+) uhr (\d+)`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), atoi(g[3])) }),
			phraseFn(`(um )?(\d+):(\d+)(?: uhr)?`, func(g []string) string { return at(g[1]) + g[2] + ":" + g[3] }),
			phraseFn(`(um )?(\d+) uhr`, func(g []string) string { return at(g[1]) + g[2] }),
			phrase(`um (\d+)`, "at $1"),
			phrase(`um mitternacht`, "at midnight"),
			phrase(`(?:um )?mittag|mittags`, "at noon"),
			phrase(`morgens|früh|am morgen|in der früh|vormittags|am vormittag`, "am"),
			phrase(`abends|am abend|nachmittags|am nachmittag|nachts|in der nacht`, "pm"),
			phrase(`am wochenende|an wochenenden|jedes wochenende`, "on weekends"),
			phrase(`an werktagen|an wochentagen|unter der woche|montags bis freitags|von montag bis freitag`, "on weekdays"),
			phrase(`jeden tag|alle tage`, "every day"),
			phrase(`am (montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonntag)`, "on $1"),
			phrase(`in (\d+(?:\.\d+)?) (sekunden|sekunde|minuten|minute|stunden|stunde|tagen|tag)`, "in $1 $2"),
		},
		trim: regexp.MustCompile(`^(?:(?:hey|hallo|ok|okay|also|und|bitte|kannst du|könntest du|würdest du|sag mir|sage mir|weißt du|ich möchte wissen|ich will wissen|jetzt) )+|(?: (?:bitte|danke|mal|jetzt|doch|für mich))+$`),
		frames: []rule{
			frame(`(?:wie|was) ist (?:deine|ihre|die) (?:web ?adresse|internetadresse|url)|wie (?:finde|erreiche|öffne) ich (?:deine|ihre|die) (?:web ?seite|webseite)|wo ist (?:deine|ihre|die) webseite`, "what is your web address"),
			frame(`(?:wie|was) ist (?:deine|ihre|die) ip(?: adresse)?`, "what is your ip address"),
			frame(`wie spät ist es(?: jetzt| gerade)?|wie spät(?: haben wir)?|wie viel uhr ist es(?: jetzt)?|wieviel uhr ist es(?: jetzt)?|wie viel uhr|wieviel uhr|was ist die uhrzeit|wie ist die uhrzeit|die uhrzeit|uhrzeit`, "what time is it"),
			frame(`welches datum (?:ist|haben wir)(?: today)?|der wievielte ist today|den wievielten haben wir(?: today)?|was ist today für ein datum|das datum|welches datum ist es`, "what is the date"),
			frame(`welcher (?:wochen)?tag ist (?:today|es)|was ist today für ein tag|welchen tag haben wir(?: today)?|was für ein tag ist today`, "what day is it"),
			frameFn(`(?:wie (?:ist|wird) das wetter|wie ist das wetter|das wetter|wetter|wettervorhersage|was sagt der wetterbericht|wie warm ist es|wie kalt ist es)((?: \S+)*)`, func(g []string) string { return weather("what is the weather", g[1], "in") }),
			frameFn(`(?:regnet es|wird es regnen|gibt es regen)((?: \S+)*)`, func(g []string) string { return weather("will it rain", g[1], "in") }),
			frame(`ja|jawohl|genau|ja bitte|mach das|mach es|klar|sicher`, "yes"),
			frame(`nein|nee|nein danke|lieber nicht`, "no"),
			frame(`(?:stopp|stop|halt|hör auf|höre auf|sei still|ruhe|schluss|genug|abbrechen|vergiss es|egal|das wars|das war's|das ist alles|danke das wars|danke das ist alles|nichts|schon gut|aufhören|psst|still)`, "stop"),
			frame(`wie viel zeit (?:ist|bleibt|habe ich|hab ich)(?: noch)?(?: übrig)?|wie lange noch|wie viel zeit noch`, "how much time is left"),
			{whole: germanItems.read},
			frameFn(`(?:stell|stelle|setz|setze|starte|start|mach|mache|erstelle|leg|lege)(?: mir| uns)?(?: einen| ein| nen| den)?(?: neuen)?(?: (\S+))? timer (?:auf|für|von|über|mit|in) (.+?)(?: ein| an| los)?`, timer("neuen", "weiteren", "kurzen", "einen", "ein", "den", "mir")),
			frameFn(`(?:einen |ein |den )?(?:(\S+) )?timer (?:auf|für|von|über) (.+)`, timer("neuen", "weiteren", "kurzen", "einen", "ein", "den", "mir")),
			frame(`(?:(?:einen|ein|stell|stelle|starte) )*(\d\S* (?:seconds|minutes|hours|second|minute|hour)) timer(?: stellen| starten)?`, "set a timer for $1"),
			frame(`(?:stell|stelle|setz|setze|mach|mache|erstelle|leg|lege)(?: mir| uns)?(?: einen| den| nen| ein)? wecker (?:auf |für |um )?(.+?)(?: ein| an)?`, "set an alarm for $1"),
			frame(`wecker (?:auf|für|um) (.+)`, "set an alarm for $1"),
			frame(`(?:weck|wecke) (?:mich|uns) (.+?)(?: auf)?`, "wake me up $1"),
			frameFn(`erinnere mich (.+)`, func(g []string) string { return reminder(g[1], []string{"an", "daran", "dass", "zu"}) }),
			frame(`(?:noch )?lauter|(?:ein )?(?:bisschen|wenig|etwas) lauter|(?:mach|mache|dreh|drehe|stell|stelle)(?: es| dich| die musik| den ton| die lautstärke)?(?: ein| etwas| bisschen)* (?:lauter|auf|hoch|rauf)|lautstärke (?:hoch|rauf|erhöhen|lauter)|(?:erhöhe|erhöh) die lautstärke`, "louder"),
			frame(`(?:noch )?leiser|(?:ein )?(?:bisschen|wenig|etwas) leiser|(?:mach|mache|dreh|drehe|stell|stelle)(?: es| dich| die musik| den ton| die lautstärke)?(?: ein| etwas| bisschen)* (?:leiser|runter|herunter)|lautstärke (?:runter|verringern|senken|leiser)|(?:verringere|senke|reduziere) die lautstärke|zu laut`, "quieter"),
			frame(`(?:(?:stell|stelle|setz|setze|mach|mache|dreh|drehe) )?(?:die )?lautstärke (?:auf )?(\d+)(?: prozent| %)?(?: stellen| setzen)?`, "set the volume to $1"),
			frame(`stumm|ton aus|stummschalten|(?:schalte|schalt|mach|mache) (?:dich |den ton )?stumm|(?:schalte|schalt|mach|mache) den ton aus`, "mute"),
			frame(`ton an|ton wieder an|stummschaltung aufheben|(?:schalte|schalt|mach|mache) den ton (?:wieder )?an`, "unmute"),
			frame(`wie laut bist du|wie ist die lautstärke|welche lautstärke(?: hast du| ist eingestellt)?|wie hoch ist die lautstärke|wie laut ist es`, "what is the volume"),
			frameFn(`(?:was ist|was sind|wie viel ist|wieviel ist|wie viel sind|wieviel sind|was ergibt|was ergeben|was gibt|was macht|was machen|rechne|berechne) (.+?)(?: ist| sind| ergibt| ergeben)?`, germanSum),
			frameFn(`(-?\d.*?)`, germanSum),
			frameFn(`(?:wie viele?|wieviele?) (.+?) (?:sind|ist|hat|haben|ergeben|entsprechen|sind in) (-?\d\S*) (.+?)`, func(g []string) string { return convertTo(germanConvert, g[2], g[3], g[1]) }),
			frameFn(`(?:wie viel sind |wieviel sind |wie viel ist |was sind |was ist |rechne |konvertiere |wandle |umrechnen )?(-?\d\S*) (.+?) (?:in|zu|nach|auf) (.+?)(?: um| umgerechnet)?`, func(g []string) string { return convertTo(germanConvert, g[1], g[2], g[3]) }),
			frame(`(?:merk|merke) dir(?: dass)? (.+)|vergiss nicht(?: dass)? (.+)`, "remember that $1$2"),
			frame(`was weißt du über mich|was habe ich dir erzählt|was hast du dir gemerkt|woran erinnerst du dich`, "what do you know about me"),
			frame(`was weißt du (?:über|von) (.+)|erinnerst du dich an (.+)`, "what do you remember about $1$2"),
			frame(`vergiss(?: dass| was ich (?:über|zu) (?:\S+ )?gesagt habe)? (.+)`, "forget that $1"),
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

// germanSum reads "12 mal 4", "100 geteilt durch 8", "15 prozent von 80".
func germanSum(g []string) string {
	return sum(g[len(g)-1], map[string]string{
		"plus": "plus", "und": "plus", "minus": "minus", "weniger": "minus", "mal": "times", "x": "times",
		"geteilt durch": "divided by", "dividiert durch": "divided by", "durch": "divided by", "hoch": "to the power of",
		"prozent von": "percent of", "% von": "percent of", "von": "percent of",
	}, map[string]string{"zum quadrat": "squared", "quadrat": "squared", "hoch 3": "cubed"})
}

var sumRE = regexp.MustCompile(`^(-?\d+(?:\.\d+)?)(%?) (.+?) (-?\d+(?:\.\d+)?)$`)
var powerRE = regexp.MustCompile(`^(-?\d+(?:\.\d+)?) (.+)$`)

// sum writes an arithmetic question in English: "what is 12 times 4".
// ops are the language's operators, powers its "squared".
func sum(s string, ops, powers map[string]string) string {
	if m := sumRE.FindStringSubmatch(s); m != nil {
		op := strings.TrimSpace(m[2] + " " + m[3])
		if m[2] != "" {
			op = m[2] + " " + m[3]
		}
		if en, ok := ops[op]; ok {
			return "what is " + m[1] + " " + en + " " + m[4]
		}
		if en, ok := ops[m[3]]; ok && m[2] == "%" {
			return "what is " + m[1] + " " + en + " " + m[4]
		}
	}
	if m := powerRE.FindStringSubmatch(s); m != nil {
		if en, ok := powers[m[2]]; ok {
			return "what is " + m[1] + " " + en
		}
	}
	return ""
}

// englishUnits are the duration units a phrasebook has already read into
// English, as the converter names them.
var englishUnits = map[string]string{"hours": "hours", "minutes": "minutes", "seconds": "seconds", "days": "days", "hour": "hours", "minute": "minutes"}

// convertTo writes a conversion in English when both units are known:
// the language's own names, or the duration units it has already read
// into English.
func convertTo(units map[string]string, value, from, to string) string {
	unit := func(w string) (string, bool) {
		w = strings.TrimSpace(w)
		if en, ok := units[w]; ok {
			return en, true
		}
		en, ok := englishUnits[w]
		return en, ok
	}
	f, ok1 := unit(from)
	t, ok2 := unit(to)
	if !ok1 || !ok2 {
		return ""
	}
	return "convert " + value + " " + f + " to " + t
}
