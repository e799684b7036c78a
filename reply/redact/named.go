package redact

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// A household's secrets named in English, German, Spanish or French: the
// secret's name, what it belongs to, a verb, then its value ("the code of
// the door is 4711", "la contraseña del wifi es hunter2", "le mot de passe
// du wifi est hunter2", "das Passwort vom WLAN lautet hunter2"), or in a
// German clause after "dass" the value before the verb ("dass das
// WLAN-Passwort hunter2 ist"), or the value first when the name ends the
// sentence ("hunter2 is the wifi password", "4711 est le code de la
// porte"). The phrasings the password and code
// patterns read already ("my password is", "the door code is") are theirs;
// these are read word by word, after them.

// nameKind is how a secret's name takes its value.
type nameKind uint8

const (
	// anyValue: any word is the value (a password).
	anyValue nameKind = iota + 1
	// digitValue: a code's value holds a digit, or is said in numbers.
	digitValue
	// wifiValue: a name that is a password only for a network ("key",
	// "clé", "Schlüssel"), which the words around it must name.
	wifiValue
)

// secretNames are the names of secrets, lower case, as one word.
var secretNames = map[string]nameKind{
	"password": anyValue, "passcode": anyValue, "passphrase": anyValue,
	"passwort": anyValue, "kennwort": anyValue,
	"contraseña": anyValue, "contrasena": anyValue, "clave": anyValue,
	"pin": digitValue, "pincode": digitValue, "geheimzahl": digitValue,
	"code": digitValue, "código": digitValue, "codigo": digitValue,
	"combination": digitValue, "combo": digitValue, "combinación": digitValue, "combinacion": digitValue,
	"combinaison": digitValue, "kombination": digitValue,
	"key": wifiValue, "clé": wifiValue, "cle": wifiValue, "schlüssel": wifiValue,
}

// compoundNames end German compounds that name a secret: the door's code
// is a "Türcode", the wifi's password a "WLAN-Passwort".
var compoundNames = []struct {
	suffix string
	kind   nameKind
}{
	{"passwort", anyValue}, {"kennwort", anyValue}, {"code", digitValue}, {"kombination", digitValue},
	{"schlüssel", wifiValue}, {"key", wifiValue},
}

// networkWords make a name of wifiValue a password, and a code's value a
// word ("le code wifi est hunter2").
var networkWords = map[string]bool{"wifi": true, "wi-fi": true, "wlan": true, "wpa": true, "wpa2": true,
	"network": true, "netzwerk": true, "réseau": true, "reseau": true, "red": true, "router": true, "routeur": true}

// nameAdjectives may follow a secret's name before its verb: "la
// contraseña wifi", "mon code PIN", "el código secreto".
var nameAdjectives = map[string]bool{"wifi": true, "wi-fi": true, "wlan": true, "wpa": true, "wpa2": true, "pin": true,
	"secret": true, "secrète": true, "secrete": true, "secreto": true, "secreta": true}

// ofWords start what a secret belongs to: "the code for the garage", "el
// código de la puerta", "le code du garage", "das Passwort vom WLAN", "die
// PIN meiner Bankkarte".
var ofWords = map[string]bool{
	"for": true, "of": true, "to": true, "on": true, "at": true,
	"de": true, "del": true, "para": true,
	"du": true, "des": true, "pour": true,
	"vom": true, "von": true, "für": true, "fürs": true, "der": true, "zum": true, "zur": true, "am": true, "im": true,
	"beim": true, "meiner": true, "meines": true, "unserer": true, "unseres": true, "deiner": true, "deines": true,
}

// maxOwner is how many words may say what a secret belongs to, after the
// word that starts it.
const maxOwner = 4

// isWords link a secret's name to its value: "is", "ist", "lautet", "es",
// "est" and their past.
var isWords = map[string]bool{"is": true, "was": true, "ist": true, "lautet": true, "war": true,
	"es": true, "era": true, "est": true, "était": true, "etait": true, "=": true, ":": true}

// lastIsWords end a German clause after "dass", its value before them.
var lastIsWords = map[string]bool{"ist": true, "lautet": true, "war": true}

// notSecretCompounds start compounds that name no secret: "encode",
// "unicode", "timecode".
var notSecretCompounds = map[string]bool{"en": true, "de": true, "trans": true, "geo": true, "short": true, "time": true,
	"byte": true, "op": true, "uni": true, "post": true}

