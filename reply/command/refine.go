package command

import (
	"strings"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/utterance"
)

// refineCues start an utterance that changes the last command.
var refineCues = []string{"actually", "make it", "make that", "change it to", "change that to", "no", "instead", "i meant", "i mean", "i said", "rather"}

// refinement reads text as a change to the client's last call, when it
// came within the refine window and the command has refinable parameters.
func (r *Registry) refinement(client string, l locale.Lang, said string) (Route, bool) {
	text := utterance.Expand(said)
	if l != locale.English {
		text = utterance.Expand(l.Canonical(said))
	}
	r.mu.Lock()
	last := r.last[client]
	r.mu.Unlock()
	if last == nil || r.o.Now().Sub(last.at) > r.o.RefineWindow {
		return Route{}, false
	}
	c := last.cmd
	if c.Refine != nil {
		if args, ok := c.Refine(text, last.args); ok {
			return Route{Command: c, Claim: Claim{Arguments: merge(last.args, args)}, Refine: true}, true
		}
		return Route{}, false
	}
	words := utterance.Words(text)
	cued := false
	for again := true; again; { // "no, i said 15": one cue after another
		again = false
		for _, cue := range refineCues {
			if rest, ok := strings.CutPrefix(text, cue+" "); ok {
				text, words, cued, again = rest, utterance.Words(rest), true, true
				break
			}
		}
	}
	if len(words) == 0 || len(words) > 6 {
		return Route{}, false
	}
	for _, p := range c.Parameters {
		if !p.Refinable {
			continue
		}
		var v any
		switch p.typ.Kind {
		case TimeDelta:
			if d, at, n, ok := utterance.FindDuration(words); ok && (cued || at == 0 && n == len(words)) {
				v = d
			} else if f, n, ok := utterance.Number(words); ok && cued && n == len(words) && f > 0 {
				v = inUnitOf(f, last.args.Duration(p.Name)) // "no, 15"
			} else if ok && n == len(words) && f > 0 && last.data["awaiting"] == p.Name {
				// "ten" answering "For how long?": minutes, the unit a
				// length said alone is mostly meant in.
				v = time.Duration(f * float64(time.Minute))
			}
		case Integer, Float:
			if f, at, n, ok := utterance.FindNumber(words); ok && (cued || at == 0 && n == len(words)) {
				v = f
			}
		case String:
			for _, e := range p.Enum {
				if strings.Join(words, " ") == strings.ReplaceAll(e, "_", " ") && cued {
					v = e
				}
			}
			// A free value its Check accepts whole: "make it 7 am" of
			// an alarm's time.
			if len(p.Enum) == 0 && p.Check != nil && cued && p.Check(text) == nil {
				v = text
			}
		}
		if v != nil {
			return Route{Command: c, Claim: Claim{Arguments: merge(last.args, Args{p.Name: v})}, Refine: true}, true
		}
	}
	return Route{}, false
}

// lastData is the data of the client's last call when it came within the
// refine window, else nil.
func (r *Registry) lastData(client string) map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	last := r.last[client]
	if last == nil || r.o.Now().Sub(last.at) > r.o.RefineWindow {
		return nil
	}
	return last.data
}

// inUnitOf reads a number said alone as a length in the unit of the one
// it corrects: hours for a length of an hour or more (up to a day's 24),
// minutes for a minute or more, else seconds.
func inUnitOf(f float64, was time.Duration) time.Duration {
	unit := time.Second
	switch {
	case was >= time.Hour && f <= 24:
		unit = time.Hour
	case was >= time.Minute:
		unit = time.Minute
	}
	return time.Duration(f * float64(unit))
}

// merge returns the last call's arguments with the refined ones replaced.
func merge(last, changed Args) map[string]any {
	out := map[string]any{}
	for k, v := range last {
		out[k] = v
	}
	for k, v := range changed {
		out[k] = v
	}
	return out
}
