package command

import (
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
)

// days are the days an "and …" follow-up names, as l.Quantities gives
// them in any language. The other words of a follow-up are each
// language's (locale.FollowUp).
var days = []string{"today", "tomorrow", "tonight", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// andFollowUp reads a short "and …" said within the refine window as the
// client's last call with one part changed, the call the whole question
// would make: "and in Paris?" after "what's the weather in Berlin". What
// fills no part the last call's command declares is not taken.
func (r *Registry) andFollowUp(client string, l locale.Lang, said string) (Route, bool) {
	r.mu.Lock()
	last := r.last[client]
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
		changed[param(Place)] = Titled(strings.Join(rest[1:], " "))
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
	return Route{Command: last.cmd, Claim: Claim{Arguments: merge(last.args, changed)}, Refine: true}, true
}

func hasDigit(words []string) bool {
	return slices.ContainsFunc(words, func(w string) bool { return strings.ContainsFunc(w, unicode.IsDigit) })
}

// Titled is a place's name as said with capitals: "new york" is "New York".
func Titled(s string) string {
	words := strings.Fields(s)
	for i, w := range words {
		r, n := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToUpper(r)) + w[n:]
	}
	return strings.Join(words, " ")
}
