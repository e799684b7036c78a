package locale

import (
	"strings"
	"testing"
	"time"
)

func TestOf(t *testing.T) {
	for code, want := range map[string]Lang{"de": German, "de-CH": German, "fr_FR": French, "ES": Spanish, "en-GB": English} {
		if l, ok := Of(code); !ok || l != want {
			t.Errorf("Of(%q) = %s, %v", code, l, ok)
		}
	}
	for _, code := range []string{"", "ja", "auto", "xx-YY"} {
		if l, ok := Of(code); ok || l != English {
			t.Errorf("Of(%q) = %s, %v; want English, unknown", code, l, ok)
		}
	}
}

func TestDetect(t *testing.T) {
	for text, want := range map[string]Lang{
		"set a timer for 5 minutes":        English,
		"what's the weather like in Paris": English,
		"stop":                             English,
		"stell einen Timer für 5 Minuten":  German,
		"wie spät ist es":                  German,
		"lauter":                           German,
		"quelle heure est-il":              French,
		"rappelle-moi d'appeler maman":     French,
		"cuánto es doce por cuatro":        Spanish,
		"¿qué hora es?":                    Spanish,
		"pon un temporizador de 5 minutos": Spanish,
		"thank you":                        English,
		"danke":                            German,
		"danke schön":                      German,
		"was kannst du":                    German,
		"merci":                            French,
		"merci beaucoup":                   French,
		"gracias":                          Spanish,
		"muchas gracias":                   Spanish,
		"qué puedes hacer":                 Spanish,
		"nein, 10":                         German,
		"eigentlich zwanzig":               German,
		"non, 10":                          French,
		// "plus" is German as much as English or French: "und" tells.
		"und plus 5": German,
		"et plus 5":  French,
		"and plus 5": English,
		// "in" is German as much as English: the other words tell, and
		// the weather's and the house's own words count.
		"und in Berlin?":               German,
		"Wetter in Berlin":             German,
		"regnet es in Berlin":          German,
		"das Wetter in Paris":          German,
		"wird es warm":                 German,
		"Licht an":                     German,
		"va a llover":                  Spanish,
		"tiempo en Sevilla":            Spanish,
		"enciende la luz de la cocina": Spanish,
		"apaga la luz":                 Spanish,
		"la météo":                     French,
		"weather in Berlin":            English,
		"turn on the kitchen light":    English,
		"and in Berlin?":               English,
	} {
		if l, ok := Detect(text); !ok || l != want {
			t.Errorf("Detect(%q) = %s, %v; want %s", text, l, ok, want)
		}
	}
	for _, text := range []string{"", "ok", "Paris", "42", "in Berlin", "in New York", "Frankfurt am Main"} {
		if l, ok := Detect(text); ok {
			t.Errorf("Detect(%q) = %s; want unsure", text, l)
		}
	}
}

func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		l          Lang
		said, want string
	}{
		{German, "dreiundzwanzig", "23"}, {German, "zweihundertfünfzig", "250"}, {German, "eintausendzwei", "1002"},
		{German, "zwei komma fünf", "2.5"}, {German, "1.500 meter", "1500 meter"}, {German, "2,5", "2.5"},
		{German, "zwölf mal vier", "12 mal 4"}, {German, "eine frage", "eine frage"},
		{French, "vingt et un", "21"}, {French, "quatre vingt dix sept", "97"}, {French, "soixante dix", "70"},
		{French, "deux cents", "200"}, {French, "mille deux cents", "1200"}, {French, "un chat", "un chat"},
		{Spanish, "treinta y dos", "32"}, {Spanish, "doscientos cincuenta", "250"}, {Spanish, "veintitrés", "23"},
		{Spanish, "dos mil", "2000"}, {Spanish, "dos y dos", "2 y 2"}, {Spanish, "ciento uno", "101"},
	} {
		got := strings.Join(books[c.l].digits(strings.Fields(c.said)), " ")
		if got != c.want {
			t.Errorf("%s %q = %q, want %q", c.l, c.said, got, c.want)
		}
	}
}

