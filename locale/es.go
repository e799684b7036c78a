package locale

import "regexp"

var spanishValues = map[string]int{
	"cero": 0, "uno": 1, "un": 1, "una": 1, "dos": 2, "tres": 3, "cuatro": 4, "cinco": 5, "seis": 6, "siete": 7, "ocho": 8,
	"nueve": 9, "diez": 10, "once": 11, "doce": 12, "trece": 13, "catorce": 14, "quince": 15, "dieciséis": 16, "dieciseis": 16,
	"diecisiete": 17, "dieciocho": 18, "diecinueve": 19, "veinte": 20, "veintiuno": 21, "veintiún": 21, "veintiuna": 21,
	"veintidós": 22, "veintidos": 22, "veintitrés": 23, "veintitres": 23, "veinticuatro": 24, "veinticinco": 25,
	"veintiséis": 26, "veintiseis": 26, "veintisiete": 27, "veintiocho": 28, "veintinueve": 29, "treinta": 30,
	"cuarenta": 40, "cincuenta": 50, "sesenta": 60, "setenta": 70, "ochenta": 80, "noventa": 90,
	"cien": 100, "ciento": 100, "doscientos": 200, "doscientas": 200, "trescientos": 300, "cuatrocientos": 400,
	"quinientos": 500, "seiscientos": 600, "setecientos": 700, "ochocientos": 800, "novecientos": 900,
}

var spanishUnits = map[string]string{
	"segundo": "second", "segundos": "seconds", "minuto": "minute", "minutos": "minutes",
	"hora": "hour", "horas": "hours", "día": "day", "días": "days", "dia": "day", "dias": "days",
}

// spanishConvert are the converter's units as said in Spanish beyond the
// names it says them by (unitNames), as its codes.
var spanishConvert = map[string]string{
	"kilometros": "km", "km": "km", "cm": "cm", "mm": "mm", "milimetros": "mm", "centimetros": "cm",
	"kilo": "kg", "kilos": "kg", "kg": "kg", "g": "g", "l": "l", "ml": "ml", "galon": "gal",
	"celsius": "c", "centígrados": "c", "grados centígrados": "c", "fahrenheit": "f",
	"km h": "km/h", "km / h": "km/h", "kilómetros hora": "km/h",
}

