package builtin

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/utterance"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// durationOf reads a timer duration from a match's hours, minutes and
// seconds slots (prefix "" for the length to set or add, "start_" for the
// length a timer was started with); zero when none is there.
func durationOf(m command.Match, prefix string) time.Duration {
	var d time.Duration
	for _, u := range []struct {
		slot string
		unit time.Duration
	}{{"hours", time.Hour}, {"minutes", time.Minute}, {"seconds", time.Second}} {
		if v, ok := m.Number(prefix + u.slot); ok {
			d += time.Duration(v * float64(u.unit))
		}
	}
	return d
}

// whichTimer reads how a match names a timer: its name, the length it was
// started with, the room it was set in ("the kitchen timer").
func whichTimer(m command.Match) (map[string]any, error) {
	args := map[string]any{}
	if n := timerName(m.Lang, m.String("name")); n != "" {
		args["name"] = n
	}
	if d := durationOf(m, "start_"); d > 0 {
		args["started"] = d
	}
	if m.Has("area") { // said, or "in here": the speaker's own room
		args["area"] = m.String("area")
	}
	if len(args) == 0 && m.Has("it") {
		lastTimer(m.Last, args)
	}
	return args, nil
}

// lastTimer names, in args, the timer the last call set or changed ("pause
// it" right after "set a timer for 5 minutes"): by its name, else by the
// length it now has. Nothing when the last call was not on a timer.
func lastTimer(last map[string]any, args map[string]any) {
	if _, ok := last["timer_id"].(string); !ok {
		return
	}
	if name, _ := last["name"].(string); name != "" {
		args["name"] = name
		return
	}
	if s, _ := last["duration"].(string); s != "" {
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			args["started"] = d
		}
	}
}

// timeBy reads the time to add or take off: Home Assistant's hours,
// minutes and seconds, or Hark's templates' time as said.
func timeBy(m command.Match) (time.Duration, error) {
	by := durationOf(m, "")
	if m.Has("by") {
		words := utterance.Words(english(m, "by"))
		d, n, ok := utterance.Duration(words)
		if !ok || n != len(words) {
			return 0, command.Unresolved("by", "not a length of time")
		}
		by = d
	}
	if by <= 0 {
		return 0, command.Unresolved("minutes", "no time to add or take off")
	}
	return by, nil
}

// timerRuns reports whether a timer called name runs (or is paused);
// with no name, whether any does. "Gib dem Eier Timer 2 Minuten" adds to
// the Eier timer when it runs and starts it when it does not: time given
// to a running timer is more time, and one that does not run can only be
// started.
func timerRuns(ctx context.Context, s Schedule, name string) (bool, error) {
	timers, err := s.Pending(ctx, storage.Timer)
	if err != nil {
		return false, err
	}
	return slices.ContainsFunc(timers, func(it storage.Item) bool { return name == "" || strings.EqualFold(it.Name, name) }), nil
}

// giveVerbs lead a timer's name that Home Assistant's templates took
// whole ("gib dem Eier Timer 2 Minuten" as a timer "gib dem Eier"): such
// a match is Hark's give_timer, not a new timer of that name.
var giveVerbs = map[locale.Lang][]string{locale.German: {"gib", "gebe", "gibt"}}

// nameLead are the words a template's free text may take in front of a
// timer's name, by language: the verb, the article, the preposition ("stell
// einen Eier Timer", "el temporizador de la pasta", "le minuteur des pâtes").
var nameLead = map[locale.Lang][]string{
	locale.English: {"the", "a", "an", "my", "for", "of"},
	locale.German: {"stell", "stelle", "setz", "setze", "mach", "mache", "leg", "lege", "erstelle", "starte", "start",
		"programmier", "programmiere", "mir", "uns", "einen", "ein", "eine", "den", "die", "das", "der", "dem", "meinen",
		"meine", "mein", "nen", "neuen", "neuer", "neues", "weiteren", "weiterer", "kurzen", "für", "fürs", "vom", "von", "zum",
		"noch", "bitte", "mal", "schnell", "kurz", "und", "dann", "jetzt", "nun", "also", "gleich", "ich", "wir", "brauche", "brauchen", "bräuchte", "hätte", "hätten", "gern", "gerne", "möchte", "will", "wollte"},
	locale.Spanish: {"el", "la", "los", "las", "un", "una", "mi", "de", "del", "para"},
	locale.French:  {"le", "la", "les", "l'", "un", "une", "mon", "ma", "mes", "de", "du", "des", "d'", "pour"},
}

