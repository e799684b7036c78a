package reply

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/compound"
	"github.com/harkbox/hark/reply/distil"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/tooltext"
	"github.com/harkbox/hark/storage"
)

// maxThinkingTurns bounds the answers of reasoning only in one reply.
const maxThinkingTurns = 2

// answerNow follows an answer that was reasoning only.
const answerNow = "Now answer the user, in plain spoken words."

// trouble is said when the model's answer is not fit to be spoken.
var trouble = locale.Key("Sorry, I had trouble with that.")

// converse prepares the turn and runs the agentic loop: at most MaxTurns
// model calls, running the tools the model calls.
func (t *turn) converse(ctx context.Context) error {
	e := t.e
	t.seen, t.invalid, t.results = map[string]bool{}, map[string]int{}, map[string]string{}
	t.text = e.textTools()
	err := t.ready(ctx)
	if err == nil {
		err = t.enter(ctx)
		defer t.leave()
	}
	if err == nil {
		err = t.prepare(ctx)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		err = prefixed(err)
		t.apologize(ctx, err)
		return err
	}
	if t.text {
		t.parts = compound.Split(t.q.Text, t.q.Language)
	}
	msgs := t.messages()

	for turns := 0; turns < e.o.MaxTurns; {
		// The first system message is refreshed, never added to: a new
		// system message mid-loop breaks native tool calling.
		msgs[0].Content = t.systemPrompt()
		if t.text && t.stepsDone < len(t.plan.ToolSteps()) {
			if ok := t.direct(ctx, &msgs); ok {
				turns++
				continue
			}
			t.stepsDone = len(t.plan.ToolSteps()) // resolution failed: let the chat model go on
		}
		turns++
		resp, err := t.chat(ctx, msgs)
		if errors.Is(err, llm.ErrNoTools) && !t.text {
			// Of that server's model only: another server of a chain, back
			// after an outage, gets native tools again.
			refused := e.answered(resp)
			e.log.Warn("model does not support tools; describing them in text to it from now on", "endpoint", refused)
			e.mu.Lock()
			e.noTools[refused] = true
			e.mu.Unlock()
			t.text = true
			t.parts = compound.Split(t.q.Text, t.q.Language)
			turns-- // the refused call did no work
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			err = prefixed(err)
			t.apologize(ctx, err)
			return err
		}
		calls, content, written := t.calls(resp)
		if len(calls) == 0 && strings.TrimSpace(content) == "" && resp.Message.Thinking != "" && t.thought < maxThinkingTurns {
			// A thinking model that only reasoned: keep its reasoning in
			// the history, never say it, and ask for the answer.
			t.thought++
			e.log.Info("the model only reasoned; asking it to answer", "turn", t.thought)
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Thinking: resp.Message.Thinking},
				llm.Message{Role: llm.RoleUser, Content: answerNow})
			continue
		}
		if len(calls) == 0 {
			switch {
			case t.malformed && len(t.res.Sentences) == 0:
				e.log.Warn("malformed answer not spoken", "chars", len(content))
				t.speak(t.lang.T(trouble))
			case len(t.res.Sentences) == 0 && t.lastResult != "" && !t.askedAgain:
				// Nothing said right after a tool answered: ask once more.
				t.askedAgain = true
				msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: content}, llm.Message{Role: llm.RoleUser, Content: answerNow})
				continue
			case len(t.res.Sentences) == 0 && t.lastSpoken != "":
				t.speakText(t.lastSpoken) // the tool's own answer, rather than none
			case len(t.res.Sentences) == 0:
				t.speak(t.lang.T("Sorry, I have no answer to that."))
				return errors.New("reply: the model's answer was empty")
			}
			return nil
		}
		switch {
		case t.text:
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: content, Thinking: resp.Message.Thinking})
		case written:
			// As if the server had parsed them: the model then reads its
			// calls, and their results, as native ones.
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: content, Thinking: resp.Message.Thinking, ToolCalls: calls})
		default:
			msgs = append(msgs, resp.Message)
		}
		for _, call := range calls {
			result, _, done := t.execute(ctx, call)
			if done {
				return nil
			}
			if t.text {
				t.answered++
				result = tooltext.Result(call.Name, result) + "\n" + t.nudge()
				msgs = append(msgs, llm.Message{Role: llm.RoleUser, Content: result})
			} else {
				msgs = append(msgs, llm.Message{Role: llm.RoleTool, ToolName: call.Name, ToolCallID: call.ID, Content: result})
			}
		}
	}
	return t.outOfTurns(ctx)
}

