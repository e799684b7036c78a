package storage

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/harkbox/hark/internal/disk"
)

// Health reports how the store is doing.
func (db *DB) Health() Health {
	db.mu.Lock()
	defer db.mu.Unlock()
	h := db.health
	h.Held = db.held.len()
	h.Told = h.Held - len(db.held.under(dialoguePrefix)) - len(db.held.under(diaryPrefix))
	return h
}

// Changed is closed at the next change of Health.
func (db *DB) Changed() <-chan struct{} {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.changed
}

// changedLocked wakes who waits on Changed; db.mu is held.
func (db *DB) changedLocked() {
	close(db.changed)
	db.changed = make(chan struct{})
}

// bounded runs f within the store's timeout. A call that does not come
// back (a card that stopped answering) is left behind and reported as
// errStuck; f must then not touch what the caller reads.
func (db *DB) bounded(f func() error) error { return db.boundedFor(db.o.Timeout, f) }

func (db *DB) boundedFor(d time.Duration, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("%w (no answer within %v)", errStuck, d)
	}
}

// fault turns the store Holding because of err, met on from; a fault
// already known, or met on an instance since replaced, changes nothing.
func (db *DB) fault(from *badger.DB, err error) {
	db.mu.Lock()
	if db.bdb != from || db.health.Condition == Holding {
		db.mu.Unlock()
		return
	}
	db.health = Health{Condition: Holding, Err: err, Since: time.Now(), Reading: from != nil, Data: dataFault(err), Recovered: db.health.Recovered}
	db.lastTry = time.Now()
	db.changedLocked()
	db.mu.Unlock()
	db.log.Error("storage fault: answering on, holding what is new in memory until the storage is back", "dir", db.dir, "err", err)
}

// probe looks whether the partition turned read-only (the kernel's
// answer to a card error, with errors=remount-ro) or went away, before a
// write finds out.
func (db *DB) probe() {
	db.mu.Lock()
	bdb, holding := db.bdb, db.health.Condition == Holding
	db.mu.Unlock()
	if holding {
		return
	}
	if err := db.mounted(); err != nil {
		db.fault(bdb, err)
		return
	}
	sp, err := disk.Usage(db.dir)
	switch {
	case err != nil:
		db.fault(bdb, err)
	case sp.ReadOnly:
		db.fault(bdb, fmt.Errorf("storage: %s: %w", db.dir, syscall.EROFS))
	}
}

// watch probes the partition and, while the store is Holding, tries to
// bring it back, until Close.
func (db *DB) watch() {
	defer close(db.done)
	t := time.NewTicker(db.o.Check)
	defer t.Stop()
	for {
		select {
		case <-db.stop:
			return
		case <-t.C:
		}
		db.probe()
		db.mu.Lock()
		try := db.health.Condition == Holding && time.Since(db.lastTry) >= db.o.Retry
		if try {
			db.lastTry = time.Now()
		}
		db.mu.Unlock()
		if try {
			db.comeBack()
		}
	}
}

