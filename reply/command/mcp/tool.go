package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// snake turns a server's name for a tool or parameter ("get-sum",
// "maxTokens", "HassTurnOn") into a command name ("get_sum", "max_tokens",
// "hass_turn_on"); "" when nothing of it is usable.
func snake(s string) string {
	isUpper := func(r rune) bool { return r >= 'A' && r <= 'Z' }
	isLower := func(r rune) bool { return r >= 'a' && r <= 'z' || r >= '0' && r <= '9' }
	var b strings.Builder
	rs := []rune(s)
	sep := false
	for i, r := range rs {
		switch {
		case isUpper(r):
			// a word starts: "maxTokens", "HTTPServer" before "Server"
			if i > 0 && (isLower(rs[i-1]) || isUpper(rs[i-1]) && i+1 < len(rs) && isLower(rs[i+1])) {
				sep = true
			}
			r += 'a' - 'A'
		case isLower(r):
		default:
			sep = true
			continue
		}
		if sep && b.Len() > 0 {
			b.WriteByte('_')
		}
		sep = false
		b.WriteRune(r)
	}
	out := b.String()
	if out != "" && out[0] >= '0' && out[0] <= '9' {
		out = "t_" + out
	}
	if len(out) > 48 {
		out = strings.TrimRight(out[:48], "_")
	}
	return out
}

// uniqueName is the name a server's tool takes in the catalogue: its own
// when free, else prefixed with the server's name, else numbered.
func uniqueName(taken func(string) bool, server, remote string) string {
	base := snake(remote)
	if base == "" {
		base = "tool"
	}
	if !taken(base) {
		return base
	}
	prefixed := snake(server) + "_" + base
	if !taken(prefixed) {
		return prefixed
	}
	for i := 2; ; i++ {
		if n := fmt.Sprintf("%s_%d", prefixed, i); !taken(n) {
			return n
		}
	}
}

// convert makes a server's tool into a command called name: its schema
// whole for the model, its top-level parameters checked before the
// server is asked, and, when it is destructive, a question to the user
// before it runs.
func convert(l *link, t *sdk.Tool, name, about string) (*command.Command, error) {
	schema, err := asMap(t.InputSchema)
	if err != nil {
		return nil, fmt.Errorf("mcp: %s: tool %s: input schema: %w", l.s.Name, t.Name, err)
	}
	props, _ := schema["properties"].(map[string]any)
	required := map[string]bool{}
	if rs, ok := schema["required"].([]any); ok {
		for _, r := range rs {
			if s, ok := r.(string); ok {
				required[s] = true
			}
		}
	}
	params := map[string]string{} // the command's names to the server's
	rename := map[string]string{} // and back
	var ps []command.Parameter
	for _, remote := range sortedKeys(props) {
		p, _ := props[remote].(map[string]any)
		local := snake(remote)
		if local == "" || params[local] != "" {
			return nil, fmt.Errorf("mcp: %s: tool %s: parameter %q has no usable name", l.s.Name, t.Name, remote)
		}
		params[local], rename[remote] = remote, local
		ps = append(ps, command.Parameter{
			Name:        local,
			Type:        paramType(p),
			Required:    required[remote],
			Description: clipSentence(str(p["description"]), paramBudget),
			Enum:        enum(p),
		})
	}
	confirm := needsConfirm(l.s, t)
	c := &command.Command{
		Name:        name,
		Description: clipSentence(firstOf(t.Description, t.Title, t.Name), descBudget),
		Keywords:    keywords(t),
		Parameters:  ps,
		Schema:      schemaFor(schema, rename, schemaBudget),
		About:       about,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			if confirm {
				if r, ok := l.ask(ctx, name, c); !ok {
					return r, nil
				}
			}
			return l.call(ctx, t.Name, name, remoteArgs(c.Args, params)), nil
		},
	}
	if confirm {
		c.Refine = func(text string, last command.Args) (command.Args, bool) {
			if yes, ok := command.Answer(text); ok {
				return command.Args{confirmKey: map[bool]string{true: "yes", false: "no"}[yes]}, true
			}
			return nil, false
		}
	}
	return c, nil
}

