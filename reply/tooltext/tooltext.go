// Package tooltext lets models without native tool calling use tools
// anyway: the tools are described in the system prompt, the model answers
// with a fenced tool_call block holding JSON, and results go back as user
// messages that name the tool. The reply engine switches to it when the
// server answers HTTP 400 "does not support tools". It also reads the calls
// models write in their text in other ways (Trailing), with native tools
// too.
package tooltext

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/harkbox/hark/reply/llm"
)

// Tool is a tool as the prompt describes it.
type Tool struct {
	Name        string
	Description string
	// Parameters is the JSON schema of the arguments.
	Parameters json.RawMessage
}

// Call is a tool call read from the model's text.
type Call struct {
	Name      string
	Arguments map[string]any
}

// Fence is the info string of the fenced block that holds a call.
const Fence = "tool_call"

// Describe writes the tools and how to call them, for the system prompt.
func Describe(tools []Tool) string {
	var b strings.Builder
	b.WriteString("You can use these tools. To use one, answer with nothing but a fenced block like this, and wait for the result:\n")
	b.WriteString("```" + Fence + "\n{\"name\": \"tool_name\", \"arguments\": {\"parameter\": \"value\"}}\n```\n")
	b.WriteString("One call per block. When you have what you need, answer the user in plain words, without a block.\nTools:\n")
	for _, t := range tools {
		fmt.Fprintf(&b, "- %s: %s", t.Name, t.Description)
		if params := describeParams(t.Parameters); params != "" {
			fmt.Fprintf(&b, " Arguments: %s.", params)
		}
		b.WriteString("\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

func describeParams(schema json.RawMessage) string {
	var s struct {
		Properties map[string]struct {
			Type        string   `json:"type"`
			Format      string   `json:"format"`
			Description string   `json:"description"`
			Enum        []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal(schema, &s) != nil || len(s.Properties) == 0 {
		return ""
	}
	required := map[string]bool{}
	for _, r := range s.Required {
		required[r] = true
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool {
		if required[names[i]] != required[names[j]] {
			return required[names[i]]
		}
		return names[i] < names[j]
	})
	var parts []string
	for _, n := range names {
		p := s.Properties[n]
		typ := p.Type
		if p.Format != "" {
			typ += " " + p.Format
		}
		d := n + " (" + typ
		if required[n] {
			d += ", required"
		}
		if len(p.Enum) > 0 {
			d += ", one of " + strings.Join(p.Enum, "|")
		}
		d += ")"
		if desc := strings.TrimRight(p.Description, ". "); desc != "" {
			d += ": " + desc
		}
		parts = append(parts, d)
	}
	return strings.Join(parts, "; ")
}

// Result is the user message that carries a tool's result back.
func Result(name, content string) string {
	return fmt.Sprintf("[Tool result: %s]\n%s", name, content)
}

var (
	fenceRE  = regexp.MustCompile("(?s)```[ \\t]*(tool_call|tool|json)?[ \\t]*\\r?\\n(.*?)(```|$)")
	taggedRE = regexp.MustCompile(`(?s)<tool_call>(.*?)(</tool_call>|$)`)
)

// Parse reads the tool calls in a model's answer: fenced tool_call blocks
// (also plain json blocks and <tool_call> tags holding a call, which models
// write too) and returns them with the text outside them. A block that is
// not a well-formed call is an error, reported with the calls that were
// well-formed.
func Parse(content string) (calls []Call, rest string, err error) {
	var problems []string
	take := func(body string) bool {
		c, ok, perr := decode(body)
		if perr != nil {
			problems = append(problems, perr.Error())
			return true
		}
		if ok {
			calls = append(calls, c)
		}
		return ok
	}
	rest = fenceRE.ReplaceAllStringFunc(content, func(m string) string {
		sub := fenceRE.FindStringSubmatch(m)
		if sub[1] == "" || sub[1] == "json" {
			// An unlabelled or json block is a call only if it reads as one.
			if c, ok, _ := decode(sub[2]); ok {
				calls = append(calls, c)
				return ""
			}
			return m
		}
		take(sub[2])
		return ""
	})
	rest = taggedRE.ReplaceAllStringFunc(rest, func(m string) string {
		take(taggedRE.FindStringSubmatch(m)[1])
		return ""
	})
	rest = strings.TrimSpace(rest)
	if len(problems) > 0 {
		return calls, rest, fmt.Errorf("tooltext: %s", strings.Join(problems, "; "))
	}
	return calls, rest, nil
}

// Trailing reads calls written as bare JSON objects that end an answer,
// each beginning a line of its own, after what the model said first
// ("Let me check the time.\n{"name": "get_current_time", "arguments":
// {}}"): small models write a call so, with or without native tools. Each
// object takes the shapes a fenced call does; when any is not a call, or
// anything but blanks follows them, there are none. It returns the calls
// with the text before them.
func Trailing(content string) (calls []Call, rest string) {
	for i := 0; i < len(content); i++ {
		if content[i] != '{' || !lineStart(content, i) {
			continue
		}
		if calls := objects(content[i:]); calls != nil {
			return calls, strings.TrimSpace(content[:i])
		}
	}
	return nil, content
}

// lineStart reports whether only blanks stand between the start of s's
// line and i.
func lineStart(s string, i int) bool {
	for i--; i >= 0 && s[i] != '\n'; i-- {
		if s[i] != ' ' && s[i] != '\t' && s[i] != '\r' {
			return false
		}
	}
	return true
}

// objects reads s as calls, one JSON object after another to its end,
// each beginning a line; nil when it is anything else.
func objects(s string) []Call {
	var calls []Call
	for s = strings.TrimSpace(s); s != ""; {
		obj, start := llm.FirstObject(s)
		if start != 0 || obj == "" {
			return nil
		}
		c, ok, _ := decode(obj)
		if !ok {
			return nil
		}
		calls = append(calls, c)
		s = s[len(obj):]
		if t := strings.TrimLeft(s, " \t\r"); t != "" && t[0] != '\n' {
			return nil
		}
		s = strings.TrimSpace(s)
	}
	return calls
}

// decode reads one call's JSON: {"name": ..., "arguments": {...}}, also
// accepting "tool"/"function" for the name and "parameters"/"args" for the
// arguments, and a first object embedded in other text.
func decode(body string) (Call, bool, error) {
	body = strings.TrimSpace(body)
	if body == "" {
		return Call{}, false, fmt.Errorf("empty tool call")
	}
	obj, _ := llm.FirstObject(body)
	if obj == "" {
		return Call{}, false, fmt.Errorf("tool call %q is not JSON", clip(body))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(obj), &raw); err != nil {
		return Call{}, false, fmt.Errorf("tool call %q: %v", clip(obj), err)
	}
	var c Call
	for _, k := range []string{"name", "tool", "function"} {
		if v, ok := raw[k]; ok {
			if json.Unmarshal(v, &c.Name) != nil {
				// {"function": {"name": ..., "arguments": ...}}
				var inner struct {
					Name      string         `json:"name"`
					Arguments map[string]any `json:"arguments"`
				}
				if json.Unmarshal(v, &inner) == nil {
					c.Name, c.Arguments = inner.Name, inner.Arguments
				}
			}
			break
		}
	}
	if c.Name == "" {
		return Call{}, false, fmt.Errorf("tool call %q names no tool", clip(obj))
	}
	if c.Arguments == nil {
		for _, k := range []string{"arguments", "parameters", "args"} {
			if v, ok := raw[k]; ok {
				if err := json.Unmarshal(v, &c.Arguments); err != nil {
					// Some models send the arguments as a JSON string.
					var s string
					if json.Unmarshal(v, &s) != nil || json.Unmarshal([]byte(s), &c.Arguments) != nil {
						return Call{}, false, fmt.Errorf("tool call %s: arguments are not an object", c.Name)
					}
				}
				break
			}
		}
	}
	if c.Arguments == nil {
		c.Arguments = map[string]any{}
	}
	return c, true, nil
}

func clip(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
