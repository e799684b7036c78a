package command

import "encoding/json"

// ParametersSchema is the JSON schema of the command's arguments, as the
// model sees it in a tool definition: Schema when the command has one,
// else rendered from Parameters, where refinable parameters carry
// "_refinable": true.
func (c *Command) ParametersSchema() map[string]any {
	if c.Schema != nil {
		return c.Schema
	}
	props := map[string]any{}
	required := []string{}
	for _, p := range c.Parameters {
		s := p.typ.Schema()
		if p.Description != "" {
			s["description"] = p.Description
		}
		if len(p.Enum) > 0 {
			s["enum"] = p.Enum
		}
		if p.Refinable {
			s["_refinable"] = true
		}
		props[p.Name] = s
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

// Tool is the command as an Ollama/OpenAI tool definition.
func (c *Command) Tool() map[string]any {
	return map[string]any{"type": "function", "function": map[string]any{
		"name": c.Name, "description": c.Description, "parameters": c.ParametersSchema(),
	}}
}

// ToolJSON is Tool encoded; its length is the command's prompt cost.
func (c *Command) ToolJSON() []byte {
	b, _ := json.Marshal(c.Tool()) // maps of plain values always encode
	return b
}
