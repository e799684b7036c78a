package locale

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// In says a place after the preposition that puts something there: "in
// Paris", "à Paris", "en Espagne", "au Portugal", "aux États-Unis", "in
// der Schweiz", "im Iran". country is the place's ISO 3166-1 code when the
// place is a country itself, and empty for a town or a region; a town
// takes the plain preposition (French contracting it with the town's own
// article: "au Havre"). A country's preposition follows from its name
// (French: a name ending in -e is feminine, one ending in -s plural, one
// beginning with a vowel takes "en"; German: a name ending in -ei, or a
// Republik, is feminine), and countryPrep holds the countries whose name
// misleads that rule, by code.
func (l Lang) In(name, country string) string {
	name = strings.TrimSpace(name)
	if p, ok := countryPrep[l][country]; ok && country != "" {
		return inflect(l, p, name)
	}
	switch l {
	case French:
		return frenchIn(name, country != "")
	case German:
		if country != "" {
			if strings.HasSuffix(name, "ei") || strings.Contains(name, "Republik") {
				return inflect(l, "in der", name)
			}
		}
		return "in " + name
	case Spanish:
		return "en " + name
	}
	return "in " + name
}

func frenchIn(name string, country bool) string {
	if !country {
		first, rest, _ := strings.Cut(name, " ")
		switch strings.ToLower(first) {
		case "le":
			return "au " + rest
		case "les":
			return "aux " + rest
		}
		return "à " + name
	}
	first, _, _ := strings.Cut(name, " ")
	r, _ := utf8.DecodeRuneInString(name)
	switch {
	case strings.HasSuffix(first, "s") || strings.HasSuffix(first, "x"):
		return "aux " + name
	case strings.ContainsRune("aeiouyàâäéèêëîïôöùûü", unicode.ToLower(r)), strings.HasSuffix(name, "e"):
		return "en " + name
	}
	return "au " + name
}

// inflect puts name after p, with the German dative's -n on the words
// that take it: every word of a plural ("in den Niederlanden"), the
// adjectives before a feminine noun ("in der Dominikanischen Republik").
func inflect(l Lang, p, name string) string {
	if l != German || p != "in den" && p != "in der" {
		return p + " " + name
	}
	words := strings.Fields(name)
	for i, w := range words {
		if strings.HasSuffix(w, "e") && (p == "in den" || i < len(words)-1) {
			words[i] = w + "n"
		}
	}
	return p + " " + strings.Join(words, " ")
}

// countryPrep is the preposition, with its article, of the countries whose
// name misleads In's rule, by ISO 3166-1 code: in English the few said
// with "the", in French the masculine names ending in -e, the singular
// ones ending in -s and the islands and city states said with "à", in
// German the countries said with an article the rule does not find.
var countryPrep = map[Lang]map[string]string{
	English: {
		"US": "in the", "GB": "in the", "NL": "in the", "PH": "in the", "AE": "in the", "BS": "in the",
		"MV": "in the", "SC": "in the", "KM": "in the", "DO": "in the", "CF": "in the", "CD": "in the",
		"CG": "in the", "GM": "in the", "MH": "in the", "SB": "in the", "VA": "in the",
	},
	French: {
		"MX": "au", "KH": "au", "MZ": "au", "ZW": "au", "BZ": "au", "LA": "au", "HN": "au",
		"CU": "à", "MG": "à", "MT": "à", "CY": "à", "SG": "à", "MC": "à", "MU": "à", "BH": "à",
		"TW": "à", "DJ": "à", "SM": "à", "LC": "à", "KN": "à", "VC": "à", "TT": "à", "ST": "à",
	},
	German: {
		"CH": "in der", "UA": "in der", "CI": "in der",
		"US": "in den", "NL": "in den", "PH": "in den", "AE": "in den", "BS": "in den", "MV": "in den",
		"SC": "in den", "KM": "in den",
		"IR": "im", "IQ": "im", "LB": "im", "SD": "im", "SS": "im", "YE": "im", "TD": "im", "NE": "im",
		"SN": "im", "XK": "im", "CG": "im", "CD": "im", "VA": "im",
	},
}
