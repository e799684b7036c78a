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
}

var _ control.Memory = memoryResource{}

func newMemoryResource(db *storage.DB) memoryResource {
	return memoryResource{facts: db.Facts(), dialogue: db.Dialogue()}
}

func (m memoryResource) Facts(ctx context.Context) ([]control.Fact, error) {
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
	n, err := m.dialogue.DeleteConversation(ctx, id)
	if err != nil {
		return apiError(err)
	}
	if n == 0 {
		return fmt.Errorf("%w: no conversation %q", control.ErrNotFound, id)
	}
	return nil
}