func TestSayTime(t *testing.T) {
	for _, c := range []struct {
		l    Lang
		h, m int
		want string
	}{
		{English, 14, 30, "It's 2:30 PM."}, {English, 12, 0, "It's noon."},
		{German, 14, 30, "Es ist 14 Uhr 30."}, {German, 7, 0, "Es ist 7 Uhr."}, {German, 0, 0, "Es ist Mitternacht."},
		{French, 14, 30, "Il est 14 heures 30."}, {French, 1, 5, "Il est 1 heure 5."}, {French, 12, 0, "Il est midi."},
		{French, 0, 30, "Il est 0 heure 30."},
		{Spanish, 14, 30, "Son las 2 y media de la tarde."}, {Spanish, 1, 15, "Es la 1 y cuarto de la madrugada."},
		{Spanish, 9, 5, "Son las 9 y 5 de la mañana."}, {Spanish, 21, 0, "Son las 9 de la noche."},
	} {
		if got := c.l.TimeNow(c.h, c.m); got != c.want {
			t.Errorf("%s %d:%02d = %q, want %q", c.l, c.h, c.m, got, c.want)
		}
	}
}

func TestSayDuration(t *testing.T) {
	for _, c := range []struct {
		l    Lang
		d    time.Duration
		want string
	}{
		{English, 90 * time.Minute, "1 hour and 30 minutes"}, {English, 5 * time.Minute, "5 minutes"},
		{English, time.Second, "1 second"}, {English, 26*time.Hour + 61*time.Second, "1 day, 2 hours, 1 minute and 1 second"},
		{English, 299*time.Second + 600*time.Millisecond, "5 minutes"},
		{German, 90 * time.Minute, "eine Stunde und 30 Minuten"}, {German, time.Minute, "eine Minute"},
		{French, 2*time.Hour + time.Second, "2 heures et une seconde"},
		{Spanish, 25*time.Hour + 3*time.Minute, "un día, una hora y 3 minutos"},
	} {
		if got := c.l.Duration(c.d); got != c.want {
			t.Errorf("%s %v = %q, want %q", c.l, c.d, got, c.want)
		}
	}
}

func TestSayWhen(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 15, 0, 0, time.UTC) // a Sunday
	tomorrow7 := time.Date(2026, 11, 23, 7, 0, 0, 0, time.UTC)
	for l, want := range map[Lang]string{
		English: "7:00 AM tomorrow", German: "morgen um 7 Uhr", French: "demain à 7 heures", Spanish: "mañana a las 7 de la mañana",
	} {
		if got := l.When(tomorrow7, now); got != want {
			t.Errorf("%s: %q, want %q", l, got, want)
		}
	}
	weekdays := []time.Weekday{time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday}
	if got := German.At(6, 30, weekdays); got != "werktags um 6 Uhr 30" {
		t.Errorf("German repeating alarm: %q", got)
	}
	if got := French.Date(now); got != "dimanche 22 novembre 2026" {
		t.Errorf("French date: %q", got)
	}
}

// TestCanonicalEnglishUntouched: English is read by the commands as said.
func TestCanonicalEnglishUntouched(t *testing.T) {
	if got := English.Canonical("Set a timer for five minutes, please."); got != "Set a timer for five minutes, please." {
		t.Errorf("English canonical: %q", got)
	}
}

func TestYours(t *testing.T) {
	for _, c := range []struct {
		l          Lang
		said, want string
	}{
		{English, "call my mom", "call your mom"}, {English, "I am late", "you are late"}, {English, "My bike", "Your bike"},
		{German, "meine Mutter anzurufen", "deine Mutter anzurufen"}, {German, "Mein Fahrrad blau ist", "Dein Fahrrad blau ist"},
		{French, "appeler ma sœur", "appeler ta sœur"},
		{Spanish, "llamar a mi madre", "llamar a tu madre"},
		// what the household says of itself is said back to it
		{English, "our wifi password is [SECRET_1]", "your wifi password is [SECRET_1]"}, {English, "we feed the cat at six", "you feed the cat at six"},
		{German, "unser WLAN-Passwort ist [SECRET_1]", "euer WLAN-Passwort ist [SECRET_1]"}, {German, "bei unserem Nachbarn", "bei eurem Nachbarn"},
		{French, "notre mot de passe wifi", "votre mot de passe wifi"}, {French, "nos clés", "vos clés"},
		{Spanish, "nuestra contraseña del wifi", "vuestra contraseña del wifi"},
	} {
		if got := c.l.Yours(c.said); got != c.want {
			t.Errorf("%s %q = %q, want %q", c.l, c.said, got, c.want)
		}
	}
}

