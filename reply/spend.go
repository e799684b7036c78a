package reply

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
)

// On a model server without a GPU, evaluating the prompt is nearly the whole
// cost of a reply, so the engine prices every call before making it. The
// meter (package cost) knows the server's rates and what its prompt cache
// holds; each auxiliary call (planner, memory search terms, router,
// digests) is made only when it is cheap next to the chat call it serves,
// and otherwise its deterministic stand-in runs. Time-outs and the reply
// budget follow from the same figures.

// firstWords is the tokens generated before the first sentence can be said.
const firstWords = 16

// answerTokens is the chat model's answer's bound by default
// (Options.AnswerTokens), and the longest answer the chat call's time-out
// allows for when there is none.
const answerTokens = 256

// Handful is the most tools the router offers a small model, or any model
// when the router's own model call is not worth making.
const Handful = 3

// chatKey and auxKey name the chat and auxiliary models for the meter: of
// a fallback chain, the server and model answering now.
func (e *Engine) chatKey() string { return e.key(e.o.Model, e.o.ModelName) }
func (e *Engine) auxKey() string  { return e.key(e.o.Aux, e.o.AuxModelName) }

// answering is a model that may change servers, as a fallback chain does.
type answering interface {
	Current() (host *url.URL, model string)
}

func (e *Engine) key(m llm.Chatter, name string) string {
	if a, ok := m.(answering); ok {
		host, model := a.Current()
		return cost.Key(host.String(), model)
	}
	return cost.Key(e.o.Server, name)
}

// flat renders a request the way a server's prompt cache sees it: the
// messages in order, with the tool definitions where the model's template
// puts them (in the system prompt, or in the last user message).
func flat(req llm.Request, toolsMove bool) string {
	var b strings.Builder
	var tools strings.Builder
	for _, t := range req.Tools {
		fmt.Fprintf(&tools, "<tool %s %s %s>", t.Name, t.Description, t.Parameters)
	}
	for i, m := range req.Messages {
		if tools.Len() > 0 && (i == len(req.Messages)-1 && toolsMove || i == 1 && !toolsMove) {
			b.WriteString(tools.String())
		}
		fmt.Fprintf(&b, "<%s>%s", m.Role, m.Content)
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "<call %s %s>", c.Name, canonical(c.Arguments))
		}
	}
	if len(req.Format) > 0 {
		b.Write(req.Format)
	}
	return b.String()
}

// metered makes one model call through the meter: priced and recorded as
// the server's cache content before, learned from after.
func (t *turn) metered(ctx context.Context, m llm.Chatter, key string, req llm.Request, onChunk func(llm.Chunk) error) (llm.Response, error) {
	e := t.e
	f := flat(req, t.toolsMove)
	est := e.meter.Prompt(key, f)
	t.res.Timings.ModelCalls++
	t.res.Timings.PromptChars += len(f)
	t.res.Timings.PromptTokens += est.Tokens
	t.res.Timings.Evaluated += est.Evaluated()
	var call *llm.Call
	if t.ticket != nil {
		call = t.ticket.Begin()
	}
	resp, err := m.Chat(ctx, req, onChunk)
	if call != nil {
		call.End(resp, err)
	}
	if err != nil {
		return resp, err
	}
	e.meter.Observe(key, cost.Observation{
		PromptChars: len(f), Reused: est.Reused,
		PromptTokens: resp.PromptTokens, PromptDuration: resp.PromptDuration,
		OutputTokens: resp.OutputTokens, EvalDuration: resp.EvalDuration,
	})
	return resp, nil
}

// priceChat estimates the chat call as it would be made now, before the
// plan, memory and tools are known: what its first sentence costs. The
// reply budget and every auxiliary call are measured against it.
func (t *turn) priceChat() {
	e := t.e
	req := llm.Request{Messages: t.messages(), Tools: t.tools()}
	est := e.meter.Peek(e.chatKey(), flat(req, t.toolsMove))
	r := e.meter.Rates(e.chatKey())
	t.chatEst = est
	t.chatCost = r.Call(est.Evaluated(), firstWords)
	if !r.Known() {
		return // the configured budget and time-out, until the server is measured
	}
	// A budget is a bound on waiting for a server that is broken, not for
	// one that is merely slow: twice what a healthy answer takes.
	budget := max(e.o.ReplyBudget, 2*t.chatCost+2*time.Second) + t.slack
	t.deadline = t.origin.Add(budget)
	t.auxDeadline = t.origin.Add(budget / 2)
	longest := t.maxTokens()
	if longest == 0 {
		longest = answerTokens
	}
	t.chatTimeout = max(e.o.ChatTimeout, 2*r.Call(est.Evaluated(), longest))
}

// worth reports whether an auxiliary call with a prompt of about chars
// characters and an answer of about out tokens is worth making, and
// returns the time-out it gets: three times what it should take, within
// ceiling. Otherwise the caller runs its stand-in, which is noted.
func (t *turn) worth(what string, chars, out int, ceiling time.Duration) (time.Duration, bool) {
	e := t.e
	r := e.meter.Rates(e.auxKey())
	aux := r.Call(r.Tokens(chars), out)
	if e.auxKey() == e.chatKey() {
		// The server keeps one prompt in its cache: an auxiliary call to
		// the chat model evicts the chat call's reused prefix.
		aux += r.PromptTime(t.chatEst.Reused)
	}
	if !e.o.Policy.Worth(aux, t.chatCost) {
		t.res.StandIns = append(t.res.StandIns, what)
		e.log.Debug("auxiliary call not worth it; using its stand-in", "call", what,
			"aux_ms", aux.Milliseconds(), "chat_ms", t.chatCost.Milliseconds())
		return 0, false
	}
	return min(ceiling, max(time.Second, 3*aux)), true
}

// errNotWorth is what a call the engine chose not to make returns, so that
// callers fail open exactly as when it fails.
var errNotWorth = errors.New("reply: auxiliary call not worth its time here")

// warmWord is the user's message of the warm-up call.
const warmWord = "hello"

// Warm loads the chat model and fills the server's prompt cache with the
// system prompt every reply starts with (and the tools always on offer),
// so that the first question after the box starts pays only for its own
// words; the answer, one token, also teaches the meter the server's
// prompt rate, and its LoadDuration says how much of it was the load. It
// is the Keeper's warm-up (llm.Warm); a failure is also logged.
func (e *Engine) Warm(ctx context.Context) (llm.Response, error) {
	now := e.o.Now()
	t := &turn{e: e, conv: newConversation("warm-up", now), now: now, began: time.Now(), say: func(string) {}}
	t.text = e.textTools()
	t.know(e.modelSize(ctx))
	if e.o.Commands != nil {
		t.allowed = t.budget([]string{"stop", SearchTools})
	}
	req := llm.Request{MaxTokens: 1, Tools: t.tools(), Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: t.systemPrompt()},
		{Role: llm.RoleUser, Content: e.stamp(now) + "\n" + warmWord},
	}}
	began := time.Now()
	resp, err := t.metered(ctx, e.o.Model, e.chatKey(), req, nil)
	if err != nil {
		e.log.Warn("model warm-up failed", "err", err)
		return resp, fmt.Errorf("reply: warm up: %w", err)
	}
	e.log.Info("model warmed up", "ms", time.Since(began).Milliseconds(), "load_ms", resp.LoadDuration.Milliseconds(),
		"prompt_tokens", resp.PromptTokens)
	return resp, nil
}
