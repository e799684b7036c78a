package locale

import "testing"

// TestIn: a town takes the plain preposition; a country takes the one its
// name asks for in each language, with its article where it has one.
func TestIn(t *testing.T) {
	for _, c := range []struct {
		l             Lang
		name, country string
		want          string
	}{
		{English, "Paris", "", "in Paris"},
		{English, "Spain", "ES", "in Spain"},
		{English, "United States", "US", "in the United States"},
		{English, "Netherlands", "NL", "in the Netherlands"},
		{French, "Paris", "", "à Paris"},
		{French, "Le Havre", "", "au Havre"},
		{French, "Les Sables-d'Olonne", "", "aux Sables-d'Olonne"},
		{French, "La Rochelle", "", "à La Rochelle"},
		{French, "Espagne", "ES", "en Espagne"},
		{French, "France", "FR", "en France"},
		{French, "Portugal", "PT", "au Portugal"},
		{French, "Canada", "CA", "au Canada"},
		{French, "États-Unis", "US", "aux États-Unis"},
		{French, "Pays-Bas", "NL", "aux Pays-Bas"},
		{French, "Iran", "IR", "en Iran"},
		{French, "Mexique", "MX", "au Mexique"},
		{French, "Cuba", "CU", "à Cuba"},
		{French, "Honduras", "HN", "au Honduras"},
		{German, "Berlin", "", "in Berlin"},
		{German, "Spanien", "ES", "in Spanien"},
		{German, "Schweiz", "CH", "in der Schweiz"},
		{German, "Türkei", "TR", "in der Türkei"},
		{German, "USA", "US", "in den USA"},
		{German, "Vereinigte Staaten", "US", "in den Vereinigten Staaten"},
		{German, "Niederlande", "NL", "in den Niederlanden"},
		{German, "Dominikanische Republik", "DO", "in der Dominikanischen Republik"},
		{German, "Iran", "IR", "im Iran"},
		{Spanish, "París", "", "en París"},
		{Spanish, "España", "ES", "en España"},
		{Spanish, "Estados Unidos", "US", "en Estados Unidos"},
	} {
		if got := c.l.In(c.name, c.country); got != c.want {
			t.Errorf("%s In(%q, %q) = %q, want %q", c.l, c.name, c.country, got, c.want)
		}
	}
}