// TestAtNight: each phrasebook reads a time said at night into the
// English clock: twelve is midnight, one to five the small hours, the
// late evening pm; a part of the day said before its time goes after it.
func TestAtNight(t *testing.T) {
	for l, cases := range map[Lang][]struct{ said, want string }{
		German: {
			{"um drei Uhr nachts", "at 3 am"}, {"um 4 Uhr in der Nacht", "at 4 am"}, {"um zwölf Uhr nachts", "at 12 am"},
			{"um halb eins nachts", "at 12:30 am"}, {"um elf Uhr nachts", "at 11 pm"}, {"nachts um drei", "at 3 am"},
			{"heute Nacht um zwei", "at 2 am"}, {"heute Nacht", "tonight"}, {"um 23 Uhr nachts", "at 23"},
			{"abends um sieben", "at 7 pm"}, {"heute abend um acht", "at 8 tonight"},
		},
		Spanish: {
			{"a las doce de la noche", "at 12 am"}, {"a las doce y media de la noche", "at 12:30 am"},
			{"a las dos de la noche", "at 2 am"}, {"a las once de la noche", "at 11 pm"}, {"a las nueve de la noche", "at 9 pm"},
			{"a las dos de la madrugada", "at 2 am"}, {"esta noche a las doce", "at 12 tonight"}, {"a las ocho de la tarde", "at 8 pm"},
			{"a la una de la madrugada", "at 1 am"}, {"a la una y media de la noche", "at 1:30 am"},
		},
		French: {
			{"à deux heures de la nuit", "at 2 am"}, {"à minuit", "at midnight"}, {"cette nuit à trois heures", "at 3 am"},
			{"à une heure du matin", "at 1 am"}, {"à onze heures du soir", "at 11 pm"}, {"à neuf heures du soir", "at 9 pm"},
			{"ce soir à huit heures", "at 8 tonight"},
		},
	} {
		for _, c := range cases {
			if got := l.Quantities(c.said); got != c.want {
				t.Errorf("%s %q = %q, want %q", l, c.said, got, c.want)
			}
		}
	}
}

// TestNextWeekday: the words that name a weekday to come ("nächsten
// Montag", "el próximo lunes", "lundi prochain") read as English "next
// monday", as DaySaid reads them; a weekday said without them is "on
// monday" still.
func TestNextWeekday(t *testing.T) {
	for l, cases := range map[Lang][]struct{ said, want string }{
		German: {
			{"nächsten Montag um 8", "next monday at 8"}, {"für nächsten Montag um 8 Uhr", "für next monday at 8"},
			{"am nächsten Freitag", "next friday"}, {"kommenden Sonntag", "next sunday"}, {"diesen Mittwoch", "next wednesday"},
			{"am Montag um 8", "on monday at 8"}, {"montags", "mondays"}, {"die nächste Woche", "die nächste woche"},
		},
		Spanish: {
			{"el próximo lunes a las 8", "next monday at 8"}, {"el proximo martes", "next tuesday"},
			{"el lunes que viene a las 7", "next monday at 7"}, {"el viernes próximo", "next friday"},
			{"el lunes a las 8", "on monday at 8"}, {"todos los lunes", "every monday"}, {"la próxima semana", "la próxima semana"},
		},
		French: {
			{"lundi prochain à 8 heures", "next monday at 8"}, {"le vendredi qui vient", "next friday"},
			{"ce samedi", "next saturday"}, {"lundi à 8 heures", "monday at 8"}, {"du lundi", "on monday"},
			{"la semaine prochaine", "la semaine prochaine"},
		},
	} {
		for _, c := range cases {
			if got := l.Quantities(c.said); got != c.want {
				t.Errorf("%s %q = %q, want %q", l, c.said, got, c.want)
			}
		}
	}
}