// calls reads the tool calls of an answer and returns them with the
// answer's text. In text mode they are the fenced blocks the prompt asks
// for (or tags), or JSON objects ending the answer on lines of their own.
// In native mode they are the server's; when it parsed none, the calls the
// model wrote in its text in one of those ways, of tools the engine has
// (a small model writes one after a lead-in sentence, where the server's
// parser, which looks at the start of the answer, misses it): written is
// then set, and the text is the answer without them.
func (t *turn) calls(resp llm.Response) (calls []llm.ToolCall, content string, written bool) {
	content = resp.Message.Content
	if !t.text {
		if len(resp.Message.ToolCalls) > 0 {
			return resp.Message.ToolCalls, content, false
		}
		parsed, rest, _ := tooltext.Parse(content)
		if len(parsed) == 0 || !t.known(parsed) {
			parsed, rest = t.trailing(content)
		}
		if len(parsed) == 0 {
			return nil, content, false
		}
		t.e.log.Info("tool call written in the answer's text; running it", "calls", len(parsed))
		return toolCalls(parsed), rest, true
	}
	parsed, _, err := tooltext.Parse(content)
	if err != nil {
		t.e.log.Warn("text tool call not understood", "err", err)
	}
	if len(parsed) == 0 {
		parsed, _ = t.trailing(content)
	}
	calls = toolCalls(parsed)
	if len(calls) == 0 {
		calls = resp.Message.ToolCalls // some servers parse them anyway
	}
	return calls, content, false
}

// trailing reads the calls written as JSON objects that end the answer
// (tooltext.Trailing), when they are of tools the engine has: bare JSON
// may be data, not a call.
func (t *turn) trailing(content string) ([]tooltext.Call, string) {
	calls, rest := tooltext.Trailing(content)
	if len(calls) == 0 || !t.known(calls) {
		return nil, content
	}
	return calls, rest
}

// known reports whether every call names a tool the engine has.
func (t *turn) known(calls []tooltext.Call) bool {
	for _, c := range calls {
		if c.Name == SearchTools {
			continue
		}
		if t.e.o.Commands == nil {
			return false
		}
		if _, ok := t.e.o.Commands.Lookup(c.Name); !ok {
			return false
		}
	}
	return true
}

func toolCalls(parsed []tooltext.Call) []llm.ToolCall {
	var calls []llm.ToolCall
	for _, c := range parsed {
		calls = append(calls, llm.ToolCall{Name: c.Name, Arguments: c.Arguments})
	}
	return calls
}

