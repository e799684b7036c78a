package builtin

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/command"
)

// The built-ins carry out Hark's own intents (templates/<lang>/ in
// locale/intent, named as the commands) and Home Assistant's that are the
// speaker's own (timers, the time, the volume, nevermind). A slot said as a
// quantity is read from the user's language into English (l.Quantities)
// and then by the same readers the model's arguments go through; whatever
// a reader does not take whole is not carried out offline.

// english is a slot's words read into English quantities, normalized.
func english(m command.Match, slot string) string {
	return strings.TrimSpace(m.Lang.Quantities(m.String(slot)))
}

// number reads a number that is all of a slot's words.
func number(m command.Match, slot string) (float64, error) {
	if v, ok := m.Slots[slot].Value.(float64); ok {
		return v, nil
	}
	words := utterance.Words(english(m, slot))
	v, n, ok := utterance.Number(words)
	if !ok || n != len(words) {
		return 0, command.Unresolved(slot, "not a number")
	}
	return v, nil
}

// readsWhole runs a reader of an English utterance on the one the slots
// make, and takes its claim.
func readsWhole(read func(string) (command.Claim, bool), text, slot string) (command.Claim, error) {
	c, ok := read(utterance.Expand(text))
	if !ok {
		return command.Claim{}, command.Unresolved(slot, "not read: "+text)
	}
	return c, nil
}

// whenWords are the words a time and day said for an alarm may use
// besides the clock time itself.
var whenWords = []string{"on", "every", "at", "for", "the", "and", "this", "next", "today", "tomorrow", "tonight", "day",
	"days", "daily", "weekdays", "weekday", "weekends", "weekend", "morning", "afternoon", "evening", "night", "am", "pm",
	"in", "of", "week", "working", "work", "except"}

// onlyWhen reports whether every word of an alarm's when is a clock time
// or a word of days: nothing else hides in it.
func onlyWhen(text string) bool {
	words := append([]string{"for"}, utterance.Words(text)...) // the template said "for" or "at"
	_, at, n, ok := utterance.FindClock(words, "for", "at", "to")
	if !ok {
		return false
	}
	after, afterN := dayAfterTomorrow(words)
	for i, w := range words {
		if i >= at && i < at+n || i >= after && i < after+afterN {
			continue
		}
		if !slices.Contains(whenWords, w) && !isWeekday(w) && !isWeekday(strings.TrimSuffix(w, "s")) {
			return false
		}
	}
	return true
}

func alarmFromIntent(ctx context.Context, m command.Match) (command.Claim, error) {
	when := strings.TrimSpace(m.Lang.WhenSaid(m.String("when")))
	if _, ok := alarmAfter(when); ok {
		return command.Claim{Arguments: map[string]any{"time": when}}, nil
	}
	if !onlyWhen(when) {
		return command.Claim{}, command.Unresolved("when", "not a time: "+when)
	}
	return readsWhole(readAlarm, "set an alarm for "+when, "when")
}

// listFromIntent is list_reminders' claim: the kind asked for and, from
// the templates' own slot, whether the next alarm alone was ("when is my
// next alarm").
func listFromIntent(ctx context.Context, m command.Match) (command.Claim, error) {
	args := map[string]any{}
	if k := m.String("kind"); k != "" {
		args["kind"] = k
	}
	if _, ok := m.Slots["next"]; ok {
		args["next"] = true
	}
	return command.Claim{Arguments: args}, nil
}

func reminderFromIntent(ctx context.Context, m command.Match) (command.Claim, error) {
	rest := m.Lang.Reminder(m.String("rest"))
	if rest == "" {
		return command.Claim{}, command.Unresolved("rest", "no time")
	}
	c, err := readsWhole(readReminder, "remind me "+rest, "rest")
	if err != nil {
		return c, err
	}
	if msg, ok := c.Arguments["message"].(string); ok {
		c.Arguments["message"] = asSaid(m.String("rest"), msg) // as said: "Mom", not "mom"
	}
	return c, nil
}

func calculateFromIntent(ctx context.Context, m command.Match) (command.Claim, error) {
	a, err := number(m, "a")
	if err != nil {
		return command.Claim{}, err
	}
	b, err := number(m, "b")
	if err != nil {
		return command.Claim{}, err
	}
	op := m.String("operation")
	if m.Has("swap") {
		a, b = b, a
	}
	if m.Has("then") {
		return twoInARow(m, a, op, b)
	}
	return command.Claim{Arguments: map[string]any{"a": a, "operation": op, "b": b}}, nil
}