// TestNoonAndMidnight: a time said from noon or midnight, a quarter, a
// half or some minutes after or before it, reads as the English clock
// reads it without doubt: "minuit et demie" is 0:30, "midi moins le
// quart" 11:45 in the morning, "minuit moins le quart" 23:45.
func TestNoonAndMidnight(t *testing.T) {
	for l, cases := range map[Lang][]struct{ said, want string }{
		French: {
			{"à minuit et demie", "at 0:30"}, {"minuit et demi", "0:30"}, {"à minuit et quart", "at 0:15"},
			{"à midi et quart", "at 12:15"}, {"vers midi et demie", "at 12:30"}, {"pour midi et demi", "at 12:30"},
			{"à minuit moins le quart", "at 23:45"}, {"à midi moins le quart", "at 11:45 am"},
			{"à minuit dix", "at 0:10"}, {"à midi vingt", "at 12:20"}, {"à midi moins dix", "at 11:50 am"}, {"minuit moins cinq", "23:55"},
			{"à minuit", "at midnight"}, {"à midi", "at noon"}, {"minuit", "midnight"}, {"midi", "noon"},
			{"le repas de midi", "le repas de midi"}, {"cet après-midi", "cet après midi"},
		},
		Spanish: {
			{"a medianoche y media", "at 0:30"}, {"a la medianoche y media", "at 0:30"}, {"medianoche y cuarto", "0:15"},
			{"a mediodía y cuarto", "at 12:15"}, {"al mediodía y media", "at 12:30"}, {"a medianoche menos cuarto", "at 23:45"},
			{"a mediodía menos cuarto", "at 11:45 am"}, {"a medianoche y diez", "at 0:10"}, {"a mediodía menos cinco", "at 11:55 am"},
			{"a medianoche", "at midnight"}, {"a la medianoche", "at midnight"}, {"a mediodía", "at noon"}, {"al mediodía", "at noon"},
		},
		German: {
			{"um Viertel nach Mitternacht", "at 0:15"}, {"um Viertel vor Mitternacht", "at 23:45"},
			{"Viertel nach Mittag", "12:15"}, {"um zehn nach Mitternacht", "at 0:10"}, {"um fünf vor Mitternacht", "at 23:55"},
			{"um halb eins", "at 12:30"}, {"um Mitternacht", "at midnight"},
		},
	} {
		for _, c := range cases {
			if got := l.Quantities(c.said); got != c.want {
				t.Errorf("%s %q = %q, want %q", l, c.said, got, c.want)
			}
		}
	}
}

// Every unit the converter names in a language is read back when said:
// "Esslöffel", "nœuds", "millas por hora" are units, as "Meilen" is.
func TestUnitNameReadsEveryUnitSaid(t *testing.T) {
	for l, names := range unitNames {
		for code, forms := range names {
			for _, said := range forms {
				if got, ok := l.UnitName(said); !ok || got != code {
					t.Errorf("%s UnitName(%q) = %q, %v; want %q", l, said, got, ok, code)
				}
			}
		}
	}
	for _, c := range []struct {
		l          Lang
		said, want string
	}{
		{German, "Meilen", "mi"}, {German, "Kilo", "kg"}, {German, "Stundenkilometer", "km/h"}, {German, "km/h", "km/h"},
		{French, "kilos", "kg"}, {French, "kilomètres heure", "km/h"}, {Spanish, "kilos", "kg"}, {Spanish, "centígrados", "c"},
	} {
		if got, ok := c.l.UnitName(c.said); !ok || got != c.want {
			t.Errorf("%s UnitName(%q) = %q, %v; want %q", c.l, c.said, got, ok, c.want)
		}
	}
}

// One reads one said as its article, whatever its case, as well as the
// number: "eine Meile", "in einem Pfund", "una libra", "une livre".
func TestOne(t *testing.T) {
	for _, c := range []struct {
		l    Lang
		said string
		want bool
	}{
		{German, "ein", true}, {German, "eine", true}, {German, "einem", true}, {German, "einer", true}, {German, "eins", true}, {German, "1", true},
		{Spanish, "una", true}, {Spanish, "un", true}, {Spanish, "uno", true}, {French, "une", true}, {French, "un", true},
		{English, "a", true}, {English, "an", true}, {English, "one", true},
		{German, "zwei", false}, {German, "der", false}, {French, "le", false}, {Spanish, "el", false}, {English, "the", false},
	} {
		if got := c.l.One(c.said); got != c.want {
			t.Errorf("%s One(%q) = %v, want %v", c.l, c.said, got, c.want)
		}
	}
}
