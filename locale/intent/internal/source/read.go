package source

import (
	"fmt"
	"slices"

	"github.com/harkbox/hark/locale/intent"
)

// read turns a language's merged YAML into an intent.Source.
func read(m map[string]any) (intent.Source, error) {
	var s intent.Source
	s.Language, _ = m["language"].(string)
	if set, ok := m["settings"].(map[string]any); ok {
		s.IgnoreWhitespace, _ = set["ignore_whitespace"].(bool)
	}
	var err error
	if s.Lists, err = lists(m["lists"]); err != nil {
		return s, err
	}
	if s.Rules, err = rules(m["expansion_rules"]); err != nil {
		return s, err
	}
	if s.MoreRules, err = rules(m["more_expansion_rules"]); err != nil {
		return s, err
	}
	if s.SkipWords, err = strs(m["skip_words"], "skip_words"); err != nil {
		return s, err
	}
	if s.LeadWords, err = strs(m["lead_words"], "lead_words"); err != nil {
		return s, err
	}
	intents, _ := m["intents"].(map[string]any)
	s.Intents = map[string]intent.SourceIntent{}
	for name, v := range intents {
		in, ok := v.(map[string]any)
		if !ok {
			return s, fmt.Errorf("intent %s is not a map", name)
		}
		data, _ := in["data"].([]any)
		var si intent.SourceIntent
		for i, d := range data {
			dm, ok := d.(map[string]any)
			if !ok {
				return s, fmt.Errorf("intent %s: data %d is not a map", name, i)
			}
			sd, err := block(dm)
			if err != nil {
				return s, fmt.Errorf("intent %s: data %d: %w", name, i, err)
			}
			if len(sd.Sentences) == 0 {
				continue // a placeholder ("sentences: []"): it matches nothing, as in HassIL
			}
			si.Data = append(si.Data, sd)
		}
		if len(si.Data) == 0 {
			continue
		}
		s.Intents[name] = si
	}
	return s, nil
}

func block(m map[string]any) (intent.SourceData, error) {
	var d intent.SourceData
	var err error
	if d.Sentences, err = strs(m["sentences"], "sentences"); err != nil {
		return d, err
	}
	if len(d.Sentences) == 0 {
		return d, nil
	}
	d.Slots, _ = m["slots"].(map[string]any)
	d.RequiresContext, _ = m["requires_context"].(map[string]any)
	d.ExcludesContext, _ = m["excludes_context"].(map[string]any)
	d.Metadata, _ = m["metadata"].(map[string]any)
	d.Response, _ = m["response"].(string)
	if d.Rules, err = rules(m["expansion_rules"]); err != nil {
		return d, err
	}
	if d.Lists, err = lists(m["lists"]); err != nil {
		return d, err
	}
	if d.RequiredKeywords, err = strs(m["required_keywords"], "required_keywords"); err != nil {
		return d, err
	}
	for _, mm := range []map[string]any{d.Slots, d.RequiresContext, d.ExcludesContext, d.Metadata} {
		numbers(mm)
	}
	return d, nil
}

func strs(v any, what string) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("%s is not a list", what)
	}
	var out []string
	for _, x := range l {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("%s: %v is not text", what, x)
		}
		out = append(out, s)
	}
	return out, nil
}

func rules(v any) (map[string]string, error) {
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for k, x := range m {
		s, ok := x.(string)
		if !ok {
			return nil, fmt.Errorf("expansion rule %s is not text", k)
		}
		out[k] = s
	}
	return out, nil
}

func lists(v any) (map[string]intent.SourceList, error) {
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		return nil, nil
	}
	out := map[string]intent.SourceList{}
	for name, x := range m {
		lm, ok := x.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("list %s is not a map", name)
		}
		l, err := list(lm)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", name, err)
		}
		out[name] = l
	}
	return out, nil
}

func list(m map[string]any) (intent.SourceList, error) {
	var l intent.SourceList
	switch {
	case m["values"] != nil:
		vals, ok := m["values"].([]any)
		if !ok {
			return l, fmt.Errorf("values is not a list")
		}
		for _, v := range vals {
			switch x := v.(type) {
			case string:
				l.Values = append(l.Values, intent.SourceValue{In: x, Out: plainOut(x)})
			case map[string]any:
				in, ok := x["in"].(string)
				if !ok {
					return l, fmt.Errorf("value %v has no in", x)
				}
				sv := intent.SourceValue{In: in, Out: scalar(x["out"])}
				sv.Context, _ = x["context"].(map[string]any)
				sv.Metadata, _ = x["metadata"].(map[string]any)
				numbers(sv.Context)
				l.Values = append(l.Values, sv)
			default:
				return l, fmt.Errorf("value %v is neither text nor a map", v)
			}
		}
	case m["range"] != nil:
		r, ok := m["range"].(map[string]any)
		if !ok {
			return l, fmt.Errorf("range is not a map")
		}
		sr := &intent.SourceRange{}
		sr.Type, _ = r["type"].(string)
		var okFrom, okTo bool
		sr.From, okFrom = r["from"].(int)
		sr.To, okTo = r["to"].(int)
		if !okFrom || !okTo {
			return l, fmt.Errorf("range needs whole numbers from and to")
		}
		sr.Step, _ = r["step"].(int)
		sr.Fractions, _ = r["fractions"].(string)
		if f, ok := toFloat(r["multiplier"]); ok {
			sr.Multiplier = &f
		}
		if b, ok := r["digits"].(bool); ok && !b {
			sr.NoDigits = true
		}
		if b, ok := r["words"].(bool); ok && !b {
			sr.NoWords = true
		}
		l.Range = sr
	case m["wildcard"] == true:
		l.Wildcard = true
	default:
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return l, fmt.Errorf("neither values, range nor wildcard (has %v)", keys)
	}
	return l, nil
}

// plainOut is the output of a list value written as a plain string: the
// string itself, unless it is a template, whose output is what was said.
func plainOut(s string) any {
	for _, c := range "()[]{}<>|" {
		for _, r := range s {
			if r == c {
				return nil
			}
		}
	}
	return s
}

func scalar(v any) any {
	if f, ok := toFloat(v); ok {
		return f
	}
	return v
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// numbers turns YAML's whole numbers into float64, as a match carries
// every number.
func numbers(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case int:
			m[k] = float64(x)
		case []any:
			for i := range x {
				if n, ok := x[i].(int); ok {
					x[i] = float64(n)
				}
			}
		case map[string]any:
			numbers(x)
		}
	}
}
