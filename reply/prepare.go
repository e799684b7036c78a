package reply

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/intent"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/compound"
	"github.com/harkbox/hark/reply/distil"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/memory"
	"github.com/harkbox/hark/reply/planner"
	"github.com/harkbox/hark/reply/router"
	"github.com/harkbox/hark/storage"
)

// SearchTools is the tool that lets the model widen its set of tools mid-reply.
const SearchTools = "search_tools"

// prepare decides, before the chat model is asked, what the answer needs:
// the plan, the memory block and the tools to offer. Each step fails open;
// only an unreachable model server stops it.
func (t *turn) prepare(ctx context.Context) error {
	e := t.e
	t.aux = counted{inner: e.o.Aux, t: t}
	sctx, cancel := context.WithDeadline(ctx, t.auxDeadline)
	t.know(e.modelSize(sctx))
	if ctx.Err() == nil && errors.Is(sctx.Err(), context.DeadlineExceeded) {
		t.auxTimedOut("model size")
	}
	cancel()
	t.priceChat()
	catalog := e.catalog(ctx, t.lang)
	sig := signature(catalog)

	if e.planner != nil {
		key := "plan|" + t.q.Text + "|" + sig
		if v, ok := t.conv.recall(key); ok {
			t.plan = v.(planner.Plan)
		} else {
			var tools []planner.Tool
			chars := planner.Overhead + len(t.q.Text) + len(t.snippet())
			for _, c := range catalog {
				tools = append(tools, planner.Tool{Name: c.name, Description: c.description})
				chars += len(c.name) + len(c.description) + 4
			}
			var plan planner.Plan
			err := errNotWorth
			if timeout, ok := t.worth("planner", chars, 60, e.o.PlannerTimeout); ok {
				pl := planner.New(planner.Options{Model: t.aux, Timeout: timeout})
				plan, err = pl.Plan(ctx, t.q.Text, t.snippet(), tools)
			}
			switch {
			case errors.Is(err, errNotWorth):
				// Deliberately no plan: decide as the spec does without one.
			case errors.Is(err, llm.ErrUnreachable):
				return err
			case err != nil:
				e.log.Warn("planner failed; deciding without a plan", "err", err)
			default:
				t.conv.remember(key, plan)
			}
			t.plan = plan
		}
		for _, s := range t.plan.Steps {
			t.res.Plan = append(t.res.Plan, s.Text)
		}
	}

	if !t.plan.ReplyOnly() && (t.plan.WantsMemory() || t.plan.Empty()) {
		// The gate skips memory that tool results in the conversation
		// already cover, unless the planner asked for memory.
		if t.plan.WantsMemory() || !memory.Covered(t.q.Text, toolResults(t.past)) {
			block, err := t.recallMemory(ctx)
			if errors.Is(err, llm.ErrUnreachable) {
				return err
			}
			t.memory = block
		}
	}

	allowed, err := t.allowList(ctx, catalog, sig)
	if err != nil {
		return err
	}
	t.allowed = allowed
	return nil
}

// know takes in what the model's size and template say: the small-model
// prompts, and whether the tools go in the system prompt as text.
func (t *turn) know(size modelSize) {
	t.small, t.toolsMove, t.size = size.small, size.toolsMove, size
	switch t.e.o.ToolStyle {
	case "text":
		t.text = true
	case "auto":
		// Tools the template moves into the last user message are new
		// prompt on every call; in the system prompt they are cached. A
		// model whose capabilities lack tools gets them in text from the
		// start, without a refused request first.
		t.text = t.text || t.e.o.Commands != nil && (t.toolsMove || !size.can("tools"))
	}
}

// think is the request's think setting: the configured one for a model
// that can think, none for one that cannot (the server would refuse it).
func (t *turn) think() *bool {
	if t.size.caps == nil || !t.size.can("thinking") {
		return nil
	}
	v := t.e.o.Think
	return &v
}

// maxTokens bounds the chat model's answer (Options.AnswerTokens); 0 for
// no bound of Hark's: none is set, or the model is asked to reason, or
// was seen to reason in its answer's text without declaring thinking;
// reasoning spends the same tokens before the answer begins. A model whose own
// bound (its Modelfile's num_predict) is smaller keeps it: a request's
// bound takes the place of the model's, and without one the model's
// applies.
func (t *turn) maxTokens() int {
	if think := t.think(); think != nil && *think || t.e.o.AnswerTokens < 0 || t.e.inlineReasoner() {
		return 0
	}
	if own := t.size.predict; own > 0 && own < t.e.o.AnswerTokens {
		return own
	}
	return t.e.o.AnswerTokens
}

