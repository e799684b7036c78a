package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/dgraph-io/badger/v4"
)

// put stores v as JSON under key, unless the disk is below its reserve.
// While the card cannot take it, it is held in memory.
func (db *DB) put(ctx context.Context, op, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	return db.apply(ctx, op, []kv{{key: key, value: b}}, false)
}

// putCritical is put for the few small writes that must go on while the
// disk is full (the schedule's): it may use the reserve down to a quarter
// of the floor. It is never held in memory: while the card cannot take it,
// it fails with ErrUnavailable and the caller keeps it.
func (db *DB) putCritical(ctx context.Context, op, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	return db.apply(ctx, op, []kv{{key: key, value: b}}, true)
}

// get reads key into v and reports whether it was there.
func (db *DB) get(ctx context.Context, op, key string, v any) (bool, error) {
	db.mu.Lock()
	c, isHeld := db.held.get(key)
	db.mu.Unlock()
	if isHeld {
		if c.deleted {
			return false, nil
		}
		if err := json.Unmarshal(c.value, v); err != nil {
			return false, fmt.Errorf("storage: %s: %w", op, err)
		}
		return true, nil
	}
	b, err := view(db, ctx, op, func(txn *badger.Txn) ([]byte, error) {
		item, err := txn.Get([]byte(key))
		if err != nil {
			return nil, err
		}
		return item.ValueCopy(nil)
	})
	if errors.Is(err, badger.ErrKeyNotFound) || err == nil && b == nil {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return false, fmt.Errorf("storage: %s: %w", op, err)
	}
	return true, nil
}

// del removes key.
func (db *DB) del(ctx context.Context, op, key string) error {
	return db.apply(ctx, op, []kv{{key: key, deleted: true}}, false)
}

// delCritical is del for the schedule: never held.
func (db *DB) delCritical(ctx context.Context, op, key string) error {
	return db.apply(ctx, op, []kv{{key: key, deleted: true}}, true)
}

// scan calls fn with the value of every key under prefix, in key order,
// what is held in memory included.
func (db *DB) scan(ctx context.Context, op, prefix string, fn func(key string, value []byte) error) error {
	stored, err := view(db, ctx, op, func(txn *badger.Txn) ([]kv, error) {
		var out []kv
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefix), PrefetchValues: true, PrefetchSize: 16})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return nil, err
			}
			out = append(out, kv{key: string(it.Item().Key()), value: v})
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	for _, c := range db.overlay(stored, prefix) {
		if err := fn(c.key, c.value); err != nil {
			return fmt.Errorf("storage: %s: %w", op, err)
		}
	}
	return nil
}

// records calls fn with every record under prefix decoded as T, in key
// order. A record that does not decode (a bit flipped on the card, or one
// a newer build wrote before an update was rolled back) is left where it
// is and skipped, logged once: it hides none of the others.
func records[T any](ctx context.Context, db *DB, op, prefix string, fn func(key string, v T) error) error {
	return db.scan(ctx, op, prefix, func(key string, b []byte) error {
		var v T
		if err := json.Unmarshal(b, &v); err != nil {
			db.passOver(op, key, err)
			return nil
		}
		return fn(key, v)
	})
}

// passOver logs, once, a record that does not decode.
func (db *DB) passOver(op, key string, err error) {
	if _, seen := db.undecodable.LoadOrStore(key, true); !seen {
		db.log.Warn("storage: a record does not decode; passing over it", "op", op, "key", fmt.Sprintf("%q", key), "err", err)
	}
}

// overlay is stored (in key order) with the changes held under prefix
// applied, in key order.
func (db *DB) overlay(stored []kv, prefix string) []kv {
	db.mu.Lock()
	keys := db.held.under(prefix)
	changes := make([]change, len(keys))
	for i, k := range keys {
		changes[i], _ = db.held.get(k)
	}
	db.mu.Unlock()
	if len(keys) == 0 {
		return stored
	}
	merged := make(map[string]kv, len(stored)+len(keys))
	for _, c := range stored {
		merged[c.key] = c
	}
	for i, k := range keys {
		if changes[i].deleted {
			delete(merged, k)
		} else {
			merged[k] = kv{key: k, value: changes[i].value}
		}
	}
	out := make([]kv, 0, len(merged))
	for _, c := range merged {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b kv) int { return strings.Compare(a.key, b.key) })
	return out
}
