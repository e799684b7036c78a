// Package scheduletest is an in-memory schedule.Store for tests that run
// under testing/synctest, where Badger's background tickers would spin
// through days of fake time.
package scheduletest

import (
	"context"
	"slices"
	"sync"

	"github.com/harkbox/hark/storage"
)

// Store keeps items in memory. It is safe for concurrent use.
type Store struct {
	mu    sync.Mutex
	items map[string]storage.Item
}

// New returns an empty store.
func New() *Store { return &Store{items: map[string]storage.Item{}} }

// Put stores it, replacing the item with its id.
func (m *Store) Put(ctx context.Context, it storage.Item) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.items[it.ID] = it
	return nil
}

// Get returns the item with id.
func (m *Store) Get(ctx context.Context, id string) (storage.Item, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.items[id]
	return it, ok, nil
}

// List returns the items of the kinds (every kind when none), soonest first.
func (m *Store) List(ctx context.Context, kinds ...storage.ItemKind) ([]storage.Item, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []storage.Item
	for _, it := range m.items {
		if len(kinds) == 0 || slices.Contains(kinds, it.Kind) {
			out = append(out, it)
		}
	}
	slices.SortFunc(out, func(a, b storage.Item) int { return a.Due.Compare(b.Due) })
	return out, nil
}