// comeBack reopens the store once the partition takes writes again (a
// card that answers again, a new card, the partition mounted anew) and
// writes what was held.
func (db *DB) comeBack() {
	if db.mounted() != nil {
		return
	}
	// A new card has no data directory yet.
	if err := os.MkdirAll(db.dir, 0o700); err != nil {
		return
	}
	sp, err := disk.Usage(db.dir)
	if err != nil || sp.ReadOnly {
		return
	}
	db.mu.Lock()
	old, oldFS, readOnly := db.bdb, db.fsID, db.readOnly
	db.mu.Unlock()
	target := old
	if old == nil || readOnly || sp.ID != oldFS {
		// Open anew: on another filesystem the old instance is left as it
		// is (closing it would wait for ever on the card that failed); a
		// read-only one has nothing to flush.
		if old != nil && readOnly {
			db.boundedFor(db.o.CloseTimeout, old.Close)
		}
		fresh := &DB{dir: db.dir, o: db.o, log: db.log}
		rec, _, err := prepare(db.dir, db.o, db.log, nil) // a card back: every table read
		if err == nil {
			fresh.markRunning()
			err = fresh.open(db.adopt)
		}
		if err != nil {
			if fresh.bdb != nil {
				fresh.bdb.Close()
			}
			db.log.Debug("the storage is not back yet", "err", err)
			return
		}
		db.mu.Lock()
		db.bdb, db.readOnly, db.fsID = fresh.bdb, false, fresh.fsID
		if rec != nil {
			db.health.Recovered = rec
		}
		db.mu.Unlock()
		target = fresh.bdb
	} else if err := db.bounded(func() error {
		return old.Update(func(txn *badger.Txn) error { return txn.Set(schemaKey, []byte(fmt.Sprint(SchemaVersion))) })
	}); err != nil {
		return // the same card, still failing
	}
	n, err := db.flush(target)
	if err != nil {
		db.log.Warn("the storage is back but the changes held could not be written; holding them still", "err", err)
		return
	}
	db.log.Info("the storage is back: saving again", "dir", db.dir, "held_changes_written", n)
}

// adopt takes a Badger that opened after the store had given up waiting
// for it, when the store has none meanwhile, and writes what it held.
func (db *DB) adopt(bdb *badger.DB) {
	if err := checkSchema(bdb, db.dir, true); err != nil {
		bdb.Close()
		return
	}
	db.mu.Lock()
	if db.bdb != nil || db.closed {
		db.mu.Unlock()
		bdb.Close()
		return
	}
	db.bdb, db.readOnly, db.fsID = bdb, false, fsID(db.dir)
	db.mu.Unlock()
	if n, err := db.flush(bdb); err == nil {
		db.log.Info("the store opened late, but opened: saving again", "dir", db.dir, "held_changes_written", n)
	}
}

// flush writes the held changes to bdb, and turns the store Saving once
// none is left.
func (db *DB) flush(bdb *badger.DB) (int, error) {
	total := 0
	for {
		db.mu.Lock()
		if db.held.len() == 0 {
			db.health = Health{Condition: Saving, Recovered: db.health.Recovered}
			db.changedLocked()
			db.mu.Unlock()
			return total, nil
		}
		keys := db.held.ordered()
		cs := make([]kv, len(keys))
		written := make(map[string]uint64, len(keys))
		for i, k := range keys {
			c, _ := db.held.get(k)
			cs[i] = kv{key: k, value: c.value, deleted: c.deleted}
			written[k] = c.seq
		}
		db.mu.Unlock()
		if err := db.bounded(func() error { return write(bdb, cs) }); err != nil {
			return total, err
		}
		db.mu.Lock()
		db.held.drop(written)
		db.mu.Unlock()
		total += len(cs)
	}
}

// kv is one change to write: a value, or a deletion.
type kv struct {
	key     string
	value   []byte
	deleted bool
}

