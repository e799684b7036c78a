package box

import (
	"context"
	"fmt"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply"
)

// askResource answers typed questions exactly as spoken ones are answered,
// as the API serves them: once the MCP servers have had their first try.
type askResource struct {
	mcp    *mcpServers
	answer func(ctx context.Context, q reply.Query, say func(string)) (any, bool, error)
	hint   func(error) string
}

var _ control.Asker = askResource{}

func (s askResource) Ask(ctx context.Context, q control.Question, say, notice func(string)) (any, error) {
	s.mcp.start(ctx, MCPFirstTry)
	rq := reply.Query{Text: q.Text, Language: q.Language, Hold: func(h reply.Hold) { notice(holdNotice(h, time.Now())) }}
	res, _, err := s.answer(ctx, rq, say)
	if h := s.hint(err); h != "" {
		err = control.WithHint(err, h)
	}
	return res, err
}

// holdNotice is what a typed question's asker reads while it waits.
func holdNotice(h reply.Hold, now time.Time) string {
	switch h.Why {
	case reply.ForLoad:
		return fmt.Sprintf("the model server is loading %s (for %d s so far); the answer follows once it is loaded",
			h.Model, int(now.Sub(h.Since).Seconds()))
	case reply.ForTurn:
		return fmt.Sprintf("the model server is answering %d other question(s) first; this one follows", max(h.Ahead, 1))
	}
	return h.Line
}
