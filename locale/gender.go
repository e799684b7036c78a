package locale

import (
	"slices"
	"strings"
	"unicode"
)

// Form is the gender and number a participle or an adjective agrees
// with in French and Spanish ("Lámpara encendida", "Volets fermés"). The
// zero Form is the masculine singular every catalogue entry is written in.
type Form struct{ Feminine, Plural bool }

// FormOf is the Form of the devices named, as the user spoke of them in
// said: several are plural, and feminine only when every one is; one
// name's gender is the article the user said right before it ("la
// lámpara", "le store"), else the state word said of it when it is the
// only one ("está encendida kitchen light"), else the one its first word
// has by its ending, with the exceptions of a short list ("luz" and
// "tele" are feminine, "día" and "store" masculine). German and English
// replies do not agree, and have the zero Form.
func (l Lang) FormOf(said string, names ...string) Form {
	if l != Spanish && l != French {
		return Form{}
	}
	f := Form{Feminine: len(names) > 0, Plural: len(names) > 1}
	for _, n := range names {
		f.Feminine = f.Feminine && l.feminine(said, n, len(names) == 1)
	}
	return f
}

// stateGender is the gender of the state word said of a device ("está
// encendida", "est allumé"): the catalogue's state words, masculine, and
// their agreeing variants; false when none is said.
func (l Lang) stateGender(words []string) (feminine, ok bool) {
	for _, w := range words {
		for k, v := range forms[l] {
			if strings.Contains(k, "%") {
				continue
			}
			switch w {
			case v[0], v[2]:
				return true, true
			case tables[l][k], v[1]:
				return false, true
			}
		}
	}
	return false, false
}

// Agreeing is a language's catalogue for sentences about devices of one
// Form.
type Agreeing struct {
	l Lang
	f Form
}

// Agreeing returns l's catalogue for sentences about devices of Form f.
func (l Lang) Agreeing(f Form) Agreeing { return Agreeing{l, f} }

// T is l.T with the sentence in the Form: its agreeing variant where the
// language has one, else the sentence as the catalogue has it.
func (a Agreeing) T(key string, args ...any) string {
	if a.f != (Form{}) {
		if v, ok := forms[a.l][key]; ok {
			if s := v[a.f.index()]; s != "" {
				key = s
			}
		}
	}
	return a.l.T(key, args...)
}

// index is the Form's place in a forms entry.
func (f Form) index() int {
	switch {
	case f.Feminine && !f.Plural:
		return 0
	case !f.Feminine:
		return 1
	}
	return 2
}

// forms are the agreeing variants of catalogue sentences, by English key:
// feminine singular, masculine plural, feminine plural.
var forms = map[Lang]map[string][3]string{
	Spanish: {
		"Turned on %s.":         {"%s encendida.", "%s encendidos.", "%s encendidas."},
		"Turned off %s.":        {"%s apagada.", "%s apagados.", "%s apagadas."},
		"Opened %s.":            {"%s abierta.", "%s abiertos.", "%s abiertas."},
		"Closed %s.":            {"%s cerrada.", "%s cerrados.", "%s cerradas."},
		"Locked %s.":            {"%s cerrada con llave.", "%s cerrados con llave.", "%s cerradas con llave."},
		"Unlocked %s.":          {"%s abierta.", "%s abiertos.", "%s abiertas."},
		"Activated %s.":         {"%s activada.", "%s activados.", "%s activadas."},
		"Started %s.":           {"%s iniciada.", "%s iniciados.", "%s iniciadas."},
		"Set %s to %v percent.": {"%s puesta al %v por ciento.", "%s puestos al %v por ciento.", "%s puestas al %v por ciento."},
		"%s is on.":             {"%s está encendida.", "%s están encendidos.", "%s están encendidas."},
		"%s is off.":            {"%s está apagada.", "%s están apagados.", "%s están apagadas."},
		"%s is open.":           {"%s está abierta.", "%s están abiertos.", "%s están abiertas."},
		"%s is closed.":         {"%s está cerrada.", "%s están cerrados.", "%s están cerradas."},
		"%s is locked.":         {"%s está cerrada con llave.", "%s están cerrados con llave.", "%s están cerradas con llave."},
		"%s is unlocked.":       {"%s está abierta con llave.", "%s están abiertos con llave.", "%s están abiertas con llave."},
		"%s is unavailable.":    {"%s no está disponible.", "%s no están disponibles.", "%s no están disponibles."},
		"on":                    {"encendida", "encendidos", "encendidas"},
		"off":                   {"apagada", "apagados", "apagadas"},
		"open":                  {"abierta", "abiertos", "abiertas"},
		"closed":                {"cerrada", "cerrados", "cerradas"},
		"locked":                {"cerrada con llave", "cerrados con llave", "cerradas con llave"},
		"unlocked":              {"abierta", "abiertos", "abiertas"},
		"idle":                  {"inactiva", "inactivos", "inactivas"},
		"connected":             {"conectada", "conectados", "conectadas"},
		"disconnected":          {"desconectada", "desconectados", "desconectadas"},
		"detected":              {"detectada", "detectados", "detectadas"},
		"not detected":          {"no detectada", "no detectados", "no detectadas"},
		"wet":                   {"mojada", "mojados", "mojadas"},
		"dry":                   {"seca", "secos", "secas"},
	},
	French: {
		"Turned on %s.":         {"%s allumée.", "%s allumés.", "%s allumées."},
		"Turned off %s.":        {"%s éteinte.", "%s éteints.", "%s éteintes."},
		"Opened %s.":            {"%s ouverte.", "%s ouverts.", "%s ouvertes."},
		"Closed %s.":            {"%s fermée.", "%s fermés.", "%s fermées."},
		"Locked %s.":            {"%s verrouillée.", "%s verrouillés.", "%s verrouillées."},
		"Unlocked %s.":          {"%s déverrouillée.", "%s déverrouillés.", "%s déverrouillées."},
		"Activated %s.":         {"%s activée.", "%s activés.", "%s activées."},
		"Started %s.":           {"%s démarrée.", "%s démarrés.", "%s démarrées."},
		"Set %s to %v percent.": {"%s réglée à %v pour cent.", "%s réglés à %v pour cent.", "%s réglées à %v pour cent."},
		"%s is on.":             {"%s est allumée.", "%s sont allumés.", "%s sont allumées."},
		"%s is off.":            {"%s est éteinte.", "%s sont éteints.", "%s sont éteintes."},
		"%s is open.":           {"%s est ouverte.", "%s sont ouverts.", "%s sont ouvertes."},
		"%s is closed.":         {"%s est fermée.", "%s sont fermés.", "%s sont fermées."},
		"%s is locked.":         {"%s est verrouillée.", "%s sont verrouillés.", "%s sont verrouillées."},
		"%s is unlocked.":       {"%s est déverrouillée.", "%s sont déverrouillés.", "%s sont déverrouillées."},
		"%s is unavailable.":    {"%s est indisponible.", "%s sont indisponibles.", "%s sont indisponibles."},
		"on":                    {"allumée", "allumés", "allumées"},
		"off":                   {"éteinte", "éteints", "éteintes"},
		"open":                  {"ouverte", "ouverts", "ouvertes"},
		"closed":                {"fermée", "fermés", "fermées"},
		"locked":                {"verrouillée", "verrouillés", "verrouillées"},
		"unlocked":              {"déverrouillée", "déverrouillés", "déverrouillées"},
		"idle":                  {"inactive", "inactifs", "inactives"},
		"connected":             {"connectée", "connectés", "connectées"},
		"disconnected":          {"déconnectée", "déconnectés", "déconnectées"},
		"detected":              {"détectée", "détectés", "détectées"},
		"not detected":          {"non détectée", "non détectés", "non détectées"},
		"dry":                   {"sèche", "secs", "sèches"},
	},
}

