package reply

import (
	"context"
	"slices"
	"strings"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/memory"
	"github.com/harkbox/hark/storage"
)

// What the household asked the box to remember is on its card, not on the
// model server: "where is the spare key" has its answer there when the
// server is off or gone. When the model fails before a word was said, a
// question every word of which (its words of asking aside) is in one
// remembered fact, as asked or in another form (storage.HoldsAll), is
// answered by search_memory, as the model would have
// it answered; a question no fact covers gets the apology alone, so
// nothing is guessed.

// told is search_memory's answer to the question, with the arguments it
// was called with, when one remembered fact covers the question; ok is
// false otherwise. It says nothing itself.
func (t *turn) told(ctx context.Context) (resp command.Response, args map[string]any, ok bool) {
	reg := t.e.o.Commands
	if reg == nil {
		return command.Response{}, nil, false
	}
	if _, ok := reg.Lookup("search_memory"); !ok {
		return command.Response{}, nil, false
	}
	query, ok := t.answeredByAFact(ctx)
	if !ok {
		return command.Response{}, nil, false
	}
	args = map[string]any{"query": query}
	resp = reg.Call(ctx, "search_memory", args, t.raw)
	if resp.Kind == command.Failure || resp.Kind == command.Invalid || resp.Spoken == "" {
		return command.Response{}, nil, false
	}
	return resp, args, true
}

// answeredByAFact reports whether one remembered fact holds every word
// of the question (its words of asking aside), with those words as a
// query.
func (t *turn) answeredByAFact(ctx context.Context) (query string, ok bool) {
	facts := t.e.recall.Facts()
	keys := memory.Keywords(t.raw, t.q.Language)
	if facts == nil || len(keys) == 0 {
		return "", false
	}
	query = strings.Join(keys, " ")
	// The best few: one holding a word as asked may rank above the one
	// holding them all in other forms.
	hits, err := facts.Search(ctx, query, 3)
	if err != nil {
		t.e.log.Warn("remembered facts not searched", "err", err)
		return "", false
	}
	whole := slices.ContainsFunc(hits, func(f storage.Fact) bool { return storage.HoldsAll(f.Text, query, t.q.Language) })
	return query, whole
}