// twoInARow is the claim of "a op b then c": the step worked out first is
// done here and the last one is the call, so the step is said. Sums and
// products go left to right, but a product or quotient after a sum goes
// first ("2 plus 3 times 4" is 2 plus 12). A first step that divides by
// zero is the call itself, which says so.
func twoInARow(m command.Match, a float64, op string, b float64) (command.Claim, error) {
	c, err := number(m, "c")
	if err != nil {
		return command.Claim{}, err
	}
	then := m.String("then")
	arith := []string{"add", "subtract", "multiply", "divide"}
	if !slices.Contains(arith, op) || !slices.Contains(arith, then) {
		return command.Claim{}, command.Unresolved("then", "only sums and products are worked out in a row")
	}
	tight := func(op string) bool { return op == "multiply" || op == "divide" }
	call := func(a float64, op string, b float64) command.Claim {
		return command.Claim{Arguments: map[string]any{"a": a, "operation": op, "b": b}}
	}
	if tight(then) && !tight(op) {
		if then == "divide" && c == 0 {
			return call(b, then, c), nil
		}
		return call(a, op, step(b, then, c)), nil
	}
	if op == "divide" && b == 0 {
		return call(a, op, b), nil
	}
	return call(step(a, op, b), then, c), nil
}

// step works out one of the four operations.
func step(a float64, op string, b float64) float64 {
	switch op {
	case "add":
		return a + b
	case "subtract":
		return a - b
	case "multiply":
		return a * b
	}
	return a / b
}

// unitOf reads a unit said in the user's language.
func unitOf(m command.Match, slot string) (*unit, error) {
	name, ok := m.Lang.UnitName(m.String(slot))
	if !ok {
		return nil, command.Unresolved(slot, "not a unit")
	}
	u, err := findUnit(name)
	if err != nil {
		return nil, command.Unresolved(slot, err.Error())
	}
	return u, nil
}

func convertFromIntent(ctx context.Context, m command.Match) (command.Claim, error) {
	v := 1.0
	if m.Has("value") {
		words := utterance.Words(english(m, "value"))
		if len(words) == 1 && m.Lang.One(words[0]) {
			v = 1 // "a pound", "ein Pfund", "una libra", "une livre"
		} else {
			var err error
			if v, err = number(m, "value"); err != nil {
				return command.Claim{}, err
			}
		}
	}
	from, err := unitOf(m, "from_unit")
	if err != nil {
		return command.Claim{}, err
	}
	to, err := unitOf(m, "to_unit")
	if err != nil {
		return command.Claim{}, err
	}
	if from.category != to.category || from == to {
		return command.Claim{}, command.Unresolved("to_unit", "units of different kinds")
	}
	return command.Claim{Arguments: map[string]any{"value": v, "from_unit": from.code, "to_unit": to.code}}, nil
}

func volumeFromIntent(ctx context.Context, m command.Match) (command.Claim, error) {
	switch m.Intent {
	case "HassSetVolume":
		if !m.Slots["area"].FromContext || m.Has("name") {
			return command.Claim{}, command.ErrNotMine
		}
		v, _ := m.Number("volume_level")
		return command.Claim{Arguments: map[string]any{"action": "set", "level": v}}, nil
	}
	args := map[string]any{"action": m.String("action")}
	if m.Has("level") {
		v, err := number(m, "level")
		if err != nil {
			return command.Claim{}, err
		}
		args["level"] = scaleLevel(v, m.Has("percent"))
		if v > 100 {
			args["level"] = int(v) // past the top: said so, not set to it
		}
	}
	return command.Claim{Arguments: args}, nil
}

func cancelReminderFromIntent(ctx context.Context, m command.Match) (command.Claim, error) {
	args := map[string]any{"kind": m.String("kind")}
	if m.Has("all") {
		args["all"] = true
	}
	if m.Has("which") {
		w := m.String("which")
		if args["kind"] == "alarm" {
			w = strings.TrimPrefix(strings.TrimSpace(m.Lang.WhenSaid(w)), "at ")
			if _, err := parseClock(w); err != nil {
				if _, ok := readAlarmWhich(w); !ok {
					return command.Claim{}, command.Unresolved("which", "not a time or days: "+w)
				}
			}
		}
		args["which"] = w
	}
	return command.Claim{Arguments: args}, nil
}

// giveTimer starts the timer that "gib dem Eier Timer 2 Minuten" names
// when it does not run (adjust_timer adds to it when it does).
func giveTimer(ctx context.Context, s Schedule, m command.Match) (command.Claim, error) {
	name := timerName(m.Lang, m.String("name"))
	if runs, err := timerRuns(ctx, s, name); err != nil || runs {
		return command.Claim{}, command.ErrNotMine
	}
	d, err := timeBy(m)
	if err != nil {
		return command.Claim{}, err
	}
	args := map[string]any{"duration": d}
	if name != "" {
		args["name"] = name
	}
	return command.Claim{Arguments: args}, nil
}

