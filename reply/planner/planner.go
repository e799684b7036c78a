// Package planner asks a small model, before anything else, how an answer
// should be reached: a few short steps that say whether past conversations
// must be searched and which tools are needed. A plan of one "reply" step is
// a positive decision that neither is; an empty plan (the planner failed or
// timed out, or the query is very short) means "decide as if there were no
// planner".
package planner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/speech"
)

// Tool is a catalogue entry the planner may name.
type Tool struct{ Name, Description string }

// MaxSteps is the longest plan.
const MaxSteps = 5

// Step is one step of a plan.
type Step struct {
	Text string
	// Tool names the tool this step uses; empty for other steps.
	Tool string
	// Memory marks a memory search, Topic what to search for.
	Memory bool
	Topic  string
	// Reply marks the final answer.
	Reply bool
}

// Plan is the planner's answer.
type Plan struct{ Steps []Step }

// Empty reports a plan that decides nothing: fail open.
func (p Plan) Empty() bool { return len(p.Steps) == 0 }

// ReplyOnly reports the positive decision that neither memory nor tools are
// needed.
func (p Plan) ReplyOnly() bool { return len(p.Steps) == 1 && p.Steps[0].Reply }

// WantsMemory reports a leading memory step.
func (p Plan) WantsMemory() bool { return len(p.Steps) > 0 && p.Steps[0].Memory }

// Topic is what the leading memory step searches for.
func (p Plan) Topic() string {
	if p.WantsMemory() {
		return p.Steps[0].Topic
	}
	return ""
}

// Tools are the tools the plan names, in order, without repeats.
func (p Plan) Tools() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range p.Steps {
		if s.Tool != "" && !seen[s.Tool] {
			seen[s.Tool] = true
			out = append(out, s.Tool)
		}
	}
	return out
}

// ToolSteps are the steps that use a tool.
func (p Plan) ToolSteps() []Step {
	var out []Step
	for _, s := range p.Steps {
		if s.Tool != "" {
			out = append(out, s)
		}
	}
	return out
}

// Block renders a plan of more than one step for the system prompt;
// nothing otherwise.
func (p Plan) Block() string {
	if len(p.Steps) < 2 {
		return ""
	}
	var b strings.Builder
	b.WriteString("Plan for this answer (follow it in order):")
	for i, s := range p.Steps {
		fmt.Fprintf(&b, "\n%d. %s", i+1, s.Text)
	}
	return b.String()
}

// Options configure a Planner.
type Options struct {
	Model llm.Chatter
	// Timeout bounds the planner's call; default 6 s.
	Timeout time.Duration
	// MinWords: queries shorter than this are not planned; default 3.
	MinWords int
	Log      *slog.Logger
}

// Planner plans answers.
type Planner struct{ o Options }

// New returns a Planner.
func New(o Options) *Planner {
	if o.Timeout == 0 {
		o.Timeout = 6 * time.Second
	}
	if o.MinWords == 0 {
		o.MinWords = 3
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Planner{o: o}
}

const system = `You decide how a voice assistant will answer a request, before it answers. Reply with JSON {"steps": [...]}: at most 5 short steps, in order.
- If the answer needs something the user said in earlier conversations (their plans, preferences, things they told the assistant), the FIRST step is "memory: <what to look for>".
- For each tool the answer needs, a step "<tool name>: <what to ask it>", naming only tools from the list below.
- The last step is "reply".
When neither memory nor a tool is needed (greetings, thanks, small talk, general knowledge, instructions about how to talk), the plan is just ["reply"].
Tools:
`

var schema = llm.Schema(`{"type":"object","properties":{"steps":{"type":"array","items":{"type":"string"},"maxItems":5}},"required":["steps"]}`)

// Plan asks for a plan. It fails open: on a short query, an error or a
// timeout it returns an empty plan, with the error. The reasoning a
// reasoning model writes into its answer (<think>…</think>) is not read
// for a plan; an answer that was reasoning only is an error.
func (pl *Planner) Plan(ctx context.Context, query, dialogue string, tools []Tool) (Plan, error) {
	if len(strings.Fields(query)) < pl.o.MinWords {
		return Plan{}, nil
	}
	var b strings.Builder
	b.WriteString(system)
	for _, t := range tools {
		fmt.Fprintf(&b, "- %s: %s\n", t.Name, t.Description)
	}
	user := "Request: " + query
	if dialogue != "" {
		user = "Recent conversation:\n" + dialogue + "\n\n" + user
	}
	ctx, cancel := context.WithTimeout(ctx, pl.o.Timeout)
	defer cancel()
	resp, err := pl.o.Model.Chat(ctx, llm.Request{Format: schema, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: strings.TrimRight(b.String(), "\n")},
		{Role: llm.RoleUser, Content: user},
	}}, nil)
	if err != nil {
		return Plan{}, fmt.Errorf("planner: %w", err)
	}
	content, thought := speech.SplitReasoning(resp.Message.Content)
	if content == "" && thought != "" {
		return Plan{}, errReasoningOnly
	}
	var out struct {
		Steps []string `json:"steps"`
	}
	if err := llm.DecodeJSON(content, &out); err != nil {
		return Plan{}, fmt.Errorf("planner: %w", err)
	}
	return Parse(out.Steps, tools), nil
}

// errReasoningOnly is the error of an answer that was inline reasoning
// only, closed or cut at the token limit.
var errReasoningOnly = errors.New("planner: the answer was reasoning only")

// Parse reads plan steps as the planner writes them.
func Parse(steps []string, tools []Tool) Plan {
	known := map[string]bool{}
	for _, t := range tools {
		known[strings.ToLower(t.Name)] = true
	}
	var p Plan
	for _, raw := range steps {
		text := strings.TrimSpace(raw)
		if text == "" {
			continue
		}
		s := Step{Text: text}
		head, rest, _ := strings.Cut(text, ":")
		head = strings.ToLower(strings.TrimSpace(strings.Trim(head, "`'\"")))
		switch {
		case head == "memory" || head == "search memory" || head == "searchmemory":
			s.Memory, s.Topic = true, strings.Trim(strings.TrimSpace(rest), "'\"")
		case known[head]:
			s.Tool = head
		case isReply(head):
			s.Reply = true
		}
		p.Steps = append(p.Steps, s)
		if len(p.Steps) == MaxSteps {
			break
		}
	}
	if len(p.Steps) > 0 && !p.Steps[len(p.Steps)-1].Reply && len(p.Steps) < MaxSteps {
		p.Steps = append(p.Steps, Step{Text: "reply", Reply: true})
	}
	return p
}

func isReply(head string) bool {
	for _, w := range []string{"reply", "answer", "respond", "final"} {
		if strings.HasPrefix(head, w) {
			return true
		}
	}
	return false
}

// Overhead is the planner prompt's length without the request, the
// dialogue and the tools, for pricing the call before it is made.
const Overhead = len(system) + 64
