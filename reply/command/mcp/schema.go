package mcp

import (
	"encoding/json"
	"maps"
	"strings"
)

// Budgets for what the model reads of one tool, in characters: its
// description, a parameter's, and the whole parameter schema as JSON.
const (
	descBudget   = 400
	paramBudget  = 200
	nestedBudget = 120
	schemaBudget = 2400
)

// schemaFor is a tool's input schema as the model sees it: whole (nested
// items and properties, enums, required lists), its top-level parameters
// under the command's names (rename maps the server's to them), and its
// descriptions cut at a sentence within their budgets. When it is still
// over budget it is trimmed in steps, each of which leaves a valid JSON
// Schema: annotations go, then nested descriptions, then the top-level
// ones shorten, then the deepest parts are reduced to their type.
func schemaFor(in map[string]any, rename map[string]string, budget int) map[string]any {
	s := copyJSON(in).(map[string]any)
	delete(s, "$schema")
	if props, ok := s["properties"].(map[string]any); ok {
		out := map[string]any{}
		for remote, p := range props {
			out[rename[remote]] = p
		}
		s["properties"] = out
	}
	if req, ok := s["required"].([]any); ok {
		var out []any
		for _, r := range req {
			if n, ok := r.(string); ok && rename[n] != "" {
				out = append(out, rename[n])
			}
		}
		s["required"] = out
	}
	if s["type"] == nil {
		s["type"] = "object"
	}
	walk(s, 0, func(node map[string]any, depth int) {
		if d, ok := node["description"].(string); ok {
			node["description"] = clipSentence(d, map[bool]int{true: paramBudget, false: nestedBudget}[depth <= 1])
		}
	})
	steps := []func(node map[string]any, depth int){
		func(node map[string]any, _ int) {
			for _, k := range []string{"title", "examples", "default", "$comment", "deprecated", "readOnly", "writeOnly"} {
				delete(node, k)
			}
			if _, ok := node["additionalProperties"].(bool); ok {
				delete(node, "additionalProperties")
			}
		},
		func(node map[string]any, depth int) {
			if depth >= 2 {
				delete(node, "description")
			}
		},
		func(node map[string]any, depth int) {
			if d, ok := node["description"].(string); ok && depth == 1 {
				node["description"] = clipSentence(d, 60)
			}
		},
		collapse(3),
		collapse(2),
		collapse(1),
	}
	for _, step := range steps {
		if size(s) <= budget {
			break
		}
		walk(s, 0, step)
	}
	return s
}

// collapse reduces every schema at depth d or deeper to its type (and
// enum): {"type": "array"} is still a schema, one that says less.
func collapse(d int) func(node map[string]any, depth int) {
	return func(node map[string]any, depth int) {
		if depth < d {
			return
		}
		for k := range node {
			if k != "type" && k != "enum" && !(depth == d && k == "description") {
				delete(node, k)
			}
		}
	}
}

// walk calls f on the schema and on every schema inside it, outermost
// first, with its depth: the tool's schema 0, its parameters 1.
func walk(node map[string]any, depth int, f func(map[string]any, int)) {
	f(node, depth)
	for _, k := range []string{"properties", "$defs", "definitions", "patternProperties"} {
		if m, ok := node[k].(map[string]any); ok {
			for _, v := range m {
				if sub, ok := v.(map[string]any); ok {
					walk(sub, depth+1, f)
				}
			}
		}
	}
	for _, k := range []string{"items", "additionalProperties", "not"} {
		if sub, ok := node[k].(map[string]any); ok {
			walk(sub, depth+1, f)
		}
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "prefixItems", "items"} {
		if list, ok := node[k].([]any); ok {
			for _, v := range list {
				if sub, ok := v.(map[string]any); ok {
					walk(sub, depth+1, f)
				}
			}
		}
	}
}

func size(v any) int {
	b, _ := json.Marshal(v)
	return len(b)
}

// copyJSON copies a value made of JSON maps and slices.
func copyJSON(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := maps.Clone(x)
		for k, e := range out {
			out[k] = copyJSON(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = copyJSON(e)
		}
		return out
	}
	return v
}

// clipSentence cuts s to at most n characters at the end of a sentence,
// in its last three quarters, or failing one at a word, marked "…".
func clipSentence(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := string(r[:n])
	best := -1
	for _, end := range []string{". ", "! ", "? ", ".\u00a0"} {
		if i := strings.LastIndex(cut, end); i > best {
			best = i
		}
	}
	if best >= len(cut)/4 {
		return cut[:best+1]
	}
	cut = string(r[:n-1])
	if i := strings.LastIndexByte(cut, ' '); i >= len(cut)/3 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}
