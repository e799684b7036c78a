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
func uniqueName(cat Catalogue, server, remote string) string {
	base := snake(remote)
	if base == "" {
		base = "tool"
	}
	taken := func(n string) bool { _, ok := cat.Lookup(n); return ok }
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

// convert makes a server's tool into a command called name; params maps
// each parameter's command name to the server's.
func convert(l *link, t *sdk.Tool, name string) (*command.Command, error) {
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
	params := map[string]string{}
	var ps []command.Parameter
	for _, remote := range sortedKeys(props) {
		p, _ := props[remote].(map[string]any)
		local := snake(remote)
		if local == "" || params[local] != "" {
			return nil, fmt.Errorf("mcp: %s: tool %s: parameter %q has no usable name", l.s.Name, t.Name, remote)
		}
		params[local] = remote
		ps = append(ps, command.Parameter{
			Name:        local,
			Type:        paramType(p),
			Required:    required[remote],
			Description: clip(str(p["description"]), 120),
			Enum:        enum(p),
		})
	}
	desc := clip(firstOf(t.Description, t.Title, t.Name), 200)
	return &command.Command{
		Name:        name,
		Description: desc,
		Keywords:    keywords(t),
		Parameters:  ps,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			return l.call(ctx, t.Name, name, remoteArgs(c.Args, params)), nil
		},
	}, nil
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

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n-1])) + "…"
	}
	return s
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