// execute runs one tool call and returns what goes back to the model; done
// is set when the reply ends here (stop, or the user must choose).
func (t *turn) execute(ctx context.Context, call llm.ToolCall) (result string, resp command.Response, done bool) {
	e := t.e
	key := call.Name + "|" + canonical(call.Arguments)
	record := func(content string, failed bool) {
		t.res.Tools = append(t.res.Tools, ToolUse{Name: call.Name, Arguments: call.Arguments, Failed: failed})
		t.records = append(t.records, storage.ToolRecord{Name: call.Name, Arguments: t.redactArgs(call.Arguments), Result: content, Failed: failed})
		t.results[key] = content
	}
	switch {
	case t.seen[key] || t.carried(key):
		return "Error: " + call.Name + " was already called with these arguments; use the result you have instead of calling it again.", resp, false
	case call.Name == SearchTools:
		t.seen[key] = true
		return t.searchTools(ctx, call), resp, false
	case !slices.Contains(t.allowed, call.Name):
		return fmt.Sprintf("Error: %s is not available now. Call %s to find the tool you need.", call.Name, SearchTools), resp, false
	}
	t.seen[key] = true
	// The model wrote placeholders for what was redacted; a local command
	// gets the real values, one that would send them elsewhere none, and
	// the model gets the result redacted.
	if hidden := t.conv.redactor.Placeholders(call.Arguments); len(hidden) > 0 {
		if c, ok := e.o.Commands.Lookup(call.Name); !ok || !c.Local {
			e.log.Warn("a redacted value was kept from a tool that sends its arguments off the box", "tool", call.Name, "values", len(hidden))
			content := fmt.Sprintf("Error: %s is withheld from %s: what the user said of passwords, codes and addresses stays on this box and is never sent to a tool that goes outside it. Do what you can without it, or tell the user you cannot.",
				strings.Join(hidden, ", "), call.Name)
			record(content, true)
			return content, command.Response{Kind: command.Failure}, false
		}
	}
	resp = e.o.Commands.Call(ctx, call.Name, t.conv.redactor.RestoreArgs(call.Arguments), t.raw)
	failed := resp.Kind == command.Failure || resp.Kind == command.Invalid
	t.settle(resp)
	content, _ := t.conv.redactor.Redact(toolResult(resp))
	t.conv.redactor.Reveal(resp.Reveal...)
	record(content, failed)
	if resp.EndConversation {
		return content, resp, true // stop: say nothing more
	}
	if resp.Kind == command.Invalid {
		t.seen[key] = false // the same call may come back corrected
		if t.invalid[call.Name]++; t.invalid[call.Name] >= 2 {
			// The model missed twice: ask the user, with the valid values
			// when there are some.
			if len(valid(resp)) > 0 {
				t.speak(choose(t.lang, resp))
			} else {
				t.speak(clarify(t.lang, resp))
			}
			t.res.FollowUp = true
			t.res.Choice = choiceOf(resp)
			return content, resp, true
		}
	}
	if !failed {
		t.lastResult = content
		t.lastSpoken = resp.Spoken
	}
	if !failed && (e.o.ToolDigest == On || e.o.ToolDigest == Auto && t.small) {
		timeout, ok := t.worth("tool digest", distil.Overhead+len(t.q.Text)+len(content), 80, e.o.DigestTimeout)
		if !ok {
			return clip(content, toolResultChars), resp, false
		}
		d := *e.distil
		d.Model, d.Timeout = t.aux, timeout
		note, raw, err := d.Tool(ctx, t.q.Text, call.Name, content)
		switch {
		case err != nil:
			e.log.Warn("tool digest failed; using the raw result", "tool", call.Name, "err", err)
		case raw && len(content) >= 400:
			e.log.Info("tool digest found nothing relevant; using the raw result", "tool", call.Name, "chars", len(content))
		case !raw:
			e.log.Info("tool digest", "tool", call.Name, "chars_in", len(content), "chars_out", len(note))
			content = note
		}
	}
	return content, resp, false
}

// carried reports a call already made, with its result, earlier in the
// conversation.
func (t *turn) carried(key string) bool {
	x := t.past.exchanges
	for _, ex := range x[max(0, len(x)-2):] {
		for _, r := range ex.Tools {
			if !r.Failed && r.Name+"|"+canonical(r.Arguments) == key {
				return true
			}
		}
	}
	return false
}

// searchTools widens the tools offered, at most ToolSearchMax times.
func (t *turn) searchTools(ctx context.Context, call llm.ToolCall) string {
	if t.searches >= t.e.o.ToolSearchMax {
		return "Error: no more tool searches in this reply; answer with the tools you have."
	}
	t.searches++
	q, _ := call.Arguments["query"].(string)
	if strings.TrimSpace(q) == "" {
		q = t.q.Text
	}
	var found []string
	for _, c := range t.e.catalog(ctx, t.lang) {
		if strings.Contains(strings.ToLower(c.name+" "+c.description+" "+strings.Join(c.keywords, " ")), strings.ToLower(q)) {
			found = append(found, c.name)
		}
	}
	if len(found) == 0 {
		r := t.routerFor(ctx)
		found, _ = r(q)
	}
	var added []string
	for _, n := range found {
		if !slices.Contains(t.allowed, n) {
			t.allowed = append(t.allowed, n)
			added = append(added, n)
		}
	}
	if len(added) == 0 {
		return "No other tools match. Answer with the tools you have."
	}
	return "These tools are now available: " + strings.Join(added, ", ") + "."
}