// write makes the changes in one transaction, or a batch when there are
// many.
func write(bdb *badger.DB, cs []kv) error {
	if len(cs) <= 16 {
		return bdb.Update(func(txn *badger.Txn) error {
			for _, c := range cs {
				var err error
				if c.deleted {
					err = txn.Delete([]byte(c.key))
				} else {
					err = txn.Set([]byte(c.key), c.value)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
	}
	wb := bdb.NewWriteBatch()
	defer wb.Cancel()
	for _, c := range cs {
		var err error
		if c.deleted {
			err = wb.Delete([]byte(c.key))
		} else {
			err = wb.Set([]byte(c.key), c.value)
		}
		if err != nil {
			return err
		}
	}
	return wb.Flush()
}

// apply makes the changes cs: on the card while it takes writes, held in
// memory while it does not. A critical change (the schedule's) is never
// held: it fails with ErrUnavailable, and its caller keeps it. Below the
// reserve, writes fail with ErrFull (a critical one only in the reserve's
// last quarter).
func (db *DB) apply(ctx context.Context, op string, cs []kv, critical bool) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	if db.isClosed() {
		return fmt.Errorf("storage: %s: %w", op, ErrClosed)
	}
	db.probe()
	if db.hold(cs, critical) {
		return nil
	}
	db.mu.Lock()
	bdb, h, closed := db.bdb, db.health, db.closed
	db.mu.Unlock()
	switch {
	case closed: // since the look above
		return fmt.Errorf("storage: %s: %w", op, ErrClosed)
	case h.Condition == Holding:
		return fmt.Errorf("storage: %s: %w: %s", op, ErrUnavailable, describe(h.Err))
	case bdb == nil:
		return fmt.Errorf("storage: %s: %w: nothing is open", op, ErrUnavailable)
	}
	check := db.res.check
	if critical {
		check = db.res.checkCritical
	}
	if err := check(); err != nil {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	err := db.bounded(func() error { return write(bdb, cs) })
	if err == nil {
		return nil
	}
	if !dataFault(err) {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	db.fault(bdb, err)
	if db.hold(cs, critical) {
		return nil
	}
	return fmt.Errorf("storage: %s: %w: %s", op, ErrUnavailable, describe(err))
}

// readable fails when no store is open to read: closed, or nothing could
// be opened yet.
func (db *DB) readable(op string) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	switch {
	case db.closed:
		return fmt.Errorf("storage: %s: %w", op, ErrClosed)
	case db.bdb == nil:
		why := "nothing is open yet"
		if db.health.Err != nil {
			why = describe(db.health.Err)
		}
		return unreadable{op: op, why: why}
	}
	return nil
}

// unreadable is a read of a store of which nothing could be opened: it is
// ErrUnavailable, said as the read it is rather than as a save.
type unreadable struct{ op, why string }

func (e unreadable) Error() string {
	return "storage: " + e.op + ": nothing stored can be read now: " + e.why
}

func (e unreadable) Is(target error) bool { return target == ErrUnavailable }

func (db *DB) isClosed() bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.closed
}

// hold keeps cs in memory when the store is Holding and they are not
// critical, and reports whether it did.
func (db *DB) hold(cs []kv, critical bool) bool {
	db.mu.Lock()
	defer db.mu.Unlock()
	if db.health.Condition != Holding || critical {
		return false
	}
	for _, c := range cs {
		db.held.put(c.key, c.value, c.deleted)
	}
	return true
}

// view runs read in a read transaction of the card, within the store's
// timeout, and returns its result. With nothing open it returns the zero
// T: only what is held reads. A read that fails because of the card turns
// the store Holding and fails with ErrUnavailable.
func view[T any](db *DB, ctx context.Context, op string, read func(txn *badger.Txn) (T, error)) (T, error) {
	var zero T
	if err := ctx.Err(); err != nil {
		return zero, fmt.Errorf("storage: %s: %w", op, err)
	}
	db.mu.Lock()
	bdb := db.bdb
	db.mu.Unlock()
	if bdb == nil {
		return zero, nil
	}
	got := make(chan T, 1)
	err := db.bounded(func() error {
		return bdb.View(func(txn *badger.Txn) error {
			v, err := read(txn)
			if err == nil {
				got <- v
			}
			return err
		})
	})
	if err != nil && strings.Contains(err.Error(), "checksum mismatch") {
		// A table rotted after it was read whole: the next start reads
		// every one, and sets it aside.
		db.log.Error("a table of the store is damaged: the next start sets it aside", "op", op, "err", err)
		if ferr := forgetVerified(db.dir); ferr != nil {
			db.log.Warn("the tables checked are still recorded", "err", ferr)
		}
	}
	switch {
	case err == nil:
		return <-got, nil
	case errors.Is(err, badger.ErrKeyNotFound):
		return zero, err
	case dataFault(err):
		db.fault(bdb, err)
		return zero, fmt.Errorf("storage: %s: %w: %s", op, ErrUnavailable, describe(err))
	}
	return zero, fmt.Errorf("storage: %s: %w", op, err)
}
