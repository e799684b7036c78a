package command

import (
	"encoding/json"
	"maps"
	"time"
)

// Last is a client's last call as a store keeps it: what a follow-up said
// within the refine window changes ("make it 10 minutes"), or the call
// waiting for the answer to its question ("For how long?"). Its arguments
// are in the form the wire carries them (a duration as "5m0s", a time in
// RFC 3339); Resume reads them back by the command's parameter types.
// Language is the language of the turn that made the call (a code, as
// locale.Decide gives it): the conversation's, which a follow-up whose
// own words do not tell is taken to be in.
type Last struct {
	Command  string         `json:"command"`
	Args     map[string]any `json:"args,omitempty"`
	Data     map[string]any `json:"data,omitempty"`
	At       time.Time      `json:"at"`
	Language string         `json:"language,omitempty"`
}

// Last is the client's last call when it came within the refine window,
// for a later process that continues the conversation to Resume.
func (r *Registry) Last(client string) (Last, bool) {
	r.mu.Lock()
	l := r.last[client]
	r.mu.Unlock()
	if l == nil || r.o.Now().Sub(l.at) > r.o.RefineWindow || !followed(l) {
		return Last{}, false
	}
	args := make(map[string]any, len(l.args))
	for k, v := range l.args {
		if d, ok := v.(time.Duration); ok {
			v = d.String()
		}
		args[k] = v
	}
	return Last{Command: l.cmd.Name, Args: args, Data: maps.Clone(l.data), At: l.at, Language: l.lang}, true
}

// followed reports a last call a follow-up can change or answer: its
// command refines, or it waits for an answer. Any other (a memory search,
// a lookup) is not worth keeping past its process.
func followed(l *lastCall) bool {
	if l.cmd.Refine != nil || l.data["awaiting"] != nil {
		return true
	}
	for _, p := range l.cmd.Parameters {
		if p.Refinable || p.Ask != "" || p.Follow != 0 {
			return true
		}
	}
	return false
}

// Resume takes l, a client's last call as a store kept it, as the client's
// last call here: when it is still within the refine window, its command
// is registered and its arguments read as that command's. Otherwise, and
// when the client already has a last call here, it changes nothing.
func (r *Registry) Resume(client string, l Last) {
	if r.o.Now().Sub(l.At) > r.o.RefineWindow || r.o.Now().Before(l.At) {
		return
	}
	c, ok := r.Lookup(l.Command)
	if !ok {
		return
	}
	args := Args{}
	for k, v := range l.Args {
		i := -1
		for j, p := range c.Parameters {
			if p.Name == k {
				i = j
			}
		}
		if i < 0 {
			return // not this command's call
		}
		v, ok := stored(c.Parameters[i].typ, v, r.Now())
		if !ok {
			return
		}
		args[k] = v
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last[client] == nil {
		r.last[client] = &lastCall{cmd: c, args: args, data: l.Data, at: l.At, lang: l.Language}
	}
}

// stored reads back an argument of kind t as Last wrote it and JSON
// carried it.
func stored(t Type, v any, now time.Time) (any, bool) {
	switch t.Kind {
	case TimeDelta:
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		d, err := time.ParseDuration(s)
		return d, err == nil
	case DateTime, Date, Time:
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		at, err := time.Parse(time.RFC3339Nano, s)
		return at.In(now.Location()), err == nil
	case Integer:
		switch x := v.(type) {
		case float64:
			return int64(x), true
		case json.Number:
			n, err := x.Int64()
			return n, err == nil
		}
		return nil, false
	case Array:
		if t.Items != 0 && t.Items != String && t.Items != Float && t.Items != Boolean {
			return nil, false // items of a kind JSON does not give back as they were
		}
	}
	return v, true
}