// notSecretCodeParts name codes that are no secrets, in a compound
// ("Fehlercode", "zipcode") or in what a code belongs to ("el código de
// descuento", "le code de réduction").
var notSecretCodeParts = map[string]bool{
	"bar": true, "zip": true, "qr": true, "promo": true, "dress": true, "source": true, "error": true,
	"status": true, "color": true, "colour": true, "country": true, "area": true, "discount": true, "coupon": true,
	"tracking": true, "product": true, "conduct": true,
	"fehler": true, "quell": true, "länder": true, "rabatt": true, "gutschein": true, "strich": true, "farb": true,
	"produkt": true, "aktions": true, "sendungs": true, "programm": true, "maschinen": true,
	"descuento": true, "promoción": true, "promocion": true, "promocional": true, "postal": true, "barras": true,
	"país": true, "pais": true, "seguimiento": true, "producto": true, "fuente": true, "conducta": true,
	"réduction": true, "reduction": true, "erreur": true, "pays": true, "suivi": true, "produit": true, "barres": true,
	"conduite": true, "route": true,
}

// moreNotSecretWords follow "is" in German, Spanish and French talk
// about a secret, not in one: "das Passwort ist falsch", "la contraseña
// es incorrecta", "le mot de passe est faux".
var moreNotSecretWords = []string{
	"ein", "eine", "der", "die", "das", "mein", "meine", "dein", "deine", "sein", "falsch", "richtig", "geheim",
	"geändert", "abgelaufen", "nicht", "zu", "neu", "anders", "gleich", "noch", "schon", "jetzt", "leer", "unter", "auf",
	"el", "la", "los", "las", "un", "una", "mi", "tu", "su", "muy", "nuevo", "nueva", "incorrecta", "incorrecto",
	"correcta", "correcto", "secreta", "secreto", "demasiado", "otra", "otro", "igual", "no", "que", "cambiada", "caducada",
	"le", "les", "une", "mon", "ma", "ton", "ta", "son", "sa", "faux", "fausse", "bon", "bonne", "secrète",
	"trop", "pas", "changé", "expiré", "différent", "nouveau", "nouvelle", "sous", "dans", "sur",
}

// functionWords go on with a sentence after a secret's name and its verb
// and are never its value: "das WLAN-Passwort ist und so", "the password
// is also on the router", "le mot de passe est donc compliqué".
var functionWords = []string{
	"and", "or", "but", "so", "also", "then", "just", "very", "really", "quite", "still", "well", "um", "uh",
	"und", "oder", "aber", "also", "dann", "halt", "eben", "ja", "doch", "sehr", "wirklich", "ziemlich", "äh", "ähm",
	"y", "e", "o", "u", "pero", "pues", "entonces", "también", "tambien", "ya", "bastante", "eh",
	"et", "ou", "mais", "donc", "alors", "aussi", "très", "tres", "vraiment", "assez", "euh", "bah",
}

func init() {
	for _, w := range moreNotSecretWords {
		notSecretWords[w] = true
	}
	for _, w := range functionWords {
		notSecretWords[w] = true
	}
}

// valueAnchored reads a value at the start of a string as passwordPattern
// reads it: quoted, with its quotes escaped inside a JSON string too, or
// up to a space or a closing mark.
var valueAnchored = regexp.MustCompile(`^(\\{1,7}"[^"\\]+\\{1,7}"|"[^"]+"|'[^']+'|[^\s"',\]\})]*[^\s"',\]\}).!?;:])`)

// word is a word of a sentence: s[start:end], and its core lower case,
// without the marks around it.
type word struct {
	start, end int
	core       string
	colon      bool // ends in ":"
	stop       bool // ends in a comma, full stop or the like: a clause ends
	quoted     bool // has a double quote: a key or a string of JSON, which pairs reads
}

