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
		changed[param(Place)] = Titled(strings.Join(rest[1:], " "))
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
// city?"), as that place: "Paris", "in Berlin", "en París".
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
	words := strings.Fields(utterance.Normalize(said))
	if len(words) > 1 && slices.Contains(l.FollowUp().Place, words[0]) {
		words = words[1:]
	}
	whole := strings.Join(words, " ")
	if len(words) == 0 || len(words) > 3 || hasDigit(words) || slices.Contains(wholeWords[l], whole) || slices.Contains(wholeWords[locale.English], whole) {
		return Route{}, false // "no", "thanks": no city
	}
	return Route{Command: last.cmd, Claim: Claim{Arguments: merge(last.args, Args{awaiting: Titled(strings.Join(words, " "))})}, Refine: true}, true
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
