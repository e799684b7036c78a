package box

import (
	"context"
	"fmt"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/storage"
)

// memoryResource is what the assistant remembers, as the API serves it:
// the facts it was asked to keep and the conversations.
type memoryResource struct {
	facts    *storage.Facts
	dialogue *storage.Dialogue
	health   func() storage.Health
}

var _ control.Memory = memoryResource{}

func newMemoryResource(db *storage.DB) memoryResource {
	return memoryResource{facts: db.Facts(), dialogue: db.Dialogue(), health: db.Health}
}

// readable is nil unless nothing stored could be opened (an I/O error,
// no card): then what is listed would be only what was told since, and
// an empty list would say the box remembers nothing.
func (m memoryResource) readable() error {
	if h := m.health(); h.Condition == storage.Holding && !h.Reading {
		return fmt.Errorf("%w: nothing stored can be read now: %s", control.ErrUnavailable, h.Why())
	}
	return nil
}

func (m memoryResource) Facts(ctx context.Context) ([]control.Fact, error) {
	if err := m.readable(); err != nil {
		return nil, err
	}
	facts, err := m.facts.All(ctx)
	if err != nil {
		return nil, apiError(err)
	}
	out := make([]control.Fact, 0, len(facts))
	for _, f := range facts {
		out = append(out, control.Fact{ID: f.ID, Text: f.Text, At: f.At})
	}
	return out, nil
}

func (m memoryResource) Forget(ctx context.Context, id string) error {
	if err := m.readable(); err != nil {
		return err
	}
	facts, err := m.facts.All(ctx)
	if err != nil {
		return apiError(err)
	}
	for _, f := range facts {
		if f.ID == id {
			return apiError(m.facts.Delete(ctx, id))
		}
	}
	return fmt.Errorf("%w: no fact %q", control.ErrNotFound, id)
}

func (m memoryResource) Conversations(ctx context.Context) ([]control.Conversation, error) {
	if err := m.readable(); err != nil {
		return nil, err
	}
	convs, err := m.dialogue.Conversations(ctx)
	if err != nil {
		return nil, apiError(err)
	}
	out := make([]control.Conversation, 0, len(convs))
	for _, c := range convs {
		cv := control.Conversation{ID: c.ID}
		for _, x := range c.Exchanges {
			cv.Exchanges = append(cv.Exchanges, control.Exchange{At: x.At, User: x.User, Assistant: x.Assistant})
		}
		out = append(out, cv)
	}
	return out, nil
}

func (m memoryResource) DeleteConversation(ctx context.Context, id string) error {
	if err := m.readable(); err != nil {
		return err
	}
	n, err := m.dialogue.DeleteConversation(ctx, id)
	if err != nil {
		return apiError(err)
	}
	if n == 0 {
		return fmt.Errorf("%w: no conversation %q", control.ErrNotFound, id)
	}
	return nil
}
