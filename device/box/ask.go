package box

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply"
)

// askResource answers typed questions exactly as spoken ones are answered,
// as the API serves them: once the MCP servers have had their first try.
// Each question is its asker's own conversation (a client of the engine
// of its own), unless it continues one of the asker's earlier ones.
type askResource struct {
	mcp    *mcpServers
	answer func(ctx context.Context, q reply.Query, say func(string)) (any, bool, error)
	hint   func(error) string
	// engine finds the asker's conversations; nil on a node, whose
	// conversations are the center's.
	engine *reply.Engine
	turns  *turnLog
}

var _ control.Asker = askResource{}

func (s askResource) Ask(ctx context.Context, q control.Question, say, notice func(string)) (any, error) {
	client, conv, err := s.whose(ctx, q)
	if err != nil {
		return nil, err
	}
	s.mcp.start(ctx, true)
	rq := reply.Query{Text: q.Text, Language: q.Language, Client: client, Conversation: conv,
		Hold: func(h reply.Hold) { notice(holdNotice(h, time.Now())) }}
	began := time.Now()
	res, _, err := s.answer(ctx, rq, say)
	if s.turns != nil {
		s.turns.typedTurn(began, q.Text, res, err)
	}
	if h := s.hint(err); h != "" {
		err = control.WithHint(err, h)
	}
	return res, err
}

// whose is the client a typed question is asked as, and the conversation
// it continues ("" for a new one): a new client for each question, named
// after the asker ("ask:uid0:..."), or the client of the asker's
// conversation it continues.
func (s askResource) whose(ctx context.Context, q control.Question) (client, conv string, err error) {
	asker := "ask:" + askerOf(ctx) + ":"
	if q.Asker != "" {
		asker = q.Asker + ":"
	}
	switch {
	case (q.Continue || q.Conversation != "") && s.engine == nil:
		return "", "", fmt.Errorf("%w: a node's conversations are the center's; it cannot continue one", control.ErrInvalid)
	case q.Conversation != "":
		owner, err := s.engine.Owner(ctx, q.Conversation)
		switch {
		case errors.Is(err, reply.ErrNoConversation):
			return "", "", fmt.Errorf("%w: %w", control.ErrNotFound, err)
		case err != nil:
			return "", "", err
		case !strings.HasPrefix(owner, asker):
			return "", "", fmt.Errorf("%w: conversation %s is not one of yours", control.ErrForbidden, q.Conversation)
		}
		return owner, q.Conversation, nil
	case q.Continue:
		if owner, id, ok := s.engine.Latest(ctx, asker); ok {
			return owner, id, nil
		}
	}
	return asker + newSession(), "", nil
}

// askerOf names who asks over the API: "uid0" over the socket, "local" in
// process.
func askerOf(ctx context.Context) string {
	if id, ok := control.IdentityFrom(ctx); ok && id.UID >= 0 {
		return "uid" + strconv.Itoa(id.UID)
	}
	return "local"
}

// newSession names one typed question's client.
func newSession() string {
	b := make([]byte, 6)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// seconds says d, whole seconds, as "12 s" or "1 min 35 s".
func seconds(d time.Duration) string {
	s := int(d.Seconds())
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", s)
	case s%60 == 0:
		return fmt.Sprintf("%d min", s/60)
	}
	return fmt.Sprintf("%d min %d s", s/60, s%60)
}

// holdNotice is what a typed question's asker reads while it waits.
func holdNotice(h reply.Hold, now time.Time) string {
	switch h.Why {
	case reply.ForLoad:
		took := now.Sub(h.Since).Truncate(time.Second)
		if took < time.Second {
			return fmt.Sprintf("the model server is loading the model %q; the answer follows once it is loaded", h.Model)
		}
		return fmt.Sprintf("the model server has been loading the model %q for %s; the answer follows once it is loaded", h.Model, seconds(took))
	case reply.ForTurn:
		return fmt.Sprintf("the model server is answering %d other question(s) first; this one follows", max(h.Ahead, 1))
	}
	return h.Line
}
