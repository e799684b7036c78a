package command

import (
	"strings"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/utterance"
)

// refineCues start an utterance that changes the last command.
var refineCues = []string{"actually", "make it", "make that", "change it to", "change that to", "no", "instead", "i meant", "i mean", "rather"}

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
	for _, cue := range refineCues {
		if rest, ok := strings.CutPrefix(text, cue+" "); ok {
			words, cued = utterance.Words(rest), true
			break
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
		}
		if v != nil {
			return Route{Command: c, Claim: Claim{Arguments: merge(last.args, Args{p.Name: v})}, Refine: true}, true
		}
	}
	return Route{}, false
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
