package storage

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/dgraph-io/badger/v4"
)

// put stores v as JSON under key, unless the disk is below its reserve.
func (db *DB) put(ctx context.Context, op, key string, v any) error {
	if err := db.res.check(); err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	return db.write(ctx, op, key, v)
}

// write stores v as JSON under key.
func (db *DB) write(ctx context.Context, op, key string, v any) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set([]byte(key), b) }); err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	return nil
}

// putCritical is put for the few small writes that must go on while the
// disk is full (the schedule's): it may use the reserve down to a quarter
// of the floor.
func (db *DB) putCritical(ctx context.Context, op, key string, v any) error {
	if err := db.res.checkCritical(); err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	return db.write(ctx, op, key, v)
}

// get reads key into v and reports whether it was there.
func (db *DB) get(ctx context.Context, op, key string, v any) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, fmt.Errorf("storage: %s: %w", op, err)
	}
	err := db.bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get([]byte(key))
		if err != nil {
			return err
		}
		return item.Value(func(b []byte) error { return json.Unmarshal(b, v) })
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("storage: %s: %w", op, err)
	}
	return true, nil
}

// del removes key.
func (db *DB) del(ctx context.Context, op, key string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	if err := db.res.check(); err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Delete([]byte(key)) }); err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	return nil
}

// scan calls fn with the value of every key under prefix, in key order.
func (db *DB) scan(ctx context.Context, op, prefix string, fn func(key string, value []byte) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	err := db.bdb.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: []byte(prefix), PrefetchValues: true, PrefetchSize: 16})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			key := string(it.Item().Key())
			if err := it.Item().Value(func(v []byte) error { return fn(key, v) }); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	return nil
}