// snippet is the last few lines of the conversation, for the planner.
func (t *turn) snippet() string {
	var lines []string
	x := t.past.exchanges
	for _, ex := range x[max(0, len(x)-2):] {
		lines = append(lines, "User: "+clip(ex.User, 200), "Assistant: "+clip(ex.Assistant, 200))
	}
	return strings.Join(lines, "\n")
}

// contextNote tells the memory search what is already known.
func (t *turn) contextNote() string {
	note := "the time is " + t.now.In(t.e.location()).Format("Monday 2 January 2006 15:04")
	if place := t.e.persona().place; place != "" {
		note += "; the place is " + place
	}
	if s := t.snippet(); s != "" {
		note += "; recent dialogue:\n" + s
	}
	return note
}

// recallMemory searches the diary and facts, digesting the result for a
// small model. Errors fail open to no memory.
func (t *turn) recallMemory(ctx context.Context) (string, error) {
	e := t.e
	r := memory.New(memory.Options{Model: t.aux, Diary: e.recall.Diary(), Facts: e.recall.Facts(), MaxResults: e.o.MemoryResults, Timeout: e.o.AuxTimeout})
	key := "extract|" + t.q.Text + "|" + t.plan.Topic()
	var params memory.Params
	if v, ok := t.conv.recall(key); ok {
		params = v.(memory.Params)
	} else {
		timeout, ok := t.worth("memory terms", memory.Overhead+len(t.q.Text)+len(t.contextNote()), 40, e.o.AuxTimeout)
		if !ok {
			// The stand-in searches by the words of the request, and only
			// when the request is about something said before.
			// A question one remembered fact answers whole ("where is the
			// spare key") is such a request too.
			if !memory.Cued(t.q.Text) && !t.plan.WantsMemory() {
				if _, ok := t.answeredByAFact(ctx); !ok {
					return "", nil
				}
			}
			return t.searchMemory(ctx, r, memory.Terms(t.q.Text, t.plan.Topic()))
		}
		r = memory.New(memory.Options{Model: t.aux, Diary: e.recall.Diary(), Facts: e.recall.Facts(), MaxResults: e.o.MemoryResults, Timeout: timeout})
		p, err := r.Extract(ctx, t.q.Text, t.plan.Topic(), t.contextNote(), t.now.In(e.location()))
		if err != nil {
			e.log.Warn("memory search terms failed; answering without memory", "err", err)
			return "", err
		}
		params = p
		t.conv.remember(key, params)
	}
	return t.searchMemory(ctx, r, params)
}

// searchMemory searches the diary and facts for params, digesting the
// result for a small model when that is worth it.
func (t *turn) searchMemory(ctx context.Context, r *memory.Recall, params memory.Params) (string, error) {
	e := t.e
	snippets, err := r.Search(ctx, params, e.location())
	if err != nil {
		e.log.Warn("memory search failed; answering without memory", "err", err)
		return "", nil
	}
	if len(snippets) == 0 {
		return "", nil
	}
	var texts []string
	for _, s := range snippets {
		texts = append(texts, s.String())
	}
	note := strings.Join(texts, "\n")
	if e.o.MemoryDigest == On || e.o.MemoryDigest == Auto && t.small {
		timeout, ok := t.worth("memory digest", distil.Overhead+len(t.q.Text)+len(note), 80, e.o.DigestTimeout)
		if !ok {
			return clip(note, memoryChars), nil
		}
		d := *e.distil
		d.Model, d.Timeout = t.aux, timeout
		if n, err := d.Memory(ctx, t.q.Text, texts); err != nil {
			e.log.Warn("memory digest failed; using the raw memory", "err", err)
		} else {
			e.log.Info("memory digest", "chars_in", len(note), "chars_out", len(n), "relevant", n != "")
			note = n
		}
	}
	return note, nil
}

