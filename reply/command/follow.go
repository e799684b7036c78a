package command

import (
	"context"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/utterance"
)

// Follow is the part of a call a short "and …" follow-up changes: "and in
// Paris?" after a weather question, "and times 3?" after a sum.
type Follow int

// The parts an "and …" follow-up fills.
const (
	// Place is a place said after its preposition: "and in Paris?".
	Place Follow = iota + 1
	// Day is a day: "and tomorrow?", "and on Monday?".
	Day
	// Operand is a number said after its operation ("and times 3"); the
	// operation goes to the command's Operator parameter.
	Operand
	Operator
	// Result is the number an operation said after a sum works on: the
	// last call's result ("and times 3" after "3 plus 4" is 7 times 3,
	// as on a calculator).
	Result
	// Amount is a number said alone or with its unit, which goes to the
	// command's Unit parameter: "and 10 miles?" after a conversion.
	Amount
	Unit
	// Target is a unit said after its preposition, to convert to: "and
	// in meters?".
	Target
)

// days are the days an "and …" follow-up names, as l.Quantities gives
// them in any language. The other words of a follow-up are each
// language's (locale.FollowUp).
var days = []string{"today", "tomorrow", "tonight", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// andFollowUp reads a short "and …" said within the refine window as the
// client's last call with one part changed, the call the whole question
// would make: "and in Paris?" after "what's the weather in Berlin". What
// fills no part the last call's command declares, or what its Validate
// rejects ("and in Paris?" after a conversion), is not taken.
func (r *Registry) andFollowUp(ctx context.Context, l locale.Lang, said string) (Route, bool) {
	r.mu.Lock()
	last := r.last[ClientOf(ctx).ID]
	r.mu.Unlock()
	if last == nil || r.o.Now().Sub(last.at) > r.o.RefineWindow {
		return Route{}, false
	}
	words := strings.Fields(utterance.Normalize(said))
	follow := l.FollowUp()
	if len(words) < 2 || len(words) > 5 || !slices.Contains(follow.And, words[0]) {
		return Route{}, false
	}
	rest := words[1:]
	param := func(f Follow) string {
		for _, p := range last.cmd.Parameters {
			if p.Follow == f {
				return p.Name
			}
		}
		return ""
	}
	changed := Args{}
	q := strings.Fields(l.Quantities(strings.Join(rest, " ")))
	if len(q) == 2 && q[0] == "on" {
		q = q[1:]
	}
	switch {
	case len(q) == 1 && slices.Contains(days, q[0]) && param(Day) != "":
		changed[param(Day)] = q[0]
	case len(rest) >= 2 && len(rest) <= 4 && slices.Contains(follow.Place, rest[0]) && param(Place) != "" && !hasDigit(rest[1:]):
		place := rest[1:]
		if pw := placeWords(said); len(pw) > 2 && strings.EqualFold(pw[0], words[0]) && strings.EqualFold(pw[1], rest[0]) {
			place = pw[2:] // as written: "États-Unis"
		}
		changed[param(Place)] = Titled(strings.Join(place, " "))
	case len(rest) >= 2 && slices.Contains(follow.Place, rest[0]) && param(Target) != "":
		if u, ok := l.UnitName(strings.Join(rest[1:], " ")); ok {
			changed[param(Target)] = u
		}
	case param(Amount) != "":
		nums := utterance.Words(l.Quantities(strings.Join(rest, " ")))
		f, n, ok := utterance.Number(nums)
		switch {
		case !ok:
		case n == len(nums):
			changed[param(Amount)] = f
		case param(Unit) != "":
			if u, ok := l.UnitName(strings.Join(nums[n:], " ")); ok {
				changed[param(Amount)], changed[param(Unit)] = f, u
			}
		}
	case param(Operand) != "" && param(Operator) != "":
		text := strings.Join(rest, " ")
		for _, op := range follow.Operations {
			after, ok := strings.CutPrefix(text, op.Said+" ")
			if !ok {
				continue
			}
			nums := utterance.Words(l.Quantities(after))
			if f, n, ok := utterance.Number(nums); ok && n == len(nums) {
				changed[param(Operator)], changed[param(Operand)] = op.Operation, f
				if r, ok := last.data["result"].(float64); ok && param(Result) != "" {
					changed[param(Result)] = r
				}
			}
			break
		}
	}
	if len(changed) == 0 {
		return Route{}, false
	}
	args := merge(last.args, changed)
	if v := last.cmd.Validate; v != nil && slices.ContainsFunc(v(ctx, maps.Clone(args)), func(p Problem) bool {
		return p.Suggest == nil && changed[p.Param] != nil
	}) {
		return Route{}, false
	}
	return Route{Command: last.cmd, Claim: Claim{Arguments: args}, Refine: true}, true
}

// placeAnswer reads a short text that matches no request, said within the
// refine window while the client's last call awaits a place ("For which
// city?"), as that place: "Paris", "in Berlin", "en París", "Frankfurt am
// Main", "San Sebastián de los Reyes". A place of several words holds no
// word a request is built of (see locale.Lang.FrameWord) but the
// particles of place names, and ends on none: "tell me a joke", "who are
// you", "forget it" are no places.
func (r *Registry) placeAnswer(ctx context.Context, l locale.Lang, said string) (Route, bool) {
	r.mu.Lock()
	last := r.last[ClientOf(ctx).ID]
	r.mu.Unlock()
	if last == nil || r.o.Now().Sub(last.at) > r.o.RefineWindow {
		return Route{}, false
	}
	awaiting, _ := last.data["awaiting"].(string)
	i := slices.IndexFunc(last.cmd.Parameters, func(p Parameter) bool { return p.Name == awaiting && p.Follow == Place })
	if awaiting == "" || i < 0 {
		return Route{}, false
	}
	words := placeWords(said)
	if len(words) > 1 && slices.Contains(l.FollowUp().Place, strings.ToLower(words[0])) {
		words = words[1:]
	}
	whole := utterance.Normalize(strings.Join(words, " "))
	if len(words) == 0 || len(words) > 6 || hasDigit(words) || slices.Contains(wholeWords[l], whole) || slices.Contains(wholeWords[locale.English], whole) {
		return Route{}, false // "no", "thanks": no city
	}
	if len(words) > 1 && !placeName(words) {
		return Route{}, false
	}
	return Route{Command: last.cmd, Claim: Claim{Arguments: merge(last.args, Args{awaiting: Titled(strings.Join(words, " "))})}, Refine: true}, true
}

// placeWords are the words of said with the punctuation around them
// dropped, and the hyphens and apostrophes within kept:
// "Saint-Jean-de-Luz".
func placeWords(said string) []string {
	var out []string
	for _, w := range strings.Fields(said) {
		w = strings.TrimFunc(w, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		if w != "" {
			out = append(out, w)
		}
	}
	return out
}

// placeName reports whether words may be a place's name: no word, nor
// part of a hyphenated word, is one a request is built of in any language
// unless it is a particle of names, and the last is no particle.
func placeName(words []string) bool {
	for i, w := range words {
		for _, part := range strings.Split(strings.ToLower(w), "-") {
			if particles[part] {
				if i == len(words)-1 && !strings.Contains(w, "-") {
					return false
				}
				continue
			}
			for _, l := range locale.All {
				if l.FrameWord(part) {
					return false
				}
			}
		}
	}
	return true
}

// NameLike reports whether text may be the name of a place or a thing as
// a household says it ("the kitchen light", "Frankfurt am Main"): no
// digits, and no word a request is built of in any language but the
// particles of names, nor one of those last. Free text taken where a name
// was expected and not NameLike ("a joke", "3 plus 4") is no name.
func NameLike(text string) bool {
	words := placeWords(text)
	return len(words) > 0 && !hasDigit(words) && placeName(words)
}

// particles are the articles, prepositions and conjunctions place names
// hold, in the languages whose names a household may say: "Frankfurt am
// Main", "Rio de Janeiro", "Stratford upon Avon", "The Hague".
var particles = map[string]bool{
	"the": true, "of": true, "on": true, "upon": true, "and": true,
	"am": true, "an": true, "der": true, "den": true, "im": true, "und": true, "von": true, "zu": true, "bei": true,
	"de": true, "du": true, "des": true, "d": true, "la": true, "le": true, "les": true, "sur": true, "en": true, "et": true, "lès": true,
	"del": true, "los": true, "las": true, "el": true, "y": true, "da": true, "do": true, "dos": true, "das": true, "di": true,
}

func hasDigit(words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return strings.ContainsFunc(w, unicode.IsDigit) })
}

// Titled is a place's name as said with capitals: "new york" is "New
// York", "frankfurt am main" "Frankfurt am Main", "saint-jean-de-luz"
// "Saint-Jean-de-Luz": each word and each part of a hyphenated word but
// the particles after the first.
func Titled(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		parts := strings.Split(w, "-")
		for j, p := range parts {
			if (i > 0 || j > 0) && particles[strings.ToLower(p)] {
				continue
			}
			r, n := utf8.DecodeRuneInString(p)
			parts[j] = string(unicode.ToUpper(r)) + p[n:]
		}
		words[i] = strings.Join(parts, "-")
	}
	return strings.Join(words, " ")
}
