package reply

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/speech"
	"github.com/harkbox/hark/reply/tooltext"
)

// Small models using tools in text lose track of multi-step requests. When
// the plan names tool steps, the engine runs them itself, one small-model
// call turning each step into a concrete call, and asks the chat model only
// for the final answer. Without a plan, a compound request is split and the
// model nudged until each part has a tool result.

const resolveSystem = `You turn one step of a plan into a tool call. Reply with JSON {"name": "...", "arguments": {...}} for the tool given, filling the arguments from the step, the user's request and the results so far. Where the step refers to something a result found, use the value the result gives.`

var resolveSchema = llm.Schema(`{"type":"object","properties":{"name":{"type":"string"},"arguments":{"type":"object"}},"required":["name","arguments"]}`)

// direct executes the next planned tool step and reports whether it did.
func (t *turn) direct(ctx context.Context, msgs *[]llm.Message) bool {
	steps := t.plan.ToolSteps()
	step := steps[t.stepsDone]
	if !slices.Contains(t.allowed, step.Tool) {
		return false
	}
	c, ok := t.e.o.Commands.Lookup(step.Tool)
	if !ok {
		return false
	}
	schema, _ := json.Marshal(c.ParametersSchema())
	var results []string
	for _, r := range t.records {
		results = append(results, r.Name+": "+clip(r.Result, 500))
	}
	user := fmt.Sprintf("Request: %s\nStep: %s\nTool: %s: %s\nArguments schema: %s\nResults so far:\n%s",
		t.q.Text, step.Text, c.Name, c.Description, schema, orNothing(strings.Join(results, "\n")))
	timeout, ok := t.worth("plan step", len(resolveSystem)+len(user), 40, t.e.o.AuxTimeout)
	if !ok {
		return false // the chat model takes the step itself
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := t.aux.Chat(cctx, llm.Request{Format: resolveSchema, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: resolveSystem},
		{Role: llm.RoleUser, Content: user},
	}}, nil)
	if err != nil {
		t.e.log.Warn("plan step not resolved; the chat model takes over", "step", t.stepsDone+1, "err", err)
		return false
	}
	// A reasoning model's inline reasoning may draft a call it then
	// turns down: only the answer after it is read.
	content, thought := speech.SplitReasoning(resp.Message.Content)
	if content == "" && thought != "" {
		t.e.log.Warn("plan step not resolved: the answer was reasoning only; the chat model takes over", "step", t.stepsDone+1)
		return false
	}
	var call struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
	if err := llm.DecodeJSON(content, &call); err != nil || call.Name != step.Tool {
		t.e.log.Warn("plan step resolved to a different or no tool; the chat model takes over", "step", t.stepsDone+1)
		return false
	}
	if call.Arguments == nil {
		call.Arguments = map[string]any{}
	}
	args, _ := json.Marshal(call.Arguments)
	*msgs = append(*msgs, llm.Message{Role: llm.RoleAssistant, Content: "```" + tooltext.Fence + "\n" +
		fmt.Sprintf(`{"name": %q, "arguments": %s}`, call.Name, args) + "\n```"})
	result, _, done := t.execute(ctx, llm.ToolCall{Name: call.Name, Arguments: call.Arguments})
	t.stepsDone++
	t.answered++
	if done {
		t.stepsDone = len(steps)
		*msgs = append(*msgs, llm.Message{Role: llm.RoleUser, Content: tooltext.Result(call.Name, result)})
		return true
	}
	next := "All planned steps are done. Now answer the user's request in plain words, using these results."
	if t.stepsDone < len(steps) {
		next = fmt.Sprintf("Step %d of %d done. Next: %s", t.stepsDone, len(steps), steps[t.stepsDone].Text)
	}
	*msgs = append(*msgs, llm.Message{Role: llm.RoleUser, Content: tooltext.Result(call.Name, result) + "\n" + next})
	return true
}

func orNothing(s string) string {
	if s == "" {
		return "none yet"
	}
	return s
}

// nudge follows a tool result in text mode: which part of a compound
// request is still open, or a reminder to finish.
func (t *turn) nudge() string {
	if len(t.parts) >= 2 && t.answered < len(t.parts) {
		return fmt.Sprintf("You have answered %d of %d parts of the request. Still open: %q. Call another tool for it now.",
			t.answered, len(t.parts), t.parts[t.answered])
	}
	return "If part of the request is still unanswered, call another tool now; otherwise answer the user in plain words."
}

// routerFor returns a picker of tools for search_tools' description.
func (t *turn) routerFor(ctx context.Context) func(string) ([]string, bool) {
	r, tools := t.router("tool search", t.e.catalog(ctx, t.lang), 0, min(t.e.o.RouterMax, Handful))
	return func(q string) ([]string, bool) {
		return r.Select(ctx, q, tools)
	}
}