// timerName is a timer's name as the templates' free text took it, without
// the words in front of it that are not the name, or a hyphen left from
// "Nudel-Timer".
func timerName(l locale.Lang, said string) string {
	words := strings.Fields(strings.TrimRight(strings.TrimSpace(said), "-"))
	for len(words) > 1 || len(words) == 1 && strings.Contains(words[0], "'") {
		w := strings.ToLower(words[0])
		if i := strings.Index(w, "'"); i > 0 && slices.Contains(nameLead[l], w[:i+1]) && i+1 < len(w) {
			words[0] = words[0][i+1:] // "l'eau"
			continue
		}
		if len(words) == 1 || !slices.Contains(nameLead[l], w) {
			break
		}
		words = words[1:]
	}
	return strings.Join(words, " ")
}

// pick narrows timers to those named, of the length started with, set in
// the room. A name is the timer's as said, else the timer's in the
// singular or the plural ("the eggs timer" is the egg timer) when no timer
// has the name as said.
func pick(timers []storage.Item, c command.Call) []storage.Item {
	name, started, area := c.Args.String("name"), c.Args.Duration("started"), c.Args.String("area")
	picked := slices.DeleteFunc(slices.Clone(timers), func(it storage.Item) bool {
		return name != "" && !strings.EqualFold(it.Name, name) || started > 0 && it.Duration != started ||
			area != "" && !strings.EqualFold(it.Area, area)
	})
	if len(picked) > 0 || name == "" {
		return picked
	}
	return slices.DeleteFunc(timers, func(it storage.Item) bool {
		return !pluralOf(it.Name, name) && !pluralOf(name, it.Name) || started > 0 && it.Duration != started ||
			area != "" && !strings.EqualFold(it.Area, area)
	})
}

// pluralOf reports whether many is one with a plural ending, "s" or "es"
// ("eggs", "tomatoes", "huevos", "pâtes"), whatever the case.
func pluralOf(one, many string) bool {
	one, many = strings.ToLower(one), strings.ToLower(many)
	return one != "" && (many == one+"s" || many == one+"es")
}

// describeTimer names a timer for a question: its name, or its length.
func describeTimer(l locale.Lang, it storage.Item) string {
	if it.Name != "" {
		return it.Name
	}
	return l.T("the timer for %s", l.Duration(it.Duration))
}

// oneTimer finds the one timer a call means, or says why not.
func oneTimer(ctx context.Context, s Schedule, c command.Call) (storage.Item, *command.Response, error) {
	timers, err := s.Pending(ctx, storage.Timer)
	if err != nil {
		return storage.Item{}, nil, err
	}
	l := lang(c)
	name := c.Args.String("name")
	timers = pick(timers, c)
	switch {
	case len(timers) == 0 && name != "":
		r := command.Said(l.T("You have no %s timer.", name), nil)
		return storage.Item{}, &r, nil
	case len(timers) == 0 && c.Args.String("area") != "":
		r := command.Said(l.T("There is no timer in the %s.", c.Args.String("area")), nil)
		return storage.Item{}, &r, nil
	case len(timers) == 0:
		r := command.Said(l.T("You have no timers."), nil)
		return storage.Item{}, &r, nil
	case len(timers) > 1:
		var names []string
		for _, it := range timers {
			names = append(names, describeTimer(l, it))
		}
		r := command.Response{Kind: command.Invalid, Spoken: l.T("You have %d timers. Which one: %s?", len(timers), l.Or(names)),
			Problems: []command.Problem{{Param: "name", Message: "several timers are running", Valid: names}}}
		return storage.Item{}, &r, nil
	}
	return timers[0], nil, nil
}

var timerParams = []command.Parameter{
	{Name: "name", Type: "string", Description: "the timer's name"},
	{Name: "started", Type: "timedelta", Description: "the length the timer was set to, to tell it apart"},
	{Name: "area", Type: "string", Description: "the room it was set in"},
}

