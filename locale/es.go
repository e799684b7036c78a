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

var spanishItems = items{
	timer:    []string{"temporizador", "temporizadores", "timer", "timers", "cronómetro", "contador"},
	alarm:    []string{"alarma", "alarmas", "despertador", "despertadores"},
	reminder: []string{"recordatorio", "recordatorios"},
	cancel:   []string{"cancela", "cancelar", "borra", "borrar", "elimina", "eliminar", "quita", "quitar", "parar", "detén", "deten", "apaga", "apagar", "anula", "anular", "desactiva"},
	ask:      []string{"qué", "que", "cuáles", "cuales", "cuánto", "cuanto", "cuánta", "queda", "quedan", "tengo", "hay", "muestra", "lista", "dime"},
	all:      []string{"todos", "todas"},
	about:    []string{"de", "para", "sobre"},
	skip:     []string{"el", "la", "los", "las", "mi", "mis", "un", "una", "todos", "todas", "ese", "este"},
}

var spanishUnits = map[string]string{
	"segundo": "second", "segundos": "seconds", "minuto": "minute", "minutos": "minutes",
	"hora": "hour", "horas": "hours", "día": "day", "días": "days", "dia": "day", "dias": "days",
}

var spanishConvert = map[string]string{
	"milla": "miles", "millas": "miles", "kilómetro": "kilometers", "kilómetros": "kilometers", "kilometros": "kilometers", "km": "kilometers",
	"metro": "meters", "metros": "meters", "centímetro": "centimeters", "centímetros": "centimeters", "cm": "centimeters",
	"milímetros": "millimeters", "pulgada": "inches", "pulgadas": "inches", "pie": "feet", "pies": "feet",
	"kilo": "kilograms", "kilos": "kilograms", "kilogramo": "kilograms", "kilogramos": "kilograms", "kg": "kilograms",
	"gramo": "grams", "gramos": "grams", "g": "grams", "libra": "pounds", "libras": "pounds", "onza": "ounces", "onzas": "ounces",
	"litro": "liters", "litros": "liters", "l": "liters", "mililitros": "milliliters", "ml": "milliliters",
	"galón": "gallons", "galones": "gallons", "taza": "cups", "tazas": "cups",
	"grados celsius": "celsius", "grado celsius": "celsius", "celsius": "celsius", "centígrados": "celsius", "grados centígrados": "celsius",
	"grados fahrenheit": "fahrenheit", "grado fahrenheit": "fahrenheit", "fahrenheit": "fahrenheit",
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
			phrase(`tres cuartos de hora`, "45 minutes"),
			phrase(`(\d+) por ciento|(\d+) por 100`, "$1$2%"),
			phrase(`esta noche`, "tonight"),
			phrase(`(?:a )?mediodía|(?:a )?mediodia`, "at noon"),
			phrase(`(?:a )?medianoche`, "at midnight"),
			phraseFn(`(a )?(?:las |la )(\d+) y cuarto`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), 15) }),
			phraseFn(`(a )?(?:las |la )(\d+) y media`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), 30) }),
			phraseFn(`(a )?(?:las |la )(\d+) menos cuarto`, func(g []string) string { return at(g[1]) + clockAt(before(atoi(g[2])), 45) }),
			phraseFn(`(a )?(?:las |la )(\d+) menos (\d+)`, func(g []string) string { return at(g[1]) + clockAt(before(atoi(g[2])), 60-atoi(g[3])) }),
			phraseFn(`(a )?(?:las |la )(\d+) y (\d+)`, func(g []string) string { return at(g[1]) + clockAt(atoi(g[2]), atoi(g[3])) }),
			phraseFn(`(a )?(?:las |la )(\d+):(\d+)`, func(g []string) string { return at(g[1]) + g[2] + ":" + g[3] }),
			phraseFn(`(a )?(?:las |la )(\d+)(?: en punto)?`, func(g []string) string { return at(g[1]) + g[2] }),
			phrase(`de la mañana|por la mañana|de la madrugada`, "am"),
			phrase(`de la tarde|por la tarde|de la noche|por la noche`, "pm"),
			phrase(`pasado mañana`, "the day after tomorrow"),
			phrase(`mañana`, "tomorrow"),
			phrase(`los fines de semana|el fin de semana|fines de semana`, "on weekends"),
			phrase(`entre semana|los días laborables|de lunes a viernes|días de semana`, "on weekdays"),
			phrase(`todos los días|cada día|diario|diariamente`, "every day"),
			phrase(`(?:todos los|cada) (lunes|martes|miércoles|jueves|viernes|sábados?|domingos?)`, "every $1"),
			phrase(`el (lunes|martes|miércoles|jueves|viernes|sábado|domingo)`, "on $1"),
			phrase(`(?:en|dentro de) (\d+(?:\.\d+)?) (segundos?|minutos?|horas?|días?)`, "in $1 $2"),
			phrase(`(\d+) (horas?|minutos?) y media`, "$1.5 $2"),
		},
		trim: regexp.MustCompile(`^(?:(?:oye|hola|ok|okay|vale|bueno|y|puedes|podrías|podrias|me puedes|me podrías|dime|quiero saber|sabes) )+|(?: (?:gracias|ahora|para mí|ya))+$`),
		frames: []rule{
			frame(`cuál es (?:tu|su|la) (?:dirección web|url|página web)|cuál es la dirección de (?:tu|su) página web|dónde está (?:tu|su) página web|cómo (?:abro|encuentro) (?:tu|su) página web`, "what is your web address"),
			frame(`cuál es (?:tu|su|la) dirección ip`, "what is your ip address"),
			frame(`qué hora es(?: ahora)?|que hora es(?: ahora)?|qué horas son|que horas son|tienes hora|me dices la hora|la hora`, "what time is it"),
			frame(`(?:qué|que|cuál|cual) es la fecha(?: de today)?|(?:qué|que) fecha es(?: today)?|a (?:qué|que) fecha estamos(?: today)?|(?:qué|que) día del mes es(?: today)?|la fecha`, "what is the date"),
			frame(`(?:qué|que) día es(?: today)?|(?:qué|que) día de la semana es(?: today)?|en (?:qué|que) día estamos`, "what day is it"),
			frameFn(`(?:(?:qué|que) tiempo (?:hace|hará|hara|va a hacer)|cómo está el tiempo|como esta el tiempo|el tiempo|el pronóstico|el clima|(?:qué|que) clima hace)((?: \S+)*)`, func(g []string) string { return weather("what is the weather", g[1], "en") }),
			frameFn(`(?:va a llover|lloverá|llovera|llueve)((?: \S+)*)`, func(g []string) string { return weather("will it rain", g[1], "en") }),
			frame(`sí|si|sí por favor|claro|vale|adelante|confirmo|hazlo`, "yes"),
			frame(`no|no gracias|mejor no`, "no"),
			frame(`para|detente|basta|silencio|cállate|callate|cancela|déjalo|dejalo|olvídalo|olvidalo|eso es todo|gracias eso es todo|nada|ya está|ya esta|stop|alto|deja de hablar`, "stop"),
			frame(`(?:cuánto|cuanto) (?:tiempo )?(?:le )?(?:queda|falta)(?: al temporizador| en el temporizador)?|(?:cuánto|cuanto) tiempo queda`, "how much time is left"),
			{whole: spanishItems.read},
			frameFn(`(?:pon|ponme|poner|programa|programar|configura|crea|inicia|empieza|activa|fija)(?: me)?(?: un| el)? (?:temporizador|timer|cronómetro|contador)(?: (?:para (?:el |la |los |las )?)(\S+))? (?:de|por|para|a|en) (.+)`, timer()),
			frameFn(`(?:un )?(?:temporizador|timer) (?:de|para|por) (.+)`, func(g []string) string { return "set a timer for " + g[1] }),
			frame(`(?:pon|ponme|poner|programa|configura|crea|activa|fija)(?: me)?(?: una| la| el| un)? (?:alarma|despertador) (?:para |a )?(.+)`, "set an alarm for $1"),
			frame(`(?:una )?(?:alarma|despertador) (?:para|a) (.+)`, "set an alarm for $1"),
			frame(`despiértame (.+)|despiertame (.+)`, "wake me up $1$2"),
			frameFn(`recuérdame (.+)|recuerdame (.+)`, func(g []string) string { return reminder(g[1]+g[2], []string{"que", "de", "a", "para"}) }),
			frame(`(?:más alto|mas alto|sube el volumen|sube el sonido|sube|súbele|subele|un poco más alto|más fuerte|mas fuerte|aumenta el volumen|habla más alto)`, "louder"),
			frame(`(?:más bajo|mas bajo|baja el volumen|baja el sonido|baja|bájale|bajale|un poco más bajo|más suave|disminuye el volumen|habla más bajo|demasiado alto)`, "quieter"),
			frame(`(?:pon|ponme|sube|baja|fija|ajusta|cambia)? ?(?:el )?volumen (?:a |al |en )?(\d+)(?: %)?`, "set the volume to $1"),
			frame(`silencia|silénciate|silenciate|quita el sonido|modo silencio|apaga el sonido|mute`, "mute"),
			frame(`activa el sonido|quita el silencio|vuelve a poner el sonido|pon el sonido|enciende el sonido`, "unmute"),
			frame(`(?:cuál|cual|qué|que) es el volumen|(?:qué|que) volumen tienes|a (?:qué|que) volumen estás|(?:qué|que) tan alto estás`, "what is the volume"),
			frameFn(`(?:cuánto es|cuanto es|cuánto son|cuanto son|cuánto da|cuanto da|calcula|cuánto hace|cuanto hace|cuál es el resultado de|cuanto|cuánto) (.+?)`, spanishSum),
			frameFn(`(-?\d.*?)`, spanishSum),
			frameFn(`(?:cuántos|cuantos|cuántas|cuantas) (.+?) (?:hay en|son|tiene|equivalen a|en) (-?\d\S*) (.+?)`, func(g []string) string { return convertTo(spanishConvert, g[2], g[3], g[1]) }),
			frameFn(`(?:convierte |convertir |pasa |cuánto es |cuanto es |cuánto son |cuanto son )?(-?\d\S*) (.+?) (?:a|en) (.+?)`, func(g []string) string { return convertTo(spanishConvert, g[1], g[2], g[3]) }),
			frame(`recuerda que (.+)|acuérdate de que (.+)|acuerdate de que (.+)|no olvides que (.+)|apunta que (.+)`, "remember that $1$2$3$4$5"),
			frame(`(?:qué|que) sabes de mí|(?:qué|que) sabes de mi|(?:qué|que) te he dicho`, "what do you know about me"),
			frame(`(?:qué|que) sabes (?:de|sobre|del) (.+)|te acuerdas de (.+)|recuerdas (.+)`, "what do you remember about $1$2$3"),
			frame(`olvida que (.+)|olvida lo que te dije (?:de|sobre) (.+)`, "forget that $1$2"),
			frame(`más|mas|un poco más|aún más`, "more"),
			frame(`menos|un poco menos`, "less"),
			frame(`otra vez|de nuevo`, "again"),
			frame(`(?:no |mejor |en realidad |perdón |quise decir )+(.+?)(?: mejor| en su lugar)?`, "actually $1"),
			frame(`(?:ponlo|hazlo|cámbialo|cambialo|que sean|que sea)(?: a| en| de)? (\d.*)`, "make it $1"),
		},
	}
}

// spanishSum reads "doce por cuatro", "cien entre ocho", "15 % de 80".
func spanishSum(g []string) string {
	return sum(g[len(g)-1], map[string]string{
		"más": "plus", "mas": "plus", "y": "plus", "menos": "minus", "por": "times", "x": "times", "multiplicado por": "times",
		"entre": "divided by", "dividido entre": "divided by", "dividido por": "divided by", "elevado a": "to the power of",
		"% de": "percent of", "% del": "percent of",
	}, map[string]string{"al cuadrado": "squared", "al cubo": "cubed"})
}
