package command

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/intent"
	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/compound"
)

// Lister fills the lists the sentence templates leave to run time: the
// names, areas and floors of the house. The home package's client is one.
type Lister interface {
	// Lists returns the lists by name ("name", "area", "floor"); on an
	// error the lists it could not read are absent.
	Lists(ctx context.Context) (map[string]*intent.List, error)
}

// Match is an intent the offline path matched in what was said, as a
// command's FromIntent receives it.
type Match struct {
	intent.Result
	// Lang is the language it was said in; Said what was said.
	Lang locale.Lang
	Said string
	// Last is the data of the client's last call, when it came within the
	// refine window: what "it" is in "pause it" said right after a timer
	// was set. Nil otherwise.
	Last map[string]any
}

// ErrUnresolved reports a slot a command cannot resolve (a device, a timer
// or a time it does not know): the utterance is not carried out offline.
var ErrUnresolved = errors.New("command: a slot is not resolved")

// Unresolved returns ErrUnresolved, saying which slot and why.
func Unresolved(slot, why string) error { return &unresolved{slot, why} }

type unresolved struct{ slot, why string }

func (u *unresolved) Error() string { return fmt.Sprintf("%v: %s: %s", ErrUnresolved, u.slot, u.why) }
func (u *unresolved) Unwrap() error { return ErrUnresolved }

// freeTextFailed reports an error over a slot of free text (a wildcard):
// the template took words that were not what it wanted there.
func freeTextFailed(res intent.Result, err error) bool {
	var u *unresolved
	if !errors.As(err, &u) {
		return false
	}
	return res.Slots[u.slot].Wildcard
}

// Understood is what the offline path made of an utterance.
type Understood struct {
	// Route is the call to make, when OK.
	Route Route
	OK    bool
	// Intent is the intent matched, if any; Reason says why nothing is
	// carried out when not OK.
	Intent string
	Reason Reason
	// Detail explains the reason, for the log.
	Detail string
}

// Reason is why an utterance is not carried out offline.
type Reason string

// The reasons.
const (
	NoMatch     Reason = "no match"           // no template accounts for every word
	Ambiguous   Reason = "ambiguous"          // two intents match equally well
	Unsupported Reason = "unsupported intent" // no command carries the intent out
	Unresolved_ Reason = "unresolved slot"    // a value is not known
	Compound    Reason = "compound"           // two requests in one
	NoLanguage  Reason = "no templates"       // the language has none
)

// listTimeout bounds reading the house's lists before matching.
const listTimeout = 3 * time.Second

// Understand reads an utterance in language l for the offline path: an
// "and …" follow-up that fills one part of the last call of the client in
// ctx ("und minus 5" after a sum works on its result, which read as a
// refinement would make its number -5), or a refinement of that call,
// else the intent its words match with every word accounted for, carried
// out by the command that declares it. What
// is ambiguous, unsupported, unresolved or two requests in one is not
// carried out; a match whose free text its command cannot read is no
// match, as it is none to Intents.
func (r *Registry) Understand(ctx context.Context, l locale.Lang, text string) Understood {
	if rt, ok := r.andFollowUp(ctx, l, text); ok {
		return Understood{Route: rt, OK: true, Intent: "refine"}
	}
	if rt, ok := r.refinement(ClientOf(ctx).ID, l, text); ok {
		return Understood{Route: rt, OK: true, Intent: "refine"}
	}
	lang, err := intent.Load(string(l))
	if err != nil {
		return Understood{Reason: NoLanguage, Detail: err.Error()}
	}
	o := r.matchOptions(ctx)
	all := lang.RecognizeAll(text, o)
	if len(all) == 0 {
		if rt, ok := r.placeAnswer(ctx, l, text); ok {
			return Understood{Route: rt, OK: true, Intent: "refine"}
		}
		return Understood{Reason: NoMatch}
	}
	if part := r.compoundPart(lang, l, all[0], o); part != "" {
		return Understood{Intent: all[0].Intent, Reason: Compound, Detail: part}
	}
	// The matches as good as the best, less those whose free text their
	// command cannot read: of one intent, the first that resolves (a
	// wildcard split elsewhere); of several intents, only when they come
	// to the same call.
	top := r.best(ctx, l, text, all)
	last := r.lastData(ClientOf(ctx).ID)
	if len(top) == 0 {
		return Understood{Reason: NoMatch}
	}
	u := Understood{Intent: top[0].Intent}
	intents := map[string]bool{}
	for _, res := range top {
		intents[res.Intent] = true
	}
	var chosen *Route
	var firstErr error
	var firstReason Reason
	for _, res := range top {
		rt, reason, err := r.resolve(ctx, Match{Result: res, Lang: l, Said: text, Last: last})
		if reason == Unsupported && len(intents) > 1 {
			continue // no command here does it: not another action
		}
		if err != nil {
			if firstErr == nil {
				firstErr, firstReason = err, reason
			}
			if len(intents) > 1 {
				u.Reason, u.Detail = Ambiguous, fmt.Sprint(keys(intents))
				return u
			}
			continue
		}
		if chosen == nil {
			chosen = &rt
			if len(intents) == 1 {
				break
			}
			continue
		}
		if rt.Command != chosen.Command || fmt.Sprint(rt.Claim.Arguments) != fmt.Sprint(chosen.Claim.Arguments) {
			u.Reason, u.Detail = Ambiguous, fmt.Sprint(keys(intents))
			return u
		}
	}
	if chosen == nil && firstErr == nil {
		u.Reason = Unsupported
		return u
	}
	if chosen == nil {
		u.Reason, u.Detail = firstReason, firstErr.Error()
		return u
	}
	if chosen.Claim.Absent {
		if rt, ok := r.placeSaid(ctx, l, text, top[0], all); ok {
			chosen = &rt
		}
	}
	u.Route, u.OK = *chosen, true
	return u
}

