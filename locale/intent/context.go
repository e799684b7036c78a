package intent

// The context conditions of a block of sentences, as HassIL reads them: a
// condition's value is a value, a list of values (any of them), null (any
// value at all), or {"value": v, "slot": s}, where slot true or a name
// copies the context's value into that slot. A context value may be
// {"value": v, "text": t}.

// unpack returns a context value's value, and its text when it has one.
func unpack(v any) (any, string) {
	if m, ok := v.(map[string]any); ok {
		t, _ := m["text"].(string)
		return m["value"], t
	}
	return v, ""
}

// condition reads a required or excluded value and the slot it copies to.
func condition(key string, v any) (want any, slot string) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, ""
	}
	switch s := m["slot"].(type) {
	case string:
		slot = s
	case bool:
		if s {
			slot = key
		}
	}
	return m["value"], slot
}

// same compares two scalar values; lists and maps are never the same.
func same(a, b any) bool {
	switch a.(type) {
	case string, float64, bool, int:
	default:
		return false
	}
	switch b.(type) {
	case string, float64, bool, int:
	default:
		return false
	}
	return a == b
}

// satisfies reports whether actual meets want: equal to it, or one of a
// list of them; a null want is met by anything.
func satisfies(want, actual any) bool {
	if want == nil {
		return true
	}
	if list, ok := want.([]any); ok {
		for _, w := range list {
			if same(w, actual) {
				return true
			}
		}
		return false
	}
	return same(want, actual)
}

// requiredOK reports whether ctx does not contradict the required
// context: keys ctx lacks are not checked.
func requiredOK(requires, ctx map[string]any) bool {
	for key, req := range requires {
		v, ok := ctx[key]
		if !ok {
			continue
		}
		want, _ := condition(key, req)
		actual, _ := unpack(v)
		if want != nil && !satisfies(want, actual) {
			return false
		}
	}
	return true
}

// excludedOK reports whether ctx holds none of the excluded values.
func excludedOK(excludes, ctx map[string]any) bool {
	for key, ex := range excludes {
		v, ok := ctx[key]
		if !ok {
			continue
		}
		want, _ := condition(key, ex)
		actual, _ := unpack(v)
		if list, ok := want.([]any); ok {
			for _, w := range list {
				if same(w, actual) {
					return false
				}
			}
			continue
		}
		if same(want, actual) || want == nil && actual == nil {
			return false
		}
	}
	return true
}

// required checks the required context against the match's context, which
// must hold every key; it returns the slots the conditions copy.
func required(requires, ctx map[string]any) (map[string]Slot, bool) {
	var out map[string]Slot
	for key, req := range requires {
		want, slot := condition(key, req)
		v, ok := ctx[key]
		if !ok {
			return nil, false
		}
		actual, text := unpack(v)
		if actual == nil || !satisfies(want, actual) {
			return nil, false
		}
		if slot != "" {
			if out == nil {
				out = map[string]Slot{}
			}
			out[slot] = Slot{Value: actual, Text: text, FromContext: true}
		}
	}
	return out, true
}

// contextPossible reports whether a block can match at all given what is
// known before matching (HassIL's early filter): the known keys do not
// contradict what it requires or excludes.
func contextPossible(b *block, ctx map[string]any) bool {
	if len(ctx) == 0 {
		return true
	}
	return requiredOK(b.requires, ctx) && excludedOK(b.excludes, ctx)
}
