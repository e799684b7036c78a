// Package distil makes the small-model passes that keep a small model's
// prompt short and relevant: a memory digest (the recalled past, reduced to
// what matters for this request), a tool-result digest (a long tool answer,
// reduced to attributed facts), the summary said when the reply ran out of
// model turns, and the diary entry written when a conversation ends.
package distil

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/speech"
)

// Sizes of the digests, in characters.
const (
	MemoryPassThrough = 400  // smaller memory is injected as is
	MemoryBatch       = 2000 // memory is distilled in batches of at most this
	MemoryNote        = 500  // each memory note is cut to this
	ToolPassThrough   = 400
	ToolBatch         = 2500
	ToolNote          = 600
)

// Distiller runs the passes. The reasoning a reasoning model writes into
// its answer (<think>…</think>) is no part of what a pass gives, and an
// answer that was reasoning only fails the pass.
type Distiller struct {
	Model   llm.Chatter
	Timeout time.Duration // per call; default 8 s
}

func (d *Distiller) ask(ctx context.Context, system, user string) (string, error) {
	timeout := d.Timeout
	if timeout == 0 {
		timeout = 8 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := d.Model.Chat(ctx, llm.Request{Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: system},
		{Role: llm.RoleUser, Content: user},
	}}, nil)
	if err != nil {
		return "", err
	}
	return answer(resp)
}

// errReasoningOnly is the error of an answer that was inline reasoning
// only, closed or cut at the token limit: nothing to keep or say.
var errReasoningOnly = errors.New("the answer was reasoning only")

// answer is a model's answer without the reasoning a reasoning model
// writes into it (<think>…</think>, see speech.SplitReasoning), which is
// never kept, injected or said.
func answer(resp llm.Response) (string, error) {
	a, thought := speech.SplitReasoning(resp.Message.Content)
	if a == "" && thought != "" {
		return "", errReasoningOnly
	}
	return strings.TrimSpace(a), nil
}

var noneRE = regexp.MustCompile(`(?i)^[\s("'\[*]*(none|n/a|nothing relevant|no relevant information)[\s)"'\].!*]*$`)