// articles are the words before a noun that tell its gender: true for
// feminine. Those that do not ("l'", "les", "mi") are absent.
var articles = map[Lang]map[string]bool{
	Spanish: {"la": true, "una": true, "esta": true, "esa": true, "las": true, "unas": true, "estas": true, "esas": true,
		"el": false, "un": false, "este": false, "ese": false, "del": false, "al": false, "los": false, "unos": false, "estos": false, "esos": false},
	French: {"la": true, "une": true, "cette": true, "ma": true, "ta": true, "sa": true,
		"le": false, "un": false, "ce": false, "cet": false, "du": false, "au": false},
}

// feminine reports whether the device called name is feminine in l, as
// said in said; alone, it is the only device said, and a state word said
// of it agrees with it.
func (l Lang) feminine(said, name string, alone bool) bool {
	words := strings.FieldsFunc(strings.ToLower(said), notWordRune)
	nw := strings.FieldsFunc(strings.ToLower(name), notWordRune)
	if len(nw) == 0 {
		return false
	}
	for i := 1; i+len(nw) <= len(words); i++ {
		if !slices.Equal(words[i:i+len(nw)], nw) {
			continue
		}
		if fem, ok := articles[l][words[i-1]]; ok {
			return fem
		}
	}
	if fem, ok := l.stateGender(words); ok && alone {
		return fem
	}
	head := strings.ToLower(strings.Fields(name)[0])
	if fem, ok := nouns[l][head]; ok {
		return fem
	}
	if strings.Contains(head, "-") { // "lave-linge", "sèche-serviettes"
		return false
	}
	for _, e := range endings[l] {
		if strings.HasSuffix(head, e.end) {
			return e.feminine
		}
	}
	return false
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '-' }

// nouns are the nouns of devices whose gender their ending does not
// tell: true for feminine.
var nouns = map[Lang]map[string]bool{
	Spanish: {"luz": true, "tele": true, "llave": true, "red": true, "radio": true, "moto": true, "foto": true, "mano": true,
		"fuente": true, "torre": true, "calle": true, "impresora": true,
		"día": false, "mapa": false, "sofá": false, "clima": false, "sistema": false, "programa": false, "tema": false, "aroma": false},
	French: {"télé": true, "radio": true, "clim": true, "tv": true,
		"store": false, "lustre": false, "lampadaire": false, "luminaire": false, "globe": false, "groupe": false, "filtre": false,
		"portique": false, "réverbère": false, "interphone": false, "téléphone": false, "micro-ondes": false, "musée": false},
}

// endings tell a noun's gender by how it ends, the first that fits.
var endings = map[Lang][]struct {
	end      string
	feminine bool
}{
	Spanish: {{"ción", true}, {"sión", true}, {"xión", true}, {"dad", true}, {"tad", true}, {"tud", true}, {"umbre", true}, {"a", true}},
	French: {{"age", false}, {"isme", false}, {"aire", false}, {"ome", false}, {"tion", true}, {"sion", true}, {"té", true},
		{"ée", true}, {"e", true}},
}
