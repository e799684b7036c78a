package schedule

import (
	"context"
	"slices"
	"sync"

	"github.com/harkbox/hark/storage"
)

// memStore keeps items in memory. The firing tests use it under synctest,
// where Badger's own background tickers would spin through days of fake
// time; the restart tests use the real store.
type memStore struct {
	mu    sync.Mutex
	items map[string]storage.Item
}

func newMemStore() *memStore { return &memStore{items: map[string]storage.Item{}} }

func (m *memStore) Put(ctx context.Context, it storage.Item) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.items[it.ID] = it
	return nil
}

func (m *memStore) Get(ctx context.Context, id string) (storage.Item, bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	it, ok := m.items[id]
	return it, ok, nil
}

func (m *memStore) List(ctx context.Context, kinds ...storage.ItemKind) ([]storage.Item, error) {
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