func init() {
	words := map[string]string{"hoy": "today", "lunes": "monday", "martes": "tuesday", "miércoles": "wednesday",
		"miercoles": "wednesday", "jueves": "thursday", "viernes": "friday", "sábado": "saturday", "sabado": "saturday", "domingo": "sunday"}
	books[Spanish] = &phrasebook{
		numeral: numeral{values: spanishValues, mult: map[string]int{"mil": 1000},
			joiners: []string{"y"}, decimal: []string{"coma", "punto"}},
		articles: []string{"un", "una"},
		units:    spanishUnits,
		words:    words,
		and:      "y",
		quantities: []rule{
			phrase(`por favor|porfa`, ""),
			phrase(`(?:una )?media hora`, "30 minutes"),
			phrase(`(?:un )?cuarto de hora`, "15 minutes"),
			phrase(`(?:tres|3) cuartos de hora`, "45 minutes"),
			phrase(`(\d+) por ciento|(\d+) por 100`, "$1$2%"),
			phrase(`esta noche`, "tonight"),
			phraseFn(`(a )?(?:las |la )?(\d+|una)(?: y (cuarto|media|\d+))? del (?:mediodía|mediodia)`, spanishMidday),
			phraseFn(`(a |al )?(?:la |el )?(medianoche|mediodía|mediodia) (y cuarto|y media|menos cuarto|y (\d+)|menos (\d+))`, spanishNoon),
			phrase(`(?:a |al )?(?:el )?(?:mediodía|mediodia)`, "at noon"),
			phrase(`(?:a )?(?:la )?medianoche`, "at midnight"),
			phrase(`la una`, "la 1"), // one o'clock: "una" is an article only before a unit
			phraseFn(`(a )?(?:las |la )(\d+) y cuarto`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), 15) }),
			phraseFn(`(a )?(?:las |la )(\d+) y media`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), 30) }),
			phraseFn(`(a )?(?:las |la )(\d+) menos cuarto`, func(g []string) string { return at(g[1]) + clockAt(before(atoi(g[2])), 45) }),
			phraseFn(`(a )?(?:las |la )(\d+) menos (\d+)`, func(g []string) string { return at(g[1]) + clockAt(before(atoi(g[2])), 60-atoi(g[3])) }),
			phraseFn(`(a )?(?:las |la )(\d+) y (\d+)`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), atoi(g[3])) }),
			phraseFn(`(a )?(?:las |la )(\d+):(\d+)`, func(g []string) string { return at(g[1]) + g[2] + ":" + g[3] }),
			phraseFn(`(a )?(?:las |la )(\d+)\.(\d{2})`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), atoi(g[3])) }), // "a las 6.30", as whisper writes it
			phraseFn(`(a )?(?:las |la )(\d+)(?: en punto)?`, func(g []string) string { return at(g[1]) + g[2] }),
			phraseFn(`(\d+(?::\d{2})?) (?:de la noche|por la noche)`, func(g []string) string { return night(g[1]) }),
			phrase(`(mañana|lunes|martes|miércoles|jueves|viernes|sábado|domingo) por la mañana`, "$1 morning"), // "mañana por la mañana": a part of a day named
			phrase(`(mañana|lunes|martes|miércoles|jueves|viernes|sábado|domingo) por la tarde`, "$1 afternoon"),
			phrase(`(mañana|lunes|martes|miércoles|jueves|viernes|sábado|domingo) por la noche`, "$1 evening"),
			phrase(`de la mañana|por la mañana|de la madrugada`, "am"),
			phrase(`de la tarde|por la tarde|de la noche|por la noche`, "pm"),
			phrase(`pasado mañana`, "the day after tomorrow"),
			phrase(`mañana`, "tomorrow"),
			phrase(`(?:de |del |de los )?(?:los fines de semana|el fin de semana|fines de semana|fin de semana)`, "on weekends"), // "la alarma del fin de semana"
			phrase(`(?:de )?(?:entre semana|los días laborables|días de semana)|de lunes a viernes`, "on weekdays"),
			phrase(`todos los días|cada día|diario|diariamente`, "every day"),
			phrase(`(?:todos los|cada) (lunes|martes|miércoles|jueves|viernes|sábados?|domingos?)`, "every $1"),
			phrase(`(?:el )?(lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo) de la (?:semana que viene|próxima semana|proxima semana|semana próxima|semana proxima)|(?:la )?(?:semana que viene|próxima semana|proxima semana) el (lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo)`, "$1$2 next week"),
			phrase(`(?:el )?(?:próximo|proximo|este) (lunes|martes|miércoles|jueves|viernes|sábado|domingo)`, "next $1"),
			phrase(`(?:el )?(lunes|martes|miércoles|jueves|viernes|sábado|domingo) (?:que viene|próximo|proximo)`, "next $1"),
			phrase(`el (lunes|martes|miércoles|jueves|viernes|sábado|domingo)`, "on $1"),
			phrase(`(?:del|de los) (lunes|martes|miércoles|jueves|viernes|sábado|domingo)s?`, "on $1"), // "la alarma de los lunes"
			phrase(`(?:en|dentro de) (\d+(?:\.\d+)?) (segundos?|minutos?|horas?|días?)`, "in $1 $2"),
			phrase(`(\d+) (horas?|minutos?) y medi[ao]`, "$1.5 $2"), // "una hora y media", "dos minutos y medio"
			phrase(`(hora|minuto) y medi[ao]`, "1.5 $1"),            // "pon un temporizador de minuto y medio"
		},
		trim: regexp.MustCompile(`^(?:(?:oye|hola|ok|okay|vale|bueno|y|puedes|podrías|podrias|me puedes|me podrías|dime|quiero saber|sabes) )+|(?: (?:gracias|ahora|para mí|ya))+$`),
		// frames read the follow-ups that change the last call: yes and
		// no, more and less, again, "actually ...", "make it ...".
		frames: []rule{
			frame(`sí|si|sí por favor|claro|vale|adelante|confirmo|hazlo`, "yes"),
			frame(`no|no gracias|mejor no`, "no"),
			frame(`más|mas|un poco más|aún más`, "more"),
			frame(`menos|un poco menos`, "less"),
			frame(`otra vez|de nuevo`, "again"),
			frame(`(?:no |mejor |en realidad |perdón |quise decir )+(.+?)(?: mejor| en su lugar)?`, "actually $1"),
			frame(`(?:ponlo|hazlo|cámbialo|cambialo|que sean|que sea)(?: a| en| de)? (\d.*)`, "make it $1"),
		},
	}
}

// spanishNoon reads a time said from noon or midnight: "mediodía y
// cuarto", "medianoche y media", "medianoche menos cuarto", "mediodía
// menos 5", "medianoche y 10". Minutes that are none of an hour's are left
// as said.
func spanishNoon(g []string) string {
	base := 0
	if g[2] != "medianoche" {
		base = 12
	}
	var m int
	switch {
	case g[3] == "y cuarto":
		m = 15
	case g[3] == "y media":
		m = 30
	case g[3] == "menos cuarto":
		m = -15
	case g[5] != "":
		m = -atoi(g[5])
	default:
		m = atoi(g[4])
	}
	return nearNoon(g[0], g[1], base, m)
}

// spanishMidday reads an hour said "del mediodía": "las doce del
// mediodía", "las doce y media del mediodía", "la una del mediodía".
func spanishMidday(g []string) string {
	m := 0
	switch g[3] {
	case "":
	case "cuarto":
		m = 15
	case "media":
		m = 30
	default:
		m = atoi(g[3])
	}
	h := 1 // "la una"
	if g[2] != "una" {
		h = atoi(g[2])
	}
	if m >= 60 {
		return g[0]
	}
	return midday(g[0], g[1], h, m)
}
