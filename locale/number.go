package locale

import (
	"slices"
	"strconv"
	"strings"

	"github.com/harkbox/hark/locale/utterance"
)

// numeral is how one language writes numbers in words.
type numeral struct {
	// values of the simple words; multipliers are 100 and 1000 in mult.
	values map[string]int
	mult   map[string]int
	// joiners stand between tens and units: "treinta y dos", "vingt et un".
	joiners []string
	// compound reads a number written as one word ("dreiundzwanzig").
	compound func(w string) (int, bool)
	// decimal is the word for the decimal point.
	decimal []string
}

// digitsFor rewrites the numbers said in words, but for the articles that
// are not numbers there, in a normalized utterance
// as digits: "zwölf mal vier" becomes "12 mal 4", "vingt et un" becomes
// "21", "dos coma cinco" becomes "2.5". Numbers written with a decimal
// comma ("2,5") get a point, and thousands separated by points ("1.500")
// lose them.
func (n numeral) digitsFor(words []string, article func(i int) bool) []string {
	var out []string
	for i := 0; i < len(words); {
		v, k, ok := n.read(words[i:])
		if ok && k == 1 && article(i) {
			ok = false
		}
		if !ok {
			out = append(out, decimalComma(words[i]))
			i++
			continue
		}
		s := strconv.Itoa(v)
		i += k
		if i+1 < len(words) && slices.Contains(n.decimal, words[i]) {
			if f, m, ok := n.read(words[i+1:]); ok && m == 1 {
				s += "." + strconv.Itoa(f)
				i += 2
			}
		}
		out = append(out, s)
	}
	return out
}

// decimalComma turns "2,5" into "2.5" and "1.500" into "1500".
func decimalComma(w string) string {
	if !strings.ContainsAny(w, "0123456789") {
		return w
	}
	if a, b, ok := strings.Cut(w, ","); ok && utterance.IsDigits(a) && utterance.IsDigits(b) && len(b) != 3 {
		return a + "." + b
	}
	parts := strings.Split(w, ".")
	if len(parts) > 1 && utterance.IsDigits(parts[0]) && len(parts[0]) <= 3 {
		for _, p := range parts[1:] {
			if len(p) != 3 || !utterance.IsDigits(p) {
				return w
			}
		}
		return strings.Join(parts, "")
	}
	return w
}

// word is the value of one word, and whether it multiplies.
func (n numeral) word(w string) (v int, mult bool, ok bool) {
	if m, ok := n.mult[w]; ok {
		return m, true, true
	}
	if v, ok := n.values[w]; ok {
		return v, false, true
	}
	if n.compound != nil {
		if v, ok := n.compound(w); ok {
			return v, false, true
		}
	}
	return 0, false, false
}

// read reads one number at the start of words and returns it with the
// words it took.
func (n numeral) read(words []string) (int, int, bool) {
	total, cur, last, used := 0, 0, 0, 0
	for i := 0; i < len(words); i++ {
		w := words[i]
		if used > 0 && slices.Contains(n.joiners, w) && last >= 20 && last%10 == 0 && i+1 < len(words) {
			if v, mult, ok := n.word(words[i+1]); ok && !mult && v < 10 {
				cur += v
				last, used, i = v, i+2, i+1
				continue
			}
			break
		}
		v, mult, ok := n.word(w)
		if !ok {
			break
		}
		switch {
		case mult && v == 1000:
			total += max(cur, 1) * 1000
			cur, last = 0, 1000
		case mult:
			cur = max(cur, 1) * v
			last = v
		case used == 0:
			cur, last = v, v
		case v == 20 && last == 4 && cur%100 == 4: // quatre-vingt
			cur += 76
			last = 80
		case fits(last, v):
			cur += v
			last = v
		default:
			i = len(words) // a second number: stop before it
			continue
		}
		used = i + 1
	}
	if used == 0 {
		return 0, 0, false
	}
	return total + cur, used, true
}

// fits reports whether v can follow last within one number: units after
// tens, anything below a hundred after hundreds, 10 to 19 after sixty and
// eighty (French "soixante-dix", "quatre-vingt-douze").
func fits(last, v int) bool {
	switch {
	case last >= 100:
		return v < last
	case last == 60 || last == 80:
		return v < 20
	case last >= 20 && last%10 == 0:
		return v < 10
	case last == 10:
		return v >= 7 && v <= 9 // "dix-sept"
	}
	return false
}

// germanCompound reads a German number written as one word:
// "dreiundzwanzig", "zweihundertfünfzig", "eintausend".
func germanCompound(w string) (int, bool) {
	if w == "" {
		return 0, false
	}
	for _, m := range []struct {
		word string
		v    int
	}{{"tausend", 1000}, {"hundert", 100}} {
		if i := strings.Index(w, m.word); i >= 0 {
			left, right := w[:i], strings.TrimPrefix(w[i+len(m.word):], "und")
			l := 1
			if left != "" && left != "ein" {
				var ok bool
				if l, ok = germanSmall(left); !ok {
					return 0, false
				}
			}
			r := 0
			if right != "" {
				var ok bool
				if r, ok = germanCompound(right); !ok {
					return 0, false
				}
			}
			return l*m.v + r, true
		}
	}
	return germanSmall(w)
}

// germanSmall reads 1 to 99.
func germanSmall(w string) (int, bool) {
	if v, ok := germanValues[w]; ok {
		return v, true
	}
	if w == "ein" {
		return 1, true
	}
	if u, t, ok := strings.Cut(w, "und"); ok {
		uv, ok1 := germanValues[u]
		if u == "ein" {
			uv, ok1 = 1, true
		}
		tv, ok2 := germanValues[t]
		if ok1 && ok2 && uv < 10 && tv >= 20 && tv%10 == 0 && tv < 100 {
			return tv + uv, true
		}
	}
	return 0, false
}

// ReadNumber reads a number said in words in l at the start of words
// ("fünfundzwanzig", "vingt et un", "twenty five"; digits too) and returns
// it with the count of words it took. Articles are not read as one in
// English ("a", "an"); in the other languages one is said as its article
// ("eine", "une", "una") and is read.
func (l Lang) ReadNumber(words []string) (float64, int, bool) {
	if len(words) == 0 {
		return 0, 0, false
	}
	b, ok := books[l]
	if !ok {
		switch words[0] {
		case "a", "an", "single", "couple", "dozen", "half", "quarter", "minus", "negative", "oh", "nought":
			return 0, 0, false
		}
		return utterance.Number(words)
	}
	if v, err := strconv.ParseFloat(decimalComma(words[0]), 64); err == nil {
		return v, 1, true
	}
	v, n, ok := b.numeral.read(words)
	return float64(v), n, ok
}

// One reports whether a word said in l is one: the number, or the article
// that says it before a noun ("ein Pfund", "in einem Liter", "una libra",
// "a pound").
func (l Lang) One(w string) bool {
	w = strings.ToLower(w)
	if b, ok := books[l]; ok && slices.Contains(b.articles, w) {
		return true
	}
	if l == English && (w == "a" || w == "an") {
		return true
	}
	v, n, ok := l.ReadNumber([]string{w})
	return ok && n == 1 && v == 1
}