// IsNone reports the answer that means "nothing relevant": NONE and its
// usual variants ((NONE), [NONE], N/A).
func IsNone(s string) bool { return noneRE.MatchString(s) }

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// batches packs pieces greedily into groups of at most max characters; a
// piece larger than max is a batch of its own.
func batches(pieces []string, max int) [][]string {
	var out [][]string
	var cur []string
	size := 0
	for _, p := range pieces {
		if len(cur) > 0 && size+len(p)+1 > max {
			out = append(out, cur)
			cur, size = nil, 0
		}
		cur = append(cur, p)
		size += len(p) + 1
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

const memorySystem = `You prepare background notes for a voice assistant. Below are snippets of the user's earlier conversations and notes, each dated, and the user's current request. Write a short note (at most three sentences) of only what in the snippets helps answer this request.
- If the request asks for a recommendation or an opinion, things the user did, watched, read, cooked or visited before count as their preferences; name them and say they are already covered.
- If the request asks what the assistant knows about the user, prefer facts the user stated about themselves (where they live, what they like, their plans) over topics they merely asked about, and give several.
- When snippets disagree, the newest one is right.
- Add nothing that is not in the snippets.
If nothing is relevant, answer exactly NONE.`

// Memory distils recalled snippets for query. Under MemoryPassThrough
// characters they pass through; otherwise batches of at most MemoryBatch
// are distilled, each note cut to MemoryNote, and NONE answers dropped. An
// empty result means nothing relevant: inject nothing.
func (d *Distiller) Memory(ctx context.Context, query string, snippets []string) (string, error) {
	total := 0
	for _, s := range snippets {
		total += len(s) + 1
	}
	if total < MemoryPassThrough {
		return strings.Join(snippets, "\n"), nil
	}
	var notes []string
	for _, b := range batches(snippets, MemoryBatch) {
		note, err := d.ask(ctx, memorySystem, "Snippets:\n"+strings.Join(b, "\n")+"\n\nRequest: "+query)
		if err != nil {
			return "", fmt.Errorf("distil: memory: %w", err)
		}
		if note != "" && !IsNone(note) {
			notes = append(notes, cut(note, MemoryNote))
		}
	}
	return strings.Join(notes, "\n"), nil
}

const toolSystem = `You condense a tool's answer for a voice assistant. Below are the user's request and the raw output of the %s tool. Write at most four sentences of the facts in the output that answer the request, saying where they come from ("According to the %s tool, ..."). Use only facts that are in the output; add nothing. If nothing in it is relevant, answer exactly NONE.`

// Tool distils a tool's raw result for query. Under ToolPassThrough it
// passes through; up to ToolBatch it is one call; longer results are split
// on paragraph boundaries into batches. Each note is cut to ToolNote. When
// every batch answers NONE the raw result is kept, and raw reports it.
func (d *Distiller) Tool(ctx context.Context, query, tool, result string) (note string, raw bool, err error) {
	if len(result) < ToolPassThrough {
		return result, true, nil
	}
	paragraphs := strings.Split(result, "\n\n")
	var notes []string
	for _, b := range batches(paragraphs, ToolBatch) {
		n, err := d.ask(ctx, fmt.Sprintf(toolSystem, tool, tool), "Request: "+query+"\n\nOutput:\n"+strings.Join(b, "\n\n"))
		if err != nil {
			return result, true, fmt.Errorf("distil: tool result: %w", err)
		}
		if n != "" && !IsNone(n) {
			notes = append(notes, cut(n, ToolNote))
		}
	}
	if len(notes) == 0 {
		return result, true, nil
	}
	return strings.Join(notes, " "), false, nil
}

const loopSystem = `A voice assistant ran out of steps before finishing a request. From the request and the work done so far, write what it can tell the user: first one sentence saying the request could not be fully completed, then a short summary of what was found. Answer in the language of the request, in plain spoken sentences, at most four.`

// OutOfTurns summarises a reply that ran out of model turns.
func (d *Distiller) OutOfTurns(ctx context.Context, query, activity string) (string, error) {
	s, err := d.ask(ctx, loopSystem, "Request: "+query+"\n\nWork done:\n"+cut(activity, 3000))
	if err != nil {
		return "", fmt.Errorf("distil: out of turns: %w", err)
	}
	if s == "" {
		return "", fmt.Errorf("distil: out of turns: empty answer")
	}
	return s, nil
}

const diarySystem = `Write a diary entry about a conversation between a user and a voice assistant, so it can be found again later. Reply with JSON {"summary": "...", "keywords": [...]}: the summary is two or three sentences of what was asked, decided or learned about the user; keywords are three to eight distinctive words (names, topics, things).`

var diarySchema = llm.Schema(`{"type":"object","properties":{"summary":{"type":"string"},"keywords":{"type":"array","items":{"type":"string"}}},"required":["summary","keywords"]}`)

// DiaryPrompt is the most characters (runes) of a conversation Diary
// gives the model; what is longer is cut at its end. Callers with more
// summarise it in parts (reply's diary does).
const DiaryPrompt = 4000

// DiaryOverhead is the length of a diary prompt without the conversation,
// for pricing the call before it is made.
var DiaryOverhead = len(diarySystem) + len(diarySchema) + 64

// Diary summarises a finished conversation. lines are its exchanges,
// "User: ..." and "Assistant: ...".
func (d *Distiller) Diary(ctx context.Context, lines []string) (summary string, keywords []string, err error) {
	timeout := d.Timeout
	if timeout == 0 {
		timeout = 8 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	resp, err := d.Model.Chat(ctx, llm.Request{Format: diarySchema, Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: diarySystem},
		{Role: llm.RoleUser, Content: cut(strings.Join(lines, "\n"), DiaryPrompt)},
	}}, nil)
	if err != nil {
		return "", nil, fmt.Errorf("distil: diary: %w", err)
	}
	content, err := answer(resp)
	if err != nil {
		return "", nil, fmt.Errorf("distil: diary: %w", err)
	}
	var out struct {
		Summary  string   `json:"summary"`
		Keywords []string `json:"keywords"`
	}
	if err := llm.DecodeJSON(content, &out); err != nil {
		return "", nil, fmt.Errorf("distil: diary: %w", err)
	}
	if strings.TrimSpace(out.Summary) == "" {
		return "", nil, fmt.Errorf("distil: diary: empty summary")
	}
	return out.Summary, out.Keywords, nil
}

// Overhead is the length of a digest prompt without what it digests, for
// pricing the call before it is made.
const Overhead = len(memorySystem) + 64
