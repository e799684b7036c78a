package reply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/speech"
)

// splitter wraps speech.Splitter for the engine's use.
type splitter struct{ s speech.Splitter }

func (p *splitter) write(text string) []string { return p.s.Write(text) }
func (p *splitter) flush() string              { return p.s.Flush() }

// converse asks the model, running the tools it calls, for at most MaxTurns
// model calls.
func (t *turn) converse(ctx context.Context, history []llm.Message) error {
	e := t.e
	msgs := append([]llm.Message{{Role: llm.RoleSystem, Content: e.systemPrompt(t.now, t.q.Language)}}, history...)
	msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: t.q.Text})
	tools := e.tools()
	invalid := map[string]int{}

	for range e.o.MaxTurns {
		resp, err := t.chat(ctx, msgs, tools)
		if errors.Is(err, llm.ErrNoTools) && len(tools) > 0 {
			e.log.Warn("model does not support tools; answering without them", "model", e.o.ModelName)
			e.mu.Lock()
			e.noTools = true
			e.mu.Unlock()
			tools = nil
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			err = fmt.Errorf("reply: %w", err)
			t.speak(apology(err))
			return err
		}
		if len(resp.Message.ToolCalls) == 0 {
			if len(t.res.Sentences) == 0 {
				t.speak("Sorry, I have no answer to that.")
				return errors.New("reply: the model's answer was empty")
			}
			return nil
		}
		msgs = append(msgs, resp.Message)
		for _, call := range resp.Message.ToolCalls {
			r := e.o.Commands.Call(ctx, call.Name, call.Arguments, t.q.Text)
			t.res.Tools = append(t.res.Tools, ToolUse{Name: call.Name, Arguments: call.Arguments, Failed: r.Kind == command.Failure || r.Kind == command.Invalid})
			t.settle(r)
			if r.EndConversation {
				return nil // stop: say nothing more
			}
			if r.Kind == command.Invalid && len(valid(r)) > 0 {
				if invalid[call.Name]++; invalid[call.Name] >= 2 {
					// The model missed twice even with the valid values: ask.
					t.speak(choose(r))
					t.res.FollowUp = true
					return nil
				}
			}
			msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolName: call.Name, Content: toolResult(r)})
		}
	}
	e.log.Warn("reply ran out of model turns", "turns", e.o.MaxTurns)
	t.speak("Sorry, I couldn't finish that.")
	return errors.New("reply: out of model turns")
}

// chat makes one streamed model call, speaking content as it comes.
func (t *turn) chat(ctx context.Context, msgs []llm.Message, tools []llm.Tool) (llm.Response, error) {
	cctx, cancel := context.WithTimeout(ctx, t.e.o.ChatTimeout)
	defer cancel()
	t.res.Timings.ModelCalls++
	t.res.Timings.PromptChars += promptChars(msgs)
	for _, tool := range tools {
		t.res.Timings.PromptChars += len(tool.Name) + len(tool.Description) + len(tool.Parameters)
	}
	var sp splitter
	resp, err := t.e.o.Model.Chat(cctx, llm.Request{Messages: msgs, Tools: tools}, func(c llm.Chunk) error {
		if c.Content == "" {
			return nil // thinking is kept by the model's history, never spoken
		}
		if t.res.Timings.FirstToken == 0 {
			t.res.Timings.FirstToken = time.Since(t.began)
		}
		for _, s := range sp.write(c.Content) {
			t.speak(s)
		}
		return nil
	})
	if err == nil {
		if rest := sp.flush(); rest != "" {
			t.speak(rest)
		}
	}
	return resp, err
}

// tools is the commands as the model sees them, unless it refused tools.
func (e *Engine) tools() []llm.Tool {
	e.mu.Lock()
	off := e.noTools
	e.mu.Unlock()
	if off || e.o.Commands == nil {
		return nil
	}
	var out []llm.Tool
	for _, c := range e.o.Commands.Commands() {
		params, _ := json.Marshal(c.ParametersSchema())
		out = append(out, llm.Tool{Name: c.Name, Description: c.Description, Parameters: params})
	}
	return out
}

// toolResult is a command's response as the model reads it.
func toolResult(r command.Response) string {
	switch r.Kind {
	case command.Failure:
		msg := r.Spoken
		if e, ok := r.Data["error"]; ok {
			msg += fmt.Sprintf(" (%v)", e)
		}
		return "Error: " + msg
	case command.Invalid:
		var parts []string
		for _, p := range r.Problems {
			s := p.Message
			if len(p.Valid) > 0 {
				s += fmt.Sprintf(". Valid values for %s: %s", p.Param, strings.Join(p.Valid, ", "))
			}
			parts = append(parts, s)
		}
		return "Error: invalid arguments: " + strings.Join(parts, "; ") + ". Call the tool again with corrected arguments."
	}
	out := map[string]any{"status": "ok"}
	if r.Spoken != "" {
		out["message"] = r.Spoken
	}
	if len(r.Data) > 0 {
		out["data"] = r.Data
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "OK: " + r.Spoken
	}
	return string(b)
}

func valid(r command.Response) []string {
	for _, p := range r.Problems {
		if len(p.Valid) > 0 {
			return p.Valid
		}
	}
	return nil
}

// choose asks the user to pick one of the valid values.
func choose(r command.Response) string {
	v := valid(r)
	if len(v) > 6 {
		v = append(v[:6:6], "something else")
	}
	if r.Spoken != "" && strings.HasSuffix(r.Spoken, "?") {
		return r.Spoken
	}
	return fmt.Sprintf("Which one do you mean: %s or %s?", strings.Join(v[:len(v)-1], ", "), v[len(v)-1])
}

// apology is the one sentence said when the model fails.
func apology(err error) string {
	switch {
	case errors.Is(err, llm.ErrUnreachable):
		return "I can't reach my language model right now."
	case errors.Is(err, llm.ErrModelNotFound):
		return "My language model isn't installed on the server."
	case errors.Is(err, context.DeadlineExceeded):
		return "My language model took too long to answer."
	case errors.Is(err, llm.ErrStreamCut):
		return "I lost the connection to my language model."
	}
	return "Something went wrong with my language model."
}

func promptChars(msgs []llm.Message) int {
	n := 0
	for _, m := range msgs {
		n += len(m.Content)
		for _, c := range m.ToolCalls {
			b, _ := json.Marshal(c.Arguments)
			n += len(c.Name) + len(b)
		}
	}
	return n
}