// allowList is the tools offered this turn: the router's picks, the
// plan's, the previous turn's failed tool, stop and search_tools.
func (t *turn) allowList(ctx context.Context, catalog []tool, sig string) ([]string, error) {
	e := t.e
	if e.o.Commands == nil {
		return nil, nil
	}
	// stop and search_tools come first: they are on offer in every call,
	// so the tool list's start is the same from reply to reply.
	names := []string{"stop", SearchTools}
	var from []string // where the tools on offer came from, for the log
	if !t.plan.ReplyOnly() {
		key := "router|" + t.q.Text + "|" + string(e.o.Router) + "|" + sig
		if v, ok := t.conv.recall(key); ok {
			names = append(names, v.([]string)...)
			from = append(from, "cache")
		} else {
			most := e.o.RouterMax
			if t.small {
				most = min(most, Handful)
			}
			r, tools := t.router("router", catalog, len(t.q.Text), most)
			picked, fellBack := r.Select(ctx, t.q.Text, tools)
			if r.Strategy() != router.All { // every tool is on offer already
				picked = e.withHints(ctx, t.lang, t.q.Text, picked, most)
			}
			from = append(from, string(r.Strategy()))
			if fellBack {
				from[len(from)-1] += "-fallback"
			}
			if !fellBack { // never pin "everything" to the conversation
				t.conv.remember(key, slices.Clone(picked))
			}
			names = append(names, picked...)
		}
		if p := t.plan.Tools(); len(p) > 0 {
			names = append(names, p...)
			from = append(from, "plan")
		}
	}
	if failed := failedTools(t.past); len(failed) > 0 {
		names = append(names, failed...)
		from = append(from, "carryover")
	}
	// The tools of the conversation's earlier turns stay on offer, after
	// this turn's picks in priority and before them in order: the tool
	// list is part of the prompt's prefix, and a list that only grows
	// keeps the server's cache of the dialogue.
	before := t.conv.offered()
	names = append(names, before...)
	var out []string
	for _, n := range names {
		if _, ok := e.o.Commands.Lookup(n); (ok || n == SearchTools) && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	kept := t.budget(out)
	var ordered []string
	for _, n := range before {
		if slices.Contains(kept, n) {
			ordered = append(ordered, n)
		}
	}
	for _, n := range kept {
		if !slices.Contains(ordered, n) {
			ordered = append(ordered, n)
		}
	}
	if len(before) > 0 {
		from = append(from, "conversation")
	}
	t.conv.offer(ordered)
	e.log.Info("tools offered", "tools", strings.Join(ordered, ","), "from", strings.Join(from, "+"), "bare", len(t.bare))
	return ordered, nil
}

// router is the tool router for a call named what: the configured
// strategy, or the keyword stand-in, offering at most Handful tools, when
// the router's model call is not worth its time; and the catalogue as the
// router sees it. queryChars is the length of what it will be asked.
func (t *turn) router(what string, catalog []tool, queryChars, most int) (*router.Router, []router.Tool) {
	e := t.e
	var tools []router.Tool
	chars := router.Overhead + queryChars
	for _, c := range catalog {
		tools = append(tools, router.Tool{Name: c.name, Description: c.description, Keywords: c.keywords, Examples: c.examples, About: c.about, Words: c.words, Extra: c.extra, Verbs: c.verbs, Things: c.things, Measures: c.measures, Frame: c.frame})
		chars += len(c.name) + len(c.description) + 4
	}
	strategy, timeout := e.o.Router, e.o.AuxTimeout
	if strategy == router.LLM {
		var ok bool
		if timeout, ok = t.worth(what, chars, 20, e.o.AuxTimeout); !ok {
			strategy, most = router.Keyword, min(most, Handful)
		}
	}
	return router.New(router.Options{Model: t.aux, Strategy: strategy, Max: most, Timeout: timeout}), tools
}

// memoryChars bounds recalled memory that is not digested.
const memoryChars = 800

// budget keeps the tools, in order of preference, whose definitions fit in
// the tool budget; stop and search_tools always stay, so the user can
// always stop and the model can always ask for more.
func (t *turn) budget(names []string) []string {
	e := t.e
	limit := e.o.ToolTokens
	if limit == 0 {
		limit = 1200
		if t.small {
			limit = 360
		}
	}
	r := e.meter.Rates(e.chatKey())
	t.bare = map[string]bool{}
	spent := 0
	for _, n := range []string{"stop", SearchTools} {
		if slices.Contains(names, n) {
			spent += r.Tokens(toolChars(e.tool(n, true)))
		}
	}
	var out []string
	for _, n := range names {
		if n == "stop" || n == SearchTools {
			out = append(out, n)
			continue
		}
		// A tool with its example, or without when only that fits.
		cost := r.Tokens(toolChars(e.tool(n, true)))
		if spent+cost > limit {
			cost = r.Tokens(toolChars(e.tool(n, false)))
			t.bare[n] = true
		}
		if spent+cost > limit {
			e.log.Debug("tool left out: over the tool budget", "tool", n, "tokens", cost, "budget", limit)
			continue
		}
		spent += cost
		out = append(out, n)
	}
	return out
}

// withHints puts first the tools of the intents the request's templates
// match, in whole or in its two parts, then the router's picks, at most
// most: what the offline path understood but did not carry out still
// tells which tools the model needs.
func (e *Engine) withHints(ctx context.Context, l locale.Lang, text string, picked []string, most int) []string {
	parts := append([]string{text}, compound.Split(text, string(l))...)
	var out []string
	for _, p := range parts {
		for _, in := range e.o.Commands.Intents(ctx, l, p) {
			for _, n := range e.o.Commands.ToolsFor(in) {
				if !slices.Contains(out, n) {
					out = append(out, n)
				}
			}
		}
	}
	// A device named by the house's own name is the house's business in
	// any sentence: when no template of the house matched it ("ist der
	// Kessel noch an"), its questions' tool and its controls' come before
	// the guesses.
	house := append(e.o.Commands.ToolsFor("HassGetState"), e.o.Commands.ToolsFor("HassTurnOn")...)
	if !slices.ContainsFunc(out, func(n string) bool { return slices.Contains(house, n) }) && e.o.Commands.NamesDevice(ctx, text) {
		for _, n := range house {
			if !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	for _, n := range picked {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out[:min(len(out), max(most, 1))]
}

// tool is a command as the planner and router see it: words are those
// its sentence templates say in the request's language.
type tool struct {
	name, description string
	keywords          []string
	examples          []string
	about             string
	words, extra      []string
	// verbs are the words that ask it to act: its words that no question
	// about the house says.
	verbs []string
	// things are, for the tool that answers questions about the house,
	// its words that name something of it: those no question of any
	// kind is built of (locale's frame words).
	things []string
	// measures are those of its things that name what is measured of a
	// thing: no control of the house says them, and no name of the
	// house is one.
	measures []string
	// frame are its words that questions of any kind are built of.
	frame []string
}

// catalog is the commands the model may be offered, for a request in l.
func (e *Engine) catalog(ctx context.Context, l locale.Lang) []tool {
	if e.o.Commands == nil {
		return nil
	}
	lang, _ := intent.Load(string(l))
	words := func(c *command.Command) (core, extra []string) {
		if lang == nil {
			return nil, nil
		}
		for _, in := range append(slices.Clone(c.Intents), c.Name) {
			c, e := lang.Words(in)
			core, extra = append(core, c...), append(extra, e...)
		}
		return core, extra
	}
	var out []tool
	aliased := map[string][2][]string{} // a hidden command's words go to its alias
	var asking []string                 // the tools that answer questions about the house
	for _, c := range e.o.Commands.Commands() {
		core, extra := words(c)
		if c.Hidden {
			if c.Alias != "" {
				a := aliased[c.Alias]
				aliased[c.Alias] = [2][]string{append(a[0], core...), append(a[1], extra...)}
				if slices.Contains(c.Intents, "HassGetState") {
					asking = append(asking, c.Alias)
				}
			}
			continue // the offline path's own
		}
		var examples []string
		for _, x := range c.Examples {
			examples = append(examples, x.Utterance)
		}
		out = append(out, tool{name: c.Name, description: c.Description, keywords: c.Keywords, examples: examples, about: c.About, words: core, extra: extra})
		if slices.Contains(c.Intents, "HassGetState") {
			asking = append(asking, c.Name)
		}
	}
	controls := map[string]bool{} // what the house's controls say
	for _, n := range e.o.Commands.ToolsFor("HassTurnOn") {
		for _, t := range out {
			if t.name == n {
				for _, w := range append(slices.Clone(t.words), t.extra...) {
					controls[w] = true
				}
			}
		}
		for _, a := range aliased[n] {
			for _, w := range a {
				controls[w] = true
			}
		}
	}
	var asks []string  // what questions about the house say
	var house []string // the words of the house's names, read once
	read := false
	if lang != nil {
		asks, _ = lang.Words("HassGetState")
	}
	for i := range out {
		a := aliased[out[i].name]
		out[i].words, out[i].extra = append(out[i].words, a[0]...), append(out[i].extra, a[1]...)
		for _, w := range out[i].words {
			if !slices.Contains(asks, w) {
				out[i].verbs = append(out[i].verbs, w)
			}
		}
		for _, w := range append(slices.Clone(out[i].words), out[i].extra...) {
			if l.FrameWord(w) && !slices.Contains(out[i].frame, w) {
				out[i].frame = append(out[i].frame, w)
			}
		}
		if slices.Contains(asking, out[i].name) {
			for _, w := range append(slices.Clone(out[i].words), out[i].extra...) {
				if !l.FrameWord(w) && !slices.Contains(out[i].things, w) {
					out[i].things = append(out[i].things, w)
					if !controls[w] {
						out[i].measures = append(out[i].measures, w)
					}
				}
			}
			// The house's own names are things of it in any sentence, the
			// templates' or not: "is the kettle still on".
			if !read {
				house, read = houseWords(e.o.Commands.HouseNames(ctx)), true
			}
			out[i].things = append(out[i].things, house...)
		}
	}
	return out
}

// houseWords are the words of the house's names, as the router compares
// a request's.
func houseWords(names []string) []string {
	words := map[string]bool{}
	for _, n := range names {
		maps.Copy(words, storage.ContentWords(n))
	}
	return slices.Sorted(maps.Keys(words))
}

// signature identifies the catalogue, so caches notice when it changes.
func signature(catalog []tool) string {
	var names []string
	for _, c := range catalog {
		names = append(names, c.name)
	}
	return fmt.Sprintf("%d:%s", len(names), strings.Join(names, ","))
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