// outOfTurns answers when the loop used every model turn: one digest of
// what was found, starting with a caveat, in the user's language; failing
// that, the last candidate reply or a generic apology.
func (t *turn) outOfTurns(ctx context.Context) error {
	t.e.log.Warn("reply ran out of model turns", "turns", t.e.o.MaxTurns)
	var activity []string
	for _, r := range t.records {
		activity = append(activity, fmt.Sprintf("Called %s %s: %s", r.Name, canonical(r.Arguments), clip(r.Result, 400)))
	}
	summary, err := "", errNotWorth
	if timeout, ok := t.worth("out-of-turns digest", distil.Overhead+len(t.q.Text)+len(strings.Join(activity, "\n")), 80, t.e.o.DigestTimeout); ok {
		d := *t.e.distil
		d.Model, d.Timeout = t.aux, timeout
		summary, err = d.OutOfTurns(ctx, t.q.Text, strings.Join(activity, "\n"))
	}
	switch {
	case err == nil && !speechMalformed(summary):
		// The caveat and what was found: a reply, not a failure.
		t.speakText(summary)
		return nil
	case t.lastSaid != "":
		// Already said as it streamed.
	default:
		t.speak(t.lang.T("Sorry, I couldn't finish that."))
	}
	return errors.New("reply: out of model turns")
}

// toolResultChars bounds a long tool result that is not digested.
const toolResultChars = 1500

