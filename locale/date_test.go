package locale

import (
	"testing"

	"github.com/harkbox/hark/locale/utterance"
)

// TestDaySaid: a day said in each language is read into the English day
// utterance.ParseDay reads, and that reads as the same day.
func TestDaySaid(t *testing.T) {
	for _, tc := range []struct {
		l         Lang
		said, day string // day as utterance.Day writes it
	}{
		{English, "Christmas Day", "december 25"},
		{German, "morgen", "tomorrow"},
		{German, "gestern", "yesterday"},
		{German, "übermorgen", "in 2 days"},
		{German, "Weihnachten", "december 25"},
		{German, "den ersten Weihnachtstag", "december 25"},
		{German, "Heiligabend", "december 24"},
		{German, "Silvester", "december 31"},
		{German, "Neujahr", "january 1"},
		{German, "das neue Jahr", "january 1"},
		{German, "Valentinstag", "february 14"},
		{German, "der 25. Dezember", "december 25"},
		{German, "zum einunddreißigsten Dezember", "december 31"},
		{German, "den ersten Januar", "january 1"},
		{German, "am dritten März 2030", "march 3 2030"},
		{German, "nächsten Freitag", "friday"},
		{German, "Freitag", "friday"},
		{German, "am Freitag", "friday"},
		{German, "letzten Montag", "last monday"},
		{German, "in einer Woche", "in 7 days"},
		{German, "in drei Tagen", "in 3 days"},
		{German, "in zwei Wochen", "in 14 days"},
		{French, "demain", "tomorrow"},
		{French, "hier", "yesterday"},
		{French, "après-demain", "in 2 days"},
		{French, "Noël", "december 25"},
		{French, "le réveillon de Noël", "december 24"},
		{French, "la Saint-Sylvestre", "december 31"},
		{French, "le jour de l'an", "january 1"},
		{French, "le nouvel an", "january 1"},
		{French, "la Saint-Valentin", "february 14"},
		{French, "le 25 décembre", "december 25"},
		{French, "le vingt-cinq décembre", "december 25"},
		{French, "le premier janvier", "january 1"},
		{French, "le 1er janvier 2028", "january 1 2028"},
		{French, "vendredi prochain", "friday"},
		{French, "vendredi", "friday"},
		{French, "dans une semaine", "in 7 days"},
		{French, "dans trois jours", "in 3 days"},
		{Spanish, "mañana", "tomorrow"},
		{Spanish, "pasado mañana", "in 2 days"},
		{Spanish, "ayer", "yesterday"},
		{Spanish, "Navidad", "december 25"},
		{Spanish, "el día de Navidad", "december 25"},
		{Spanish, "Nochebuena", "december 24"},
		{Spanish, "Nochevieja", "december 31"},
		{Spanish, "Año Nuevo", "january 1"},
		{Spanish, "San Valentín", "february 14"},
		{Spanish, "el 25 de diciembre", "december 25"},
		{Spanish, "el veinticinco de diciembre", "december 25"},
		{Spanish, "el primero de enero", "january 1"},
		{Spanish, "el 31 de diciembre de 2027", "december 31 2027"},
		{Spanish, "el próximo viernes", "friday"},
		{Spanish, "el viernes que viene", "friday"},
		{Spanish, "el viernes", "friday"},
		{Spanish, "dentro de una semana", "in 7 days"},
		{Spanish, "dentro de tres días", "in 3 days"},
	} {
		english := tc.l.DaySaid(tc.said)
		d, ok := utterance.ParseDay(english)
		if !ok || d.String() != tc.day {
			t.Errorf("%s %q: read as %q (%q, %v), want %q", tc.l, tc.said, english, d.String(), ok, tc.day)
		}
	}
	for _, tc := range []struct {
		l    Lang
		said string
	}{{German, "Ostern"}, {German, "mein Geburtstag"}, {French, "Pâques"}, {Spanish, "Semana Santa"}, {Spanish, "mi cumpleaños"}} {
		if d, ok := utterance.ParseDay(tc.l.DaySaid(tc.said)); ok {
			t.Errorf("%s %q read as %q", tc.l, tc.said, d.String())
		}
	}
}