// placeSaid is the call of the best match of absent's intent that says
// the area or floor absent says and names no thing, when it resolves to
// one that is not absent too: the place the user said wins over a name
// that is elsewhere.
func (r *Registry) placeSaid(ctx context.Context, l locale.Lang, text string, absent intent.Result, all []intent.Result) (Route, bool) {
	said := func(res intent.Result, slot string) string {
		s, ok := res.Slots[slot]
		if !ok || s.FromContext {
			return ""
		}
		return fmt.Sprint(s.Value)
	}
	area, floor := said(absent, "area"), said(absent, "floor")
	if area == "" && floor == "" {
		return Route{}, false
	}
	for _, res := range all {
		if res.Intent != absent.Intent || res.Has("name") || said(res, "area") != area || said(res, "floor") != floor {
			continue
		}
		rt, _, err := r.resolve(ctx, Match{Result: res, Lang: l, Said: text})
		if err == nil && !rt.Claim.Absent {
			return rt, true
		}
	}
	return Route{}, false
}

func keys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// resolve finds the command that carries out a match and its call.
func (r *Registry) resolve(ctx context.Context, m Match) (Route, Reason, error) {
	for _, c := range r.handlers(m.Intent) {
		var claim Claim
		var err error
		if c.FromIntent != nil {
			claim, err = c.FromIntent(ctx, m)
		} else {
			claim, err = slotArgs(c, m)
		}
		if errors.Is(err, ErrNotMine) {
			continue
		}
		if err != nil {
			return Route{}, Unresolved_, err
		}
		return Route{Command: c, Claim: claim}, "", nil
	}
	return Route{}, Unsupported, fmt.Errorf("no command carries out %s", m.Intent)
}

// matchOptions are the house's lists and the speaker's area as context.
func (r *Registry) matchOptions(ctx context.Context) intent.Options {
	var o intent.Options
	if r.o.Lists == nil {
		return o
	}
	lctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	lists, err := r.o.Lists.Lists(lctx)
	if err != nil {
		r.log.Warn("house lists not read; matching without them", "err", err)
	}
	o.Lists = lists
	if r.o.Area != "" {
		// The house's own name for the room, else the room as configured.
		o.Context = map[string]any{"area": map[string]any{"value": r.o.Area, "text": r.o.Area}}
		if area := lists["area"]; area != nil {
			if v, ok := area.Find(r.o.Area); ok {
				o.Context = map[string]any{"area": map[string]any{"value": v.Out, "text": v.Text}}
			}
		}
	}
	return o
}

// HouseNames are the house's own names of its devices, rooms and floors,
// normalized, as its lists give them (read as the offline path reads
// them); none without lists.
func (r *Registry) HouseNames(ctx context.Context) []string {
	var out []string
	lists := r.matchOptions(ctx).Lists
	for _, name := range []string{"name", "area", "floor"} {
		if l := lists[name]; l != nil {
			out = append(out, l.Texts()...)
		}
	}
	return out
}

// NamesDevice reports whether text names a device of the house by the
// house's own name, as whole words, in whatever sentence.
func (r *Registry) NamesDevice(ctx context.Context, text string) bool {
	l := r.matchOptions(ctx).Lists["name"]
	return l != nil && l.SaidIn(text)
}

// handlers are the commands that may carry out an intent: those
// declaring it, or the one named as the intent (Hark's own templates name
// commands).
func (r *Registry) handlers(name string) []*Command {
	var out []*Command
	for _, c := range r.Commands() {
		if slices.Contains(c.Intents, name) {
			out = append(out, c)
		}
	}
	if c, ok := r.Lookup(name); ok && c.FromIntent == nil && len(c.Intents) == 0 {
		out = append(out, c)
	}
	return out
}