// PauseTimer is pause_timer: pause a timer, or resume a paused one.
func PauseTimer(s Schedule) *command.Command {
	return &command.Command{
		Name:        "pause_timer",
		Description: "Pause a running timer, or resume a paused one.",
		Keywords:    []string{"pause", "resume", "timer"},
		Parameters:  append(slices.Clone(timerParams), command.Parameter{Name: "resume", Type: "bool", Description: "true to resume"}),
		Intents:     []string{"HassPauseTimer", "HassUnpauseTimer", "pause_timer"},
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			args, err := whichTimer(m)
			if err != nil {
				return command.Claim{}, err
			}
			if m.Intent == "HassUnpauseTimer" || m.Has("resume") {
				args["resume"] = true
			}
			return command.Claim{Arguments: args}, nil
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			return onTimer(ctx, s, c, func(it storage.Item, l locale.Lang) (command.Response, error) {
				if c.Args.Bool("resume") {
					if _, err := s.ResumeTimer(ctx, it.ID); err != nil {
						return command.Response{}, err
					}
					if it.Name != "" {
						return command.Said(l.T("Resumed the %s timer.", it.Name), timerData(it)), nil
					}
					return command.Said(l.T("Timer resumed."), timerData(it)), nil
				}
				if _, err := s.PauseTimer(ctx, it.ID); err != nil {
					return command.Response{}, err
				}
				if it.Name != "" {
					return command.Said(l.T("Paused the %s timer.", it.Name), timerData(it)), nil
				}
				return command.Said(l.T("Timer paused."), timerData(it)), nil
			})
		},
	}
}

// onTimer runs do on the one timer a call means, in the call's language,
// or says why there is no one timer.
func onTimer(ctx context.Context, s Schedule, c command.Call, do func(storage.Item, locale.Lang) (command.Response, error)) (command.Response, error) {
	it, resp, err := oneTimer(ctx, s, c)
	if err != nil {
		return command.Response{}, err
	}
	if resp != nil {
		return *resp, nil
	}
	return do(it, lang(c))
}

// AdjustTimer is adjust_timer: add time to a timer or take some off.
func AdjustTimer(s Schedule) *command.Command {
	return &command.Command{
		Name:        "adjust_timer",
		Description: "Add time to a running timer, or take time off it.",
		Keywords:    []string{"add", "more time", "timer", "minutes"},
		Parameters: append(slices.Clone(timerParams),
			command.Parameter{Name: "by", Type: "timedelta", Required: true, Description: "how much, e.g. PT5M"},
			command.Parameter{Name: "subtract", Type: "bool", Description: "true to take the time off"}),
		Intents: []string{"HassIncreaseTimer", "HassDecreaseTimer", "adjust_timer", "give_timer"},
		FromIntent: func(ctx context.Context, m command.Match) (command.Claim, error) {
			args, err := whichTimer(m)
			if err != nil {
				return command.Claim{}, err
			}
			by, err := timeBy(m)
			if err != nil {
				return command.Claim{}, err
			}
			if m.Intent == "give_timer" {
				if runs, err := timerRuns(ctx, s, timerName(m.Lang, m.String("name"))); err != nil || !runs {
					return command.Claim{}, command.ErrNotMine // set_timer starts it
				}
			}
			args["by"] = by
			if m.Intent == "HassDecreaseTimer" || m.Has("subtract") {
				args["subtract"] = true
			}
			return command.Claim{Arguments: args}, nil
		},
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			return onTimer(ctx, s, c, func(it storage.Item, l locale.Lang) (command.Response, error) {
				by := c.Args.Duration("by")
				if c.Args.Bool("subtract") {
					by = -by
				}
				it, err := s.AddToTimer(ctx, it.ID, by)
				switch {
				case errors.Is(err, schedule.ErrTooMuch):
					return command.Failed(l.T("The timer has less time left than that.")), nil
				case errors.Is(err, schedule.ErrInvalid):
					return command.Failed(l.T("A timer can run for up to %s.", maxTimer(l))), nil
				case err != nil:
					return command.Response{}, err
				}
				switch {
				case by > 0 && it.Name != "":
					return command.Said(l.T("Added %s to the %s timer.", l.Duration(by), it.Name), timerData(it)), nil
				case by > 0:
					return command.Said(l.T("Added %s to the timer.", l.Duration(by)), timerData(it)), nil
				case it.Name != "":
					return command.Said(l.T("Took %s off the %s timer.", l.Duration(-by), it.Name), timerData(it)), nil
				}
				return command.Said(l.T("Took %s off the timer.", l.Duration(-by)), timerData(it)), nil
			})
		},
	}
}