// leadingDuration splits a length said before a timer's name ("5 Minuten
// Eier") from it: the longest run of leading words that is a length, and
// the words after it; zero when the name does not start with one.
func leadingDuration(l locale.Lang, name string) (time.Duration, string) {
	words := strings.Fields(name)
	for k := min(len(words)-1, 4); k >= 1; k-- {
		en := utterance.Words(strings.TrimSpace(l.Quantities(strings.Join(words[:k], " "))))
		if d, n, ok := utterance.Duration(en); ok && n == len(en) && d > 0 {
			return d, timerName(l, strings.Join(words[k:], " "))
		}
	}
	return 0, name
}

func setTimerFromIntent(ctx context.Context, m command.Match) (command.Claim, error) {
	if m.Intent == "set_timer" && !m.Has("duration") && durationOf(m, "") == 0 { // "set a timer": the length is asked
		args := map[string]any{}
		name := timerName(m.Lang, m.String("name"))
		if d, rest := leadingDuration(m.Lang, name); d > 0 { // "einen 5 Minuten Eier Timer"
			args["duration"], name = d, rest
		}
		if slices.ContainsFunc(utterance.Words(m.Lang.Quantities(name)), isTimeUnit) { // "add a minute to the pasta timer" adds to it
			return command.Claim{}, command.Unresolved("name", "a length, not a name: "+name)
		}
		if name != "" {
			args["name"] = name
		}
		return command.Claim{Arguments: args}, nil
	}
	if m.Intent == "HassStartTimer" || !m.Has("duration") {
		return haTimer(m) // the length in Home Assistant's slots
	}
	if noTime(utterance.Words(english(m, "duration"))) { // "0 minutes": the length is asked
		return command.Claim{Arguments: named(m)}, nil
	}
	text := "set a timer for " + english(m, "duration")
	if m.Has("name") {
		text = "set a timer called " + english(m, "name") + " for " + english(m, "duration")
	}
	c, err := readsWhole(readSetTimer, text, "duration")
	if err != nil {
		return c, err
	}
	// The whole of the duration must be one.
	if d, n, ok := utterance.Duration(utterance.Words(english(m, "duration"))); !ok || n != len(utterance.Words(english(m, "duration"))) || d <= 0 {
		return command.Claim{}, command.Unresolved("duration", "not a duration")
	}
	if m.Has("name") {
		c.Arguments["name"] = timerName(m.Lang, m.String("name"))
	}
	return c, nil
}

// isTimeUnit reports whether w, an English word, is a unit of a timer's
// length.
func isTimeUnit(w string) bool {
	switch w {
	case "second", "seconds", "minute", "minutes", "hour", "hours":
		return true
	}
	return false
}

func haTimer(m command.Match) (command.Claim, error) {
	if m.Has("conversation_command") {
		// A command to run when the time is up: not something the box does.
		return command.Claim{}, command.Unresolved("conversation_command", "delayed commands are not carried out")
	}
	d := durationOf(m, "")
	if d <= 0 && (m.Has("hours") || m.Has("minutes") || m.Has("seconds")) { // "0 minutes": the length is asked
		return command.Claim{Arguments: named(m)}, nil
	}
	if d <= 0 {
		return command.Claim{}, command.Unresolved("minutes", "no length")
	}
	if f := strings.Fields(strings.ToLower(m.String("name"))); len(f) > 0 && slices.Contains(giveVerbs[m.Lang], f[0]) {
		return command.Claim{}, command.Unresolved("name", "a verb, not a name: "+m.String("name"))
	}
	args := map[string]any{"duration": d}
	if n := timerName(m.Lang, m.String("name")); n != "" {
		args["name"] = n
	}
	return command.Claim{Arguments: args}, nil
}

// noTime reports whether words are a length of no time at all, all of
// them: "0 minutes", "zero seconds".
func noTime(words []string) bool {
	v, n, ok := utterance.Number(words)
	if !ok || v != 0 || n >= len(words) {
		return false
	}
	one := append([]string{"1"}, words[n:]...)
	_, took, ok := utterance.Duration(one)
	return ok && took == len(one)
}

// named is a timer's name as a match says it, as arguments: none when it
// names none.
func named(m command.Match) map[string]any {
	args := map[string]any{}
	if n := timerName(m.Lang, m.String("name")); n != "" {
		args["name"] = n
	}
	return args
}