// words appends to out the words of s, cut at spaces, from s[from] on,
// until out is full.
func words(out []word, s string, from int) []word {
	for i := from; i < len(s) && len(out) < cap(out); {
		if isSpace(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !isSpace(s[j]) {
			j++
		}
		raw := s[i:j]
		core := strings.TrimLeft(raw, `"'¿¡(«`)
		trimmed := strings.TrimRight(core, `"'.,;:!?)»`)
		tail := core[len(trimmed):]
		w := word{start: i, end: j, core: lower(trimmed),
			colon: strings.Contains(tail, ":"), stop: strings.ContainsAny(tail, ".,;!?"), quoted: strings.Contains(raw, `"`)}
		if w.core == "" && (raw == ":" || raw == "=") {
			w.core = raw // a lone ":" links a name to its value
		}
		out = append(out, w)
		i = j
	}
	return out
}

// lower is strings.ToLower, without a copy for a word of ASCII letters
// that starts with a capital: most capitals start a sentence.
func lower(w string) string {
	if len(w) > 1 && w[0] >= 'A' && w[0] <= 'Z' && !hasNonASCII(w) && strings.ToLower(w[1:]) == w[1:] {
		if l, ok := lowered[w]; ok {
			return l
		}
	}
	return strings.ToLower(w)
}

// lowered are the capitalised words that start a household's sentences
// most often, lower case.
var lowered = map[string]string{"The": "the", "My": "my", "Our": "our", "Der": "der", "Die": "die", "Das": "das",
	"Mein": "mein", "Unser": "unser", "El": "el", "La": "la", "Mi": "mi", "Le": "le", "Mon": "mon", "Notre": "notre"}

// wordsBefore is where the nth word before s[i] starts, or where the
// first word starts when there are fewer.
func wordsBefore(s string, i, n int) int {
	for ; n > 0 && i > 0; n-- {
		j := i
		for j > 0 && isSpace(s[j-1]) {
			j--
		}
		if j == 0 {
			break
		}
		for j > 0 && !isSpace(s[j-1]) {
			j--
		}
		i = j
	}
	return i
}

// mayName reports, cheaply, whether raw, a word as written, may name a
// secret (nameAt decides): most words are passed over without a copy.
func mayName(raw string) bool {
	if strings.Contains(raw, `"`) {
		return false
	}
	core := strings.TrimRight(strings.TrimLeft(raw, `'¿¡(«`), `'.,;:!?)»`)
	if len(core) < 3 || len(core) > 40 {
		return false
	}
	if hasNonASCII(core) {
		if core = strings.ToLower(core); len(core) > 40 {
			return false
		}
	}
	var buf [40]byte
	for i := 0; i < len(core); i++ {
		buf[i] = core[i]
		if c := core[i]; c >= 'A' && c <= 'Z' {
			buf[i] = c | 0x20
		}
	}
	w := buf[:len(core)]
	if _, ok := secretNames[string(w)]; ok || string(w) == "passe" {
		return true
	}
	for _, c := range compoundNames {
		if len(w) > len(c.suffix) && string(w[len(w)-len(c.suffix):]) == c.suffix {
			return true
		}
	}
	return false
}

// namedWindow is how many words, from wordsAhead before a secret's name,
// hold its name, what it belongs to, its verb and its value.
const namedWindow = 24

// wordsAhead is how many words before a secret's name are read: a value
// said first, its verb, an article and two words naming what the secret
// is for ("4711 is the front door code"), and "mot de" before "passe".
const wordsAhead = 7

// nameAt is the kind of the secret named at ws[i] and the part of a
// compound before the name ("tür" of "Türcode"); 0 for none.
func nameAt(ws []word, i int) (nameKind, string) {
	if ws[i].quoted {
		return 0, ""
	}
	w := ws[i].core
	if w == "passe" { // "mot de passe"
		if i >= 2 && ws[i-2].core == "mot" && ws[i-1].core == "de" {
			return anyValue, ""
		}
		return 0, ""
	}
	if k, ok := secretNames[w]; ok {
		return k, ""
	}
	for _, c := range compoundNames {
		if len(w) > len(c.suffix) && strings.HasSuffix(w, c.suffix) {
			return c.kind, strings.TrimSuffix(w[:len(w)-len(c.suffix)], "-")
		}
	}
	return 0, ""
}

// named puts placeholders for the values of the secrets named in s that
// the password and code patterns leave, and adds their kinds to kinds.
func (r *Redactor) named(s string, kinds []Kind) (string, []Kind) {
	type cut struct{ start, end int }
	var cuts []cut
	for p := 0; p < len(s); {
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		q := p
		for q < len(s) && !isSpace(s[q]) {
			q++
		}
		if q == p || !mayName(s[p:q]) {
			p = q
			continue
		}
		from := wordsBefore(s, p, wordsAhead)
		var buf [namedWindow]word
		ws := words(buf[:0], s, from)
		i := slices.IndexFunc(ws, func(w word) bool { return w.start == p })
		if start, end := namedValue(s, ws, i); start >= 0 && (len(cuts) == 0 || start >= cuts[len(cuts)-1].end) {
			cuts = append(cuts, cut{start, end})
			if end > q { // and on to the end of the value's word, when it follows the name
				q = end
				for q < len(s) && !isSpace(s[q]) {
					q++
				}
			}
		}
		p = q
	}
	if len(cuts) == 0 {
		return s, kinds
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for _, c := range cuts {
		b.WriteString(s[last:c.start])
		b.WriteString(r.placeholder(Secret, s[c.start:c.end]))
		kinds = append(kinds, Secret)
		last = c.end
	}
	b.WriteString(s[last:])
	return b.String(), kinds
}

// namedValue reads a secret named at ws[i]: where its value starts and
// ends in s; -1s for none.
func namedValue(s string, ws []word, i int) (start, end int) {
	kind, prefix := nameAt(ws, i)
	if kind == 0 {
		return -1, -1
	}
	network := networkWords[prefix] || i > 0 && networkWords[ws[i-1].core]
	notSecret := notSecretCompounds[prefix] || notSecretCodeParts[prefix] || notSecretCodes[prefix] || i > 0 && (notSecretCodes[ws[i-1].core] || notSecretCodeParts[ws[i-1].core])
	j := i + 1
	for n := 0; n < 2 && j < len(ws) && !ws[j-1].stop && !ws[j-1].colon && nameAdjectives[ws[j].core]; n++ {
		network = network || networkWords[ws[j].core]
		j++
	}
	// What the secret belongs to: none, or a word of ofWords (or an
	// elided "d'", "l'") and up to maxOwner words after it.
	ends := []int{j}
	if j < len(ws) && !ws[j-1].stop && !ws[j-1].colon && startsOwner(ws[j].core) {
		for k := j + 1; k <= j+maxOwner+1 && k <= len(ws); k++ {
			ends = append(ends, k)
			if ws[k-1].stop || ws[k-1].colon {
				break
			}
		}
	}
	for _, e := range ends {
		owner := ws[j:e]
		net, not := network, notSecret
		for _, w := range owner {
			net = net || networkWords[w.core] || networkWords[strings.TrimPrefix(strings.TrimPrefix(w.core, "l'"), "d'")]
			not = not || notSecretCodeParts[w.core] || notSecretCodes[w.core]
		}
		if kind == digitValue && not || kind == wifiValue && !net {
			continue
		}
		k := kind
		if net {
			k = anyValue
		}
		// Main order: name, owner, "is", value; or "name:" value.
		if v := e; e > i && (ws[e-1].colon || v < len(ws) && isWords[ws[v].core]) {
			if !ws[e-1].colon {
				v++
			}
			if v < len(ws) {
				if start, end := namedValueAt(s, ws[v].start, k); start >= 0 && !pastTalk(ws[v-1].core, s[ws[v].start:end]) {
					return start, end
				}
			}
		}
		// A German clause after "dass": name, owner, value, "ist".
		if v := e; v+1 < len(ws) && !ws[v].stop && lastIsWords[ws[v+1].core] && (ws[v+1].stop || lastWord(s, ws[v+1])) && !isWords[ws[v].core] {
			if start, end := namedValueAt(s[:ws[v].end], ws[v].start, k); start >= 0 && !pastTalk(ws[v+1].core, s[ws[v].start:end]) {
				return start, end
			}
		}
		// The value first: value, "is", the name and owner ending the
		// sentence.
		if e > i && (ws[e-1].stop || lastWord(s, ws[e-1])) {
			if start, end := valueFirst(s, ws, i, k, false, sentenceEnds(s, ws[e-1])); start >= 0 {
				return start, end
			}
		}
		// And in a German clause after "dass": "dass hunter2 das
		// WLAN-Passwort ist".
		if v := e; v < len(ws) && !ws[e-1].stop && !ws[e-1].colon && lastIsWords[ws[v].core] && (ws[v].stop || lastWord(s, ws[v])) {
			if start, end := valueFirst(s, ws, i, k, true, sentenceEnds(s, ws[v]) && !pastIsWords[ws[v].core]); start >= 0 {
				return start, end
			}
		}
	}
	return -1, -1
}

// pastIsWords are the words of isWords in the past.
var pastIsWords = map[string]bool{"was": true, "war": true, "era": true, "était": true, "etait": true}

// pastTalk reports whether raw, a value as written (its quotes included)
// after a secret's name and verb, is talk about the secret rather than
// its value: after a verb in the past ("the password was annoying to
// type", "das Passwort war nervig") a word of lower-case letters alone
// describes the secret. A value said in the past that looks like one (a
// digit, a mark, a capital: "was hunter2", "was Swordfish") or is quoted
// is hidden still; a plain lower-case word is not, a trade made knowingly
// ("my old password was swordfish" is kept), where after "is" any word is
// the value.
func pastTalk(verb, raw string) bool {
	if !pastIsWords[verb] || raw == "" {
		return false
	}
	for _, r := range raw {
		if !unicode.IsLower(r) {
			return false
		}
	}
	return true
}

// firstIsWords link a value said first to the secret's name after them:
// "hunter2 is the wifi password", "hunter2 ist das WLAN-Passwort",
// "hunter2 es la contraseña", "hunter2 est le mot de passe".
var firstIsWords = map[string]bool{"is": true, "was": true, "ist": true, "war": true, "es": true, "era": true,
	"est": true, "était": true, "etait": true}

// nameArticles may stand between a value said first, its verb and the
// secret's name: "is the", "ist das", "es la", "est le", "is our".
var nameArticles = map[string]bool{"the": true, "my": true, "our": true, "der": true, "die": true, "das": true,
	"mein": true, "meine": true, "unser": true, "unsere": true, "el": true, "la": true, "mi": true, "nuestro": true,
	"nuestra": true, "le": true, "mon": true, "ma": true, "notre": true}

// clauseStarts may come right before a value said first: "remember that
// hunter2 is the wifi password", "recuerda que 4711 es ...".
var clauseStarts = map[string]bool{"that": true, "dass": true, "que": true}

// valueFirst reads a secret whose name starts at ws[i] (or two words
// before, at "mot de passe") with its value said first: one word that
// starts the sentence or a clause and looks like a secret (a digit, or no
// plain word: a mark or a capital inside), then "is", an article and up
// to two words naming what the secret is for; in a German clause
// (verbLast), "dass", the value, an article and the name, its verb after
// them. When ended (the sentence ends with the name and what it is for,
// no question, and a German clause's verb is no past one), the sentence
// or clause is the value, the verb and the name alone, and a plain word
// is the value too ("swordfish is the wifi password"), unless it is a
// word that stands there as no value ("this", "hier", "esto", "ceci").
// Where the value starts and ends in s; -1s for none.
func valueFirst(s string, ws []word, i int, k nameKind, verbLast, ended bool) (start, end int) {
	j := i - 1
	if ws[i].core == "passe" {
		j = i - 3
	}
	for n := 0; n < 2 && j >= 0 && plainModifier(ws[j]); n++ {
		j--
	}
	if j >= 0 && nameArticles[ws[j].core] && !ws[j].stop && !ws[j].colon {
		j--
	}
	if verbLast {
		if j < 1 || ws[j-1].core != "dass" {
			return -1, -1
		}
		j++ // as if a verb followed the value
	} else if j < 1 || !firstIsWords[ws[j].core] || ws[j].stop || ws[j].colon {
		return -1, -1
	}
	v := ws[j-1]
	if v.stop || v.colon || v.quoted {
		return -1, -1
	}
	if j-1 > 0 {
		if w := ws[j-2]; !w.stop && !w.colon && !clauseStarts[w.core] {
			return -1, -1
		}
	} else if before := strings.TrimRight(s[:v.start], " \t\r\n"); before != "" && !strings.ContainsAny(before[len(before)-1:], ".!?,;:\n") {
		return -1, -1
	}
	start, end = namedValueAt(s[:v.end], v.start, k)
	if start < 0 || strings.TrimRight(s[end:v.end], `"'.,;:!?)»`) != "" {
		return -1, -1
	}
	plain := ended && (verbLast || !pastIsWords[ws[j].core]) && !notValuesFirst[strings.ToLower(s[start:end])]
	if !plain && !secretLooking(s[start:end]) {
		return -1, -1
	}
	return start, end
}

// notValuesFirst are words that stand before "is" and a secret's name as
// no value: pronouns, question words and words that point at what
// follows ("this is the wifi password", "hier ist das WLAN-Passwort",
// "esta es la contraseña", "ceci est le mot de passe").
var notValuesFirst = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`this that these those it here there below above attached enclosed following
		next first last finally which what who whose where how why mine yours ours his hers theirs nothing something everything anything one none same
		das dies dieses diese der die es hier da dort unten oben anbei folgendes was welches welche welcher wer wie
		meins deins unseres nichts etwas alles
		esto esta este eso esa ese aquello aquella aquel aquí ahí allí abajo arriba adjunta adjunto cuál cual qué que
		quién quien mía mío nuestra nuestro nada algo todo ella él
		ceci cela ça ce voici voilà ici là quel quelle qui quoi lequel laquelle rien tout mien mienne nôtre`) {
		notValuesFirst[w] = true
	}
}

