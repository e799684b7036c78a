package center

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
)

// Client tools: a node registers its own commands (timers, alarms, volume,
// stop, its status) as tools in OpenAI's format; the center turns each into
// a command whose Run hands the call to the node and waits for its result.
// The center's registry checks the arguments against the tool's schema
// first, so a wrong argument goes back to the model, not to the node.

// clientCommand is a node's tool as a command of the center.
func clientCommand(t Tool, sess *session, timeout time.Duration) (*command.Command, error) {
	params, err := parametersOf(t.Function.Parameters)
	if err != nil {
		return nil, fmt.Errorf("client_tools: %s: %w", t.Function.Name, err)
	}
	name := t.Function.Name
	var examples []command.Example
	for _, x := range t.Examples {
		if strings.TrimSpace(x.VoiceCommand) != "" {
			examples = append(examples, command.Example{Utterance: x.VoiceCommand, Arguments: x.ExpectedParameters})
		}
	}
	// The primary example first: it is the one shown with the tool.
	slices.SortStableFunc(examples, func(a, b command.Example) int {
		return boolRank(primary(t.Examples, b.Utterance)) - boolRank(primary(t.Examples, a.Utterance))
	})
	return &command.Command{
		Name: name, Description: t.Function.Description, Parameters: params,
		Keywords: t.Keywords, Examples: examples, Rules: t.Rules,
		DirectAnswer: t.AllowDirectAnswer != nil && *t.AllowDirectAnswer,
		Run: func(ctx context.Context, c command.Call) (command.Response, error) {
			tr, _ := ctx.Value(runKey{}).(*run)
			if tr == nil {
				return command.Response{Kind: command.Failure, Spoken: locale.Speaking(ctx).T("That runs on the speaker, which is not connected.")}, nil
			}
			args, err := json.Marshal(encodeArgs(params, c.Args))
			if err != nil {
				return command.Response{}, fmt.Errorf("center: %s: %w", name, err)
			}
			id := newID("call_")
			at := -1 // the call's index in the reply's ledger
			sum := argsSum(json.RawMessage(args))
			switch m, i, ok := tr.led.before(name, sum); {
			case ok && m.Done:
				tr.led.log.Info("a node's tool call answered from the record of the request's reply before", "tool", name, "call", m.ID)
				return m.Result, nil
			case ok && m.ID != "":
				// Sent before, its result never came: the same call again,
				// which a node that ran it knows by its id.
				id, at = m.ID, i
			default:
				at = tr.led.sent(ctx, name, sum, id)
			}
			tr.mu.Lock()
			tr.waiting = id
			tr.mu.Unlock()
			tr.send(ctx, event{call: &ToolCall{ID: id, Type: "function", Function: CallFunction{Name: name, Arguments: string(args)}}})
			timer := time.NewTimer(timeout)
			defer timer.Stop()
			select {
			case res := <-tr.results:
				r := fromOutput(name, res.Output)
				tr.led.done(ctx, at, r)
				return r, nil
			case <-timer.C:
				tr.mu.Lock()
				tr.waiting = ""
				tr.mu.Unlock()
				sess.touch()
				return command.Response{Kind: command.Failure, Spoken: locale.Speaking(ctx).T("The speaker did not answer."),
					Data: map[string]any{"error": fmt.Sprintf("no result from node %s within %v", sess.node, timeout)}}, nil
			case <-ctx.Done():
				return command.Response{}, ctx.Err()
			}
		},
	}, nil
}

