package center

import (
	"context"
	"time"

	"github.com/harkbox/hark/storage"
)

// Dialogue is the household's dialogue as one conversation's engine sees
// it: its own exchanges only, however many other speakers talk meanwhile.
type Dialogue struct {
	Store *storage.Dialogue
	ID    string
}

// Append stores an exchange.
func (d Dialogue) Append(ctx context.Context, e storage.Exchange) error {
	return d.Store.Append(ctx, e)
}

// Recent is the conversation's newest exchanges since a time.
func (d Dialogue) Recent(ctx context.Context, since time.Time, limit int) ([]storage.Exchange, error) {
	return d.Store.RecentIn(ctx, d.ID, since, limit)
}

// RecentIn is Recent when conversation is this one's; another has none.
func (d Dialogue) RecentIn(ctx context.Context, conversation string, since time.Time, limit int) ([]storage.Exchange, error) {
	if conversation != d.ID {
		return nil, nil
	}
	return d.Recent(ctx, since, limit)
}