// compoundPart returns the second request a wildcard swallowed ("add milk
// and turn off the lights"): the part of a wildcard slot after the
// language's "and" that is an intent of its own; "" when there is none.
func (r *Registry) compoundPart(lang *intent.Language, l locale.Lang, best intent.Result, o intent.Options) string {
	for _, s := range best.Slots {
		if !s.Wildcard {
			continue
		}
		parts := compound.Split(s.Text, string(l))
		if len(parts) < 2 || oneDuration(l, parts[0], parts[1]) {
			continue
		}
		if _, _, ok := lang.Recognize(parts[1], o); ok {
			return parts[1]
		}
	}
	return ""
}

// oneDuration reports whether the "and" between left and right joins
// the parts of one length of time ("in 1 hour and 30 minutes", "in an
// hour and a half"): that is one request.
func oneDuration(l locale.Lang, left, right string) bool {
	lw := utterance.Words(l.Quantities(left))
	rw := utterance.Words(l.Quantities(right))
	for k := 1; k <= 3 && k <= len(lw); k++ {
		tail := lw[len(lw)-k:]
		if _, n, ok := utterance.Duration(tail); !ok || n != k {
			continue
		}
		if _, n, ok := utterance.Duration(append(append(slices.Clone(tail), "and"), rw...)); ok && n > k+1 {
			return true
		}
	}
	return false
}

// slotArgs makes a call of a command from the slots of its own intent:
// each slot is the argument of the same name; a value said as a quantity
// (a time, a duration, a day, a number) is read from the language into
// the form the parameter takes, and must be read whole.
func slotArgs(c *Command, m Match) (Claim, error) {
	args := map[string]any{}
	for name, s := range m.Slots {
		i := slices.IndexFunc(c.Parameters, func(p Parameter) bool { return p.Name == name })
		if i < 0 {
			continue // a slot of the template's own, such as a context copy
		}
		p := c.Parameters[i]
		v, err := slotValue(m.Lang, p, s)
		if err != nil {
			return Claim{}, err
		}
		args[name] = v
	}
	// A command that is not the template's own (a node's or a server's
	// tool that shares the intent's name) may want what no slot gives: the
	// model, not the offline path, fills it.
	for _, p := range c.Parameters {
		if _, ok := args[p.Name]; p.Required && !ok {
			return Claim{}, Unresolved(p.Name, "no slot of the template gives it")
		}
	}
	return Claim{Arguments: args}, nil
}

func slotValue(l locale.Lang, p Parameter, s intent.Slot) (any, error) {
	text, isText := s.Value.(string)
	if !isText || !p.Quantity {
		return s.Value, nil
	}
	read := l.Quantities(text)
	if p.ParseSlot != nil {
		v, err := p.ParseSlot(read)
		if err != nil {
			return nil, Unresolved(p.Name, err.Error())
		}
		return v, nil
	}
	return strings.TrimSpace(read), nil
}

// Intents are the intents of the templates what was said matches best,
// carried out or not, for the tool router: what the offline path
// understood tells which tools the model needs.
func (r *Registry) Intents(ctx context.Context, l locale.Lang, text string) []string {
	lang, err := intent.Load(string(l))
	if err != nil {
		return nil
	}
	o := r.matchOptions(ctx)
	var out []string
	for _, res := range r.best(ctx, l, text, lang.RecognizeAll(text, o)) {
		if !slices.Contains(out, res.Intent) && !elsewhere(res, o.Lists) {
			out = append(out, res.Intent)
		}
	}
	return out
}

// placeSlot is the slot Home Assistant's templates fill with a place said
// as free text, a zone ("who is [in] [the] {zone:state}").
const placeSlot = "state"

// elsewhere reports a match whose place, said as free text, is none the
// house's lists name: no zone, room or floor ("who is the president of
// France" is no question about who is where). Such a match tells nothing
// of the request.
func elsewhere(res intent.Result, lists map[string]*intent.List) bool {
	s, ok := res.Slots[placeSlot]
	if !ok || !s.Wildcard {
		return false
	}
	find := func(list string) (intent.Value, bool) {
		if lists[list] == nil {
			return intent.Value{}, false
		}
		return lists[list].Find(s.Text)
	}
	if _, ok := find("area"); ok {
		return false
	}
	if _, ok := find("floor"); ok {
		return false
	}
	v, ok := find("name")
	return !ok || v.Context["domain"] != "zone"
}

