package locale

import (
	"slices"
	"testing"
)

// TestFormOf: the gender is the article said before the name, else the
// state word said ("encendida", "allumée"), else the name's first word's
// ending or exception; several names are plural, feminine only when all
// are.
func TestFormOf(t *testing.T) {
	for _, tt := range []struct {
		l     Lang
		said  string
		names []string
		want  Form
	}{
		{Spanish, "enciende la lámpara de pie", []string{"Lámpara de pie"}, Form{Feminine: true}},
		{Spanish, "enciende el nest", []string{"Nest"}, Form{}},
		{Spanish, "enciende la nest", []string{"Nest"}, Form{Feminine: true}},
		{Spanish, "", []string{"Calefacción"}, Form{Feminine: true}},
		{Spanish, "", []string{"Sistema de riego"}, Form{}},
		{Spanish, "", []string{"Luz del techo", "Lámpara"}, Form{Feminine: true, Plural: true}},
		{Spanish, "", []string{"Luz del techo", "Ventilador"}, Form{Plural: true}},
		{French, "allume l'ampoule", []string{"Ampoule"}, Form{Feminine: true}},
		{French, "", []string{"Lave-linge"}, Form{}},
		{French, "", []string{"Chauffage"}, Form{}},
		{French, "", []string{"Prise du salon"}, Form{Feminine: true}},
		{French, "allume le spot", []string{"Spot"}, Form{}},
		{German, "schalte die Lampe ein", []string{"Lampe"}, Form{}},
		{Spanish, "está encendida kitchen light", []string{"Kitchen light"}, Form{Feminine: true}},
		{Spanish, "está encendido kitchen light", []string{"Kitchen light"}, Form{}},
		{Spanish, "están apagadas las luces", []string{"Luz del techo", "Ventilador"}, Form{Plural: true}},
		{Spanish, "el nest está apagada", []string{"Nest"}, Form{}},
		{French, "kitchen light est allumée", []string{"Kitchen light"}, Form{Feminine: true}},
		{French, "est-ce que kitchen light est éteint", []string{"Kitchen light"}, Form{}},
	} {
		if got := tt.l.FormOf(tt.said, tt.names...); got != tt.want {
			t.Errorf("%s %q %q: %+v, want %+v", tt.l, tt.said, tt.names, got, tt.want)
		}
	}
}

// TestFormsAreCatalogued: every agreeing variant is of a sentence the
// catalogue has, with the same arguments.
func TestFormsAreCatalogued(t *testing.T) {
	for l, table := range forms {
		for k, vs := range table {
			tr, ok := tables[l][k]
			if !ok {
				t.Errorf("%s: %q has variants but no translation", l, k)
			}
			for _, v := range vs {
				if !slices.Equal(verbs(v), verbs(tr)) {
					t.Errorf("%s: %q's variant %q has other arguments than %q", l, k, v, tr)
				}
			}
		}
	}
}