func primary(xs []Example, utterance string) bool {
	for _, x := range xs {
		if x.VoiceCommand == utterance {
			return x.IsPrimary
		}
	}
	return false
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// described is the client tools with the keywords, examples and rules a
// node gave only in its available_commands.
func described(tools []Tool, defs []CommandDefinition) []Tool {
	if len(defs) == 0 {
		return tools
	}
	byName := map[string]CommandDefinition{}
	for _, d := range defs {
		byName[d.CommandName] = d
	}
	out := slices.Clone(tools)
	for i, t := range out {
		d, ok := byName[t.Function.Name]
		if !ok {
			continue
		}
		if len(t.Keywords) == 0 {
			out[i].Keywords = d.Keywords
		}
		if len(t.Examples) == 0 {
			out[i].Examples = d.Examples
		}
		if len(t.Rules) == 0 {
			out[i].Rules = d.Rules
		}
	}
	return out
}

// schemaProp is one property of a tool's JSON schema.
type schemaProp struct {
	Type        string      `json:"type"`
	Format      string      `json:"format"`
	Description string      `json:"description"`
	Enum        []any       `json:"enum"`
	Items       *schemaProp `json:"items"`
	Refinable   bool        `json:"_refinable"`
}

// parametersOf reads a tool's JSON schema into parameters.
func parametersOf(raw json.RawMessage) ([]command.Parameter, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var s struct {
		Type       string                `json:"type"`
		Properties map[string]schemaProp `json:"properties"`
		Required   []string              `json:"required"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	if s.Type != "" && s.Type != "object" {
		return nil, fmt.Errorf("parameters: type %q, want an object", s.Type)
	}
	var out []command.Parameter
	for name, p := range s.Properties {
		typ := kindOf(p)
		if p.Type == "array" {
			item := "string"
			if p.Items != nil {
				item = kindOf(*p.Items)
			}
			if item == "dict" {
				item = "string"
			}
			typ = "array<" + item + ">"
		}
		param := command.Parameter{Name: name, Type: typ, Description: p.Description, Refinable: p.Refinable}
		for _, e := range p.Enum {
			param.Enum = append(param.Enum, fmt.Sprint(e))
		}
		for _, r := range s.Required {
			param.Required = param.Required || r == name
		}
		out = append(out, param)
	}
	// A stable order: the schema's map has none.
	slices.SortFunc(out, func(a, b command.Parameter) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func kindOf(p schemaProp) string {
	switch p.Type {
	case "integer":
		return "int"
	case "number":
		return "float"
	case "boolean":
		return "bool"
	case "object":
		return "dict"
	case "string":
		switch p.Format {
		case "date-time":
			return "datetime"
		case "date":
			return "date"
		case "time":
			return "time"
		case "duration":
			return "timedelta"
		}
	}
	return "string"
}

// encodeArgs writes validated arguments back as JSON values the node's own
// validation reads: times as ISO 8601, durations as Go durations.
func encodeArgs(params []command.Parameter, args command.Args) map[string]any {
	kinds := map[string]string{}
	for _, p := range params {
		kinds[p.Name] = strings.TrimSuffix(strings.TrimPrefix(p.Type, "array<"), ">")
	}
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = encodeValue(kinds[k], v)
	}
	return out
}

func encodeValue(kind string, v any) any {
	switch x := v.(type) {
	case time.Time:
		switch kind {
		case "date":
			return x.Format("2006-01-02")
		case "time":
			return x.Format("15:04:05")
		}
		return x.Format(time.RFC3339)
	case time.Duration:
		return x.String()
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = encodeValue(kind, e)
		}
		return out
	}
	return v
}

// fromOutput is a node's tool result as a command response. Why a tool
// failed reaches the model: the output's error, or else its message.
//
// What the node says is its own: the model reads it fenced, as data, never
// as instructions (a node's tool may return what a web page said).
func fromOutput(name string, o ToolOutput) command.Response {
	if o.Success && o.Error == "" {
		return command.Response{Kind: command.Success, Data: map[string]any{"result": fenceOutput(name, o.Message, o.Context)}}
	}
	var problems []Problem
	if raw, ok := o.Context["problems"]; ok {
		b, _ := json.Marshal(raw)
		json.Unmarshal(b, &problems)
	}
	if len(problems) > 0 {
		r := command.Response{Kind: command.Invalid, Spoken: o.Message}
		for _, p := range problems {
			r.Problems = append(r.Problems, command.Problem{Param: p.Param, Message: p.Message, Valid: p.Valid})
		}
		return r
	}
	why := o.Error
	switch {
	case why == "":
		why = o.Message
	case o.Message != "" && o.Message != why:
		why = o.Message + ": " + why
	}
	if why == "" {
		return command.Response{Kind: command.Failure, Data: map[string]any{"error": "the speaker's tool failed and said nothing more"}}
	}
	return command.Response{Kind: command.Failure, Data: map[string]any{"error": fenceOutput(name, why, o.Context)}}
}

// nodeOutputChars bounds what of a node's tool result the model reads.
const nodeOutputChars = 4000

// fenceOutput is a node's message and context for the model, fenced.
func fenceOutput(name, message string, context map[string]any) string {
	text := message
	if len(context) > 0 {
		b, _ := json.Marshal(context)
		text = strings.TrimSpace(text + "\n" + string(b))
	}
	return command.Fence("the speaker's "+name, text, nodeOutputChars)
}

// outputOf is a command's response as a node sends it back.
func outputOf(r command.Response) ToolOutput {
	o := ToolOutput{Success: r.Kind == command.Success || r.Kind == command.FollowUp, Message: r.Spoken, Context: r.Data}
	if r.Kind == command.Invalid {
		var problems []Problem
		for _, p := range r.Problems {
			problems = append(problems, Problem{Param: p.Param, Message: p.Message, Valid: p.Valid})
			if o.Message == "" {
				o.Message = p.Message
			}
		}
		o.Context = map[string]any{"problems": problems}
	}
	return o
}

// ToolsOf is commands as client tools.
func ToolsOf(cmds []*command.Command) []Tool {
	var out []Tool
	for _, c := range cmds {
		params, _ := json.Marshal(c.ParametersSchema())
		out = append(out, Tool{Type: "function", Function: Function{Name: c.Name, Description: c.Description, Parameters: params}})
	}
	return out
}