// toolResult is a command's response as the model reads it.
func toolResult(r command.Response) string {
	switch r.Kind {
	case command.Failure:
		msg := r.Spoken
		if e, ok := r.Data["error"]; ok && msg != "" {
			msg += fmt.Sprintf(" (%v)", e)
		} else if ok {
			msg = fmt.Sprint(e)
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

// choiceOf is the argument a refused call puts to the user.
func choiceOf(r command.Response) *Choice {
	for _, p := range r.Problems {
		if len(p.Valid) > 0 {
			return &Choice{Parameter: p.Param, Options: p.Valid}
		}
	}
	return nil
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
func choose(l locale.Lang, r command.Response) string {
	v := valid(r)
	if len(v) > 6 {
		v = append(v[:6:6], l.T("something else"))
	}
	if r.Spoken != "" && strings.HasSuffix(r.Spoken, "?") {
		return r.Spoken
	}
	return l.T("Which one do you mean: %s?", l.Or(v))
}

// clarify asks the user for what a call was missing when no list of
// valid values says it: the command's own question, or one naming the
// argument.
func clarify(l locale.Lang, r command.Response) string {
	if strings.HasSuffix(strings.TrimSpace(r.Spoken), "?") {
		return r.Spoken
	}
	for _, p := range r.Problems {
		return l.T("What should the %s be?", strings.ReplaceAll(p.Param, "_", " "))
	}
	return l.T("Could you say that again another way?")
}

// apologize says the one sentence for a model that failed: what the
// offline path could not do, when the model could not be asked at all.
// A question a remembered fact answers gets that answer after it.
func (t *turn) apologize(ctx context.Context, err error) {
	if t.res.Timings.FirstSentence == 0 {
		if resp, args, ok := t.told(ctx); ok {
			t.speak(apology(t.lang, err))
			t.ran("search_memory", args, resp)
			t.speakText(resp.Spoken)
			return
		}
	}
	if t.understood.Reason == "" || !errors.Is(err, llm.ErrUnreachable) || t.res.Timings.FirstSentence > 0 {
		t.speak(apology(t.lang, err))
		return
	}
	t.res.NotUnderstood = string(t.understood.Reason)
	switch {
	case t.understood.Reason == command.Unsupported && t.understood.Intent != "HassRespond": // a greeting is no request
		t.speak(t.lang.T("I can't do that without my language model, and I can't reach it right now."))
	case t.understood.Reason == command.Unresolved_:
		t.speak(t.lang.T("I couldn't work out what you meant by that, and I can't reach my language model right now."))
	default:
		t.speak(t.lang.T("I didn't understand that, and I can't reach my language model right now."))
	}
}

// apology is the one sentence said when the model fails.
func apology(l locale.Lang, err error) string {
	switch {
	case errors.Is(err, ErrStillLoading):
		return l.T(stillAsleep)
	case errors.Is(err, ErrTooSlow):
		return l.T("My language model is taking too long. Please try again in a moment.")
	case errors.Is(err, llm.ErrUnreachable):
		return l.T("I can't reach my language model right now.")
	case errors.Is(err, llm.ErrModelNotFound):
		return l.T("My language model isn't installed on the server.")
	case errors.Is(err, context.DeadlineExceeded):
		return l.T("My language model took too long to answer.")
	case errors.Is(err, llm.ErrStreamCut):
		return l.T("I lost the connection to my language model.")
	}
	return l.T("Something went wrong with my language model.")
}

// canonical is a stable encoding of arguments, for duplicate detection.
func canonical(args map[string]any) string {
	b, err := json.Marshal(args) // map keys are sorted
	if err != nil {
		return fmt.Sprint(args)
	}
	return string(b)
}

// tools is the allowed commands as native tool definitions; none in text
// mode, where the prompt describes them.
func (t *turn) tools() []llm.Tool {
	if t.text {
		return nil
	}
	return t.tools0()
}

// tools0 is the allowed commands as tool definitions, with an example of
// each where the tool budget left room for it.
func (t *turn) tools0() []llm.Tool {
	if t.e.o.Commands == nil {
		return nil
	}
	var out []llm.Tool
	for _, name := range t.allowed {
		out = append(out, t.e.tool(name, !t.bare[name]))
	}
	return out
}

// tool is a command, or search_tools, as a tool definition; with example,
// its first example follows the description.
func (e *Engine) tool(name string, example bool) llm.Tool {
	if name == SearchTools {
		return searchToolsDef
	}
	c, ok := e.o.Commands.Lookup(name)
	if !ok {
		return llm.Tool{Name: name}
	}
	params, _ := json.Marshal(c.ParametersSchema())
	desc := c.Description
	if example && len(c.Examples) > 0 {
		x := c.Examples[0]
		args, _ := json.Marshal(x.Arguments)
		desc += fmt.Sprintf(" Example: %q → %s", x.Utterance, args)
	}
	return llm.Tool{Name: c.Name, Description: desc, Parameters: params}
}

// toolChars is a definition's length as the server sees it.
func toolChars(t llm.Tool) int { return len(t.Name) + len(t.Description) + len(t.Parameters) + 40 }

var searchToolsDef = llm.Tool{
	Name:        SearchTools,
	Description: "Find more tools when none of yours fits. Describe what you need to do.",
	Parameters:  json.RawMessage(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
}

// chat makes one streamed model call, speaking content as it comes. Until
// the reply's first sentence has been said, the call also ends at the
// reply budget's deadline, with ErrTooSlow; after it, at a silence of the
// model as long as the reply budget (the model is loaded by then: a
// silence that long is a stalled server, not a load).
func (t *turn) chat(ctx context.Context, msgs []llm.Message) (llm.Response, error) {
	bctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	gapBudget := max(t.deadline.Sub(t.began), time.Second)
	var gap *time.Timer
	silent := func() {
		stop(t.silence(fmt.Errorf("%w: the model said nothing more for %v in the middle of its answer", ErrTooSlow, gapBudget.Round(time.Millisecond))))
	}
	heard := func() { // a chunk came: the silence starts again
		if !t.spoke.Load() {
			return
		}
		if gap == nil {
			gap = time.AfterFunc(gapBudget, silent)
		} else {
			gap.Reset(gapBudget)
		}
	}
	heard()
	defer func() {
		if gap != nil {
			gap.Stop()
		}
	}()
	if !t.spoke.Load() {
		wait := time.Until(t.deadline)
		if wait <= 0 {
			return llm.Response{}, t.tooSlow()
		}
		timer := time.AfterFunc(wait, func() {
			if !t.spoke.Load() {
				stop(t.silence(t.tooSlow()))
			}
		})
		defer timer.Stop()
	}
	timeout := max(t.chatTimeout, t.e.o.ChatTimeout)
	cctx, cancel := context.WithTimeout(bctx, timeout)
	defer cancel()
	tools := t.tools()
	r := t.e.meter.Rates(t.e.chatKey())
	t.res.Timings.ToolTokens = 0
	for _, tl := range t.tools0() {
		t.res.Timings.ToolTokens += r.Tokens(toolChars(tl))
	}
	out := newOutput(t)
	var held heldCall
	req := llm.Request{Messages: msgs, Tools: tools, Think: t.think(), MaxTokens: t.maxTokens()}
	resp, err := t.metered(cctx, t.e.o.Model, t.e.chatKey(), req, func(c llm.Chunk) error {
		defer heard()
		if c.Notice != "" {
			// The gateway moved to another server, which answers afresh.
			out.restart()
			held = heldCall{}
			t.speak(c.Notice)
		}
		if c.Content != "" {
			if t.res.Timings.FirstToken == 0 {
				t.res.Timings.FirstToken = time.Since(t.began)
			}
			if say := held.write(c.Content); say != "" {
				out.write(say)
			}
		}
		return nil
	})
	resp, inline := withoutReasoning(resp)
	if inline {
		t.e.reasonsInline(resp)
	}
	if err == nil {
		// The answer reached its bound, Hark's or the model's own: it
		// ends at its last whole sentence, and what was kept back as a
		// call, cut short, is neither run nor said.
		cut := resp.DoneReason == "length"
		if cut {
			t.e.log.Info("the answer reached its token bound; ending it at its last whole sentence", "tokens", resp.OutputTokens, "max_tokens", req.MaxTokens)
		}
		if rest := held.rest(); rest != "" {
			if calls, _ := t.trailing(rest); len(calls) == 0 && !cut {
				out.write(rest) // not a call: said, or judged, as any answer
			}
		}
		out.finish(cut)
		if resp.Model != "" {
			t.res.Model, t.res.Server = resp.Model, resp.Server // a chain's: the server that answered
		}
	}
	if err != nil && ctx.Err() == nil {
		if cause := context.Cause(bctx); errors.Is(cause, ErrTooSlow) {
			return resp, cause
		}
		if errors.Is(cctx.Err(), context.DeadlineExceeded) {
			return resp, fmt.Errorf("reply: the model's answer timed out after %v: %w", timeout.Round(time.Second), context.DeadlineExceeded)
		}
	}
	return resp, err
}

// heldCall keeps back what a model may have written as a tool call after
// its lead-in: from a line that opens a JSON object to the end of the
// answer. The rest is said as it streams; what was kept back is said at
// the end unless it was a call, which is never said. The zero value is
// ready to use.
type heldCall struct {
	held    strings.Builder
	holding bool
	midLine bool // a character other than a blank since the line began
}

// write takes a piece of the answer and returns what may be said of it.
func (h *heldCall) write(s string) string {
	if h.holding {
		h.held.WriteString(s)
		return ""
	}
	for i, r := range s {
		switch {
		case r == '\n':
			h.midLine = false
		case r == ' ' || r == '\t' || r == '\r':
		case r == '{' && !h.midLine:
			h.holding = true
			h.held.WriteString(s[i:])
			return s[:i]
		default:
			h.midLine = true
		}
	}
	return s
}

// rest is what was kept back.
func (h *heldCall) rest() string { return h.held.String() }

// tooSlow names the spent budget.
func (t *turn) tooSlow() error {
	return fmt.Errorf("%w: nothing to say after the %v reply budget", ErrTooSlow, t.e.o.ReplyBudget)
}

// silence is err as the cause that ends a model call at the end of the
// reply budget: the server's silence (llm.ErrStalled), which a fallback
// chain counts against the server, unless the Keeper knows the model to be
// loading. A loading model is not a hung one; a barge-in is neither, and
// ends the call with its own cause.
func (t *turn) silence(err error) error {
	if k := t.e.o.Keeper; k != nil && k.State().Phase == llm.Loading {
		return err
	}
	return llm.Stalled(err)
}

// prefixed names this package in err unless it already does.
func prefixed(err error) error {
	if strings.HasPrefix(err.Error(), "reply: ") {
		return err
	}
	return fmt.Errorf("reply: %w", err)
}