// best are the matches as good as the first of all (matches best first),
// less those whose free text their command could not read: such a match
// ("I need to be woken and reminded" as a sum of two things, "set the
// lamp to 50%" as a number "set" of lamps in "50%") tells nothing. When
// none of the best is left, the next best are taken the same way: "füge
// 2 Minuten zum Eier Timer hinzu" fits "füge {by} hinzu" with fewer free
// texts, but only "füge {by} zum {name}timer hinzu" reads.
func (r *Registry) best(ctx context.Context, l locale.Lang, text string, all []intent.Result) []intent.Result {
	last := r.lastData(ClientOf(ctx).ID)
	for len(all) > 0 {
		var out []intent.Result
		n := 0
		for n < len(all) && intent.Compare(all[0], all[n]) == 0 {
			res := all[n]
			n++
			if hasFreeText(res) {
				if _, _, err := r.resolve(ctx, Match{Result: res, Lang: l, Said: text, Last: last}); freeTextFailed(res, err) {
					continue
				}
			}
			out = append(out, res)
		}
		if len(out) > 0 {
			return named(out)
		}
		all = all[n:]
	}
	return nil
}

// named are the matches of out that take no guess at a name (a list
// standing in for the house's names while they cannot be read: see
// intent.Wildcard), when there are any: "stop the pasta timer" is the
// timer's, not a device the house may have called "pasta".
func named(out []intent.Result) []intent.Result {
	sure := slices.DeleteFunc(slices.Clone(out), func(res intent.Result) bool {
		return slices.ContainsFunc(slices.Collect(maps.Values(res.Slots)), func(s intent.Slot) bool { return s.StandIn })
	})
	if len(sure) == 0 {
		return out
	}
	return sure
}

// ToolsFor are the commands the model uses for an intent: those that
// carry it out, or for a hidden one the command it stands for.
func (r *Registry) ToolsFor(name string) []string {
	var out []string
	for _, c := range r.handlers(name) {
		n := c.Name
		if c.Hidden {
			n = c.Alias
		}
		if n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func hasFreeText(res intent.Result) bool {
	for _, s := range res.Slots {
		if s.Wildcard {
			return true
		}
	}
	return false
}

// Decide is the turn's language: locale.Decide with the sentence
// templates read first. Typed text (nothing heard) that the templates of
// exactly one language match is in that language ("welche Timer laufen"
// is German though its few words do not tell the word detector). A
// language speech recognition guessed (guessed: it was not set by the
// household, whisper's "auto") gives way the same way when its own
// templates match nothing while exactly one other language's do: a small
// model often hears a short German question as English. Under a guessed
// language, a follow-up whose words tell no language ("und in Paris?":
// "in" is English too) is in the conversation's: the language of the
// call it follows, ctx's client's last within the refine window, as is
// the answer to a question that call asked ("in Berlin" to "Für welche
// Stadt?"). A language the household set is never overruled, so a box
// set to German answers what it hears in German.
func (r *Registry) Decide(ctx context.Context, heard, text string, fallback locale.Lang, guessed bool) string {
	if r == nil {
		return locale.Decide(heard, text, fallback)
	}
	if heard == "" || guessed && len(r.Intents(ctx, locale.Lang(locale.Decide(heard, "", fallback)), text)) == 0 {
		if l, ok := r.onlyMatch(ctx, text); ok {
			return string(l)
		}
		if said, told := locale.Detect(text); guessed {
			// An answer to the question the last call asked ("in
			// Berlin" to "Für welche Stadt?") is in the question's
			// language though its words may tell another; a
			// follow-up whose words tell the conversation's language
			// ("und in Paris?") is in it whatever recognition guessed.
			if code := r.conversing(ClientOf(ctx).ID); code != "" && (!told || string(said) == code || r.answers(ctx, locale.Lang(code), text)) {
				return code
			}
		}
	}
	return locale.Decide(heard, text, fallback)
}

// answers reports whether text, in l, answers the place the client's last
// call awaits.
func (r *Registry) answers(ctx context.Context, l locale.Lang, text string) bool {
	if _, ok := r.placeAnswer(ctx, l, text); !ok {
		return false
	}
	lang, err := intent.Load(string(l))
	return err == nil && len(lang.RecognizeAll(text, r.matchOptions(ctx))) == 0
}

// conversing is the language of client's conversation: that of its last
// call, when it came within the refine window; "" for none.
func (r *Registry) conversing(client string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.last[client]
	if l == nil || r.o.Now().Sub(l.at) > r.o.RefineWindow {
		return ""
	}
	return l.lang
}

// onlyMatch is the one language whose sentence templates text matches,
// if exactly one does.
func (r *Registry) onlyMatch(ctx context.Context, text string) (locale.Lang, bool) {
	var found []locale.Lang
	for _, l := range locale.All {
		if len(r.Intents(ctx, l, text)) > 0 {
			found = append(found, l)
		}
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}
