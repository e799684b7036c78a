package box

import (
	"context"
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
	turns  *turnLog
}

var _ control.Asker = askResource{}

func (s askResource) Ask(ctx context.Context, q control.Question, say func(string)) (any, error) {
	s.mcp.start(ctx, MCPFirstTry)
	began := time.Now()
	res, _, err := s.answer(ctx, reply.Query{Text: q.Text, Language: q.Language}, say)
	if s.turns != nil {
		s.turns.typedTurn(began, q.Text, res, err)
	}
	if h := s.hint(err); h != "" {
		err = control.WithHint(err, h)
	}
	return res, err
}