// sentenceEnds reports whether w, the word the name of a secret said
// after its value ends with, ends the sentence: with a full stop or an
// exclamation mark, or as the last word; not with a question mark, nor
// with a comma and more to come.
func sentenceEnds(s string, w word) bool {
	raw := strings.TrimRight(s[w.start:w.end], `"')»`)
	switch {
	case strings.HasSuffix(raw, "."), strings.HasSuffix(raw, "!"):
		return true
	case raw != "" && strings.ContainsAny(raw[len(raw)-1:], "?,;:"):
		return false
	}
	return lastWord(s, w)
}

// plainModifier reports whether w may be a word before a secret's name
// that says what it is for ("door", "email", "wifi"): a plain word, no
// article, verb or word of talk about a secret ("not", "nicht").
func plainModifier(w word) bool {
	if w.stop || w.colon || w.quoted || w.core == "" || isWords[w.core] || nameArticles[w.core] || notSecretWords[w.core] {
		return false
	}
	for _, r := range w.core {
		if !unicode.IsLetter(r) && r != '-' {
			return false
		}
	}
	return true
}

// secretLooking reports whether v, a word said before a secret's name,
// looks like a secret rather than a word of the sentence: it holds a
// digit, a mark, or a capital after its first letter.
func secretLooking(v string) bool {
	for i, r := range v {
		if unicode.IsDigit(r) || !unicode.IsLetter(r) || i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// lastWord reports whether w is the last word of s.
func lastWord(s string, w word) bool {
	return strings.TrimRight(s[w.end:], " \t\n\r\f") == ""
}

// startsOwner reports whether w starts what a secret belongs to.
func startsOwner(w string) bool {
	if ofWords[w] {
		return true
	}
	for _, elided := range []string{"d'", "d’", "l'", "l’"} {
		if len(w) > len(elided) && strings.HasPrefix(w, elided) {
			return true
		}
	}
	return false
}

// namedValueAt reads the value of a secret of kind k at s[p]: where it starts
// and ends, its quotes left around it; -1s when what is there is talk
// about a secret ("falsch", "la misma"), a placeholder, or, for a code,
// holds no digit.
func namedValueAt(s string, p int, k nameKind) (start, end int) {
	if k == digitValue {
		if end := codeValue(s, p); end >= 0 {
			trimmed := strings.TrimRight(s[p:end], " \t\n-")
			return p, p + len(trimmed)
		}
	}
	loc := valueAnchored.FindStringSubmatchIndex(s[p:])
	if loc == nil {
		return -1, -1
	}
	quoted := s[p+loc[2] : p+loc[3]]
	body := strings.TrimRight(quoted, `\"'`)
	value := strings.TrimLeft(body, `\"'`)
	if value == "" || strings.HasPrefix(value, "[") || notSecretWords[strings.ToLower(value)] {
		return -1, -1
	}
	if k == digitValue && !strings.ContainsFunc(value, unicode.IsDigit) {
		return -1, -1
	}
	start = p + len(quoted) - len(strings.TrimLeft(quoted, `\"'`))
	return start, start + len(value)
}

// NamesSecret reports whether s names a household secret, in English,
// German, Spanish or French: a password, a code, a PIN, a combination, a
// network's key ("what is the wifi password", "wie ist der Türcode",
// "cuál es la contraseña del wifi", "quel est le code de la porte"). A
// remembered secret is said back only to a question that names one.
func NamesSecret(s string) bool {
	ws := words(make([]word, 0, 32), s, 0)
	network := slices.ContainsFunc(ws, func(w word) bool { return networkWords[w.core] })
	for i := range ws {
		switch kind, prefix := nameAt(ws, i); {
		case kind == anyValue, kind == digitValue && !notSecretCompounds[prefix] && !notSecretCodeParts[prefix]:
			return true
		case kind == wifiValue && (network || networkWords[prefix]):
			return true
		}
	}
	return false
}