// needsConfirm reports whether the tool asks the user before it runs: the
// configuration names it, or the server's annotations say it changes
// things destructively (a tool without annotations says nothing).
func needsConfirm(s Server, t *sdk.Tool) bool {
	if mentions(s.Confirm, t.Name) || slices.Contains(s.Confirm, "*") {
		return true
	}
	a := t.Annotations
	return a != nil && !a.ReadOnlyHint && (a.DestructiveHint == nil || *a.DestructiveHint)
}

// confirmKey carries the user's answer to a confirmation in a refined
// call. No parameter can be called so (names start with a letter), and
// only the user's words, read by Refine, put it there.
const confirmKey = "_confirmed"

// ask decides a destructive tool's call: ok when the user has just said
// yes to it; otherwise the response to give, the question or the
// acknowledged no.
func (l *link) ask(ctx context.Context, name string, c command.Call) (command.Response, bool) {
	say := locale.Speaking(ctx)
	what := spokenName(name)
	switch answer := c.Args.String(confirmKey); {
	case c.Refines != nil && answer == "yes":
		return command.Response{}, true
	case c.Refines != nil && answer == "no":
		return command.Response{Spoken: say.T("Okay, I won't."), Data: map[string]any{"cancelled": true}}, false
	}
	return command.Response{Kind: command.FollowUp, Spoken: say.T("The %s tool changes things on the %s server. Should I go ahead? Say yes to confirm.", what, l.s.Name),
		Data: map[string]any{"awaiting": "the user's yes before " + name + " runs", "server": l.s.Name}}, false
}

// asMap is a tool's input schema as plain JSON values.
func asMap(schema any) (map[string]any, error) {
	if schema == nil {
		return map[string]any{}, nil
	}
	if m, ok := schema.(map[string]any); ok {
		return m, nil
	}
	b, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, errors.New("not a JSON object")
	}
	return m, nil
}

// paramType is a JSON schema's type as a command parameter's; a schema
// with no simple type is taken as text.
func paramType(p map[string]any) string {
	simple := map[string]string{"string": "string", "integer": "int", "number": "float", "boolean": "bool"}
	switch t := typeOf(p); t {
	case "object":
		return "dict"
	case "array":
		items, _ := p["items"].(map[string]any)
		if it, ok := simple[typeOf(items)]; ok {
			return "array<" + it + ">"
		}
		return "array"
	default:
		if s, ok := simple[t]; ok {
			return s
		}
		return "string"
	}
}

// typeOf is a schema's type, the first that is not "null" of a list.
func typeOf(p map[string]any) string {
	switch t := p["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok && s != "null" {
				return s
			}
		}
	}
	return ""
}

func enum(p map[string]any) []string {
	vs, ok := p["enum"].([]any)
	if !ok {
		return nil
	}
	var out []string
	for _, v := range vs {
		s, ok := v.(string)
		if !ok {
			return nil // numbers and the like are checked by the server
		}
		out = append(out, s)
	}
	return out
}

func keywords(t *sdk.Tool) []string {
	words := strings.Fields(strings.ReplaceAll(snake(t.Name), "_", " "))
	if t.Title != "" {
		words = append(words, strings.ToLower(t.Title))
	}
	return words
}

// remoteArgs are the call's arguments under the server's names.
func remoteArgs(a command.Args, params map[string]string) map[string]any {
	out := map[string]any{}
	for k, v := range a {
		if r, ok := params[k]; ok {
			out[r] = v
		}
	}
	return out
}

// text is a tool result's content as text for the model: text as it is,
// other content named by what it is.
func text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, c.Text)
		case *sdk.ImageContent:
			parts = append(parts, "[an image, "+c.MIMEType+"]")
		case *sdk.AudioContent:
			parts = append(parts, "[a sound, "+c.MIMEType+"]")
		case *sdk.ResourceLink:
			parts = append(parts, fmt.Sprintf("[%s: %s]", firstOf(c.Title, c.Name), c.URI))
		case *sdk.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else if c.Resource != nil {
				parts = append(parts, "["+c.Resource.URI+"]")
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.TrimSpace(strings.Join(parts, "\n"))
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

func str(v any) string { s, _ := v.(string); return s }

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
