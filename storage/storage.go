// Package storage keeps Hark's state in Badger on the data partition of the SD
// card: the dialogue so far, and later the diary, facts, timers, secrets and
// settings. It is tuned for a 512 MB board and writes synchronously, so that
// what the box was told survives a power cut.
//
// Open one DB per data directory and share it; each kind of record has its own
// small type (Dialogue, ...) obtained from the DB.
package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/dgraph-io/badger/v4"

	"github.com/harkbox/hark/internal/disk"
)

// Profile picks Badger's memory budget.
type Profile string

// The profiles. LowMemory suits a Pi Zero 2 W (512 MB) and is the default;
// Standard trades memory for fewer compactions on boards with 2 GB or more.
const (
	LowMemory Profile = "low-memory"
	Standard  Profile = "standard"
)

// Options configure Open. The zero value is the low-memory profile with
// synchronous writes and no logging.
type Options struct {
	Profile Profile
	// Log receives Badger's warnings and errors; its chatter goes to Debug.
	Log *slog.Logger
	// Floor is the free space on the data partition below which writes
	// are refused with ErrFull; default DefaultFloor (16 MiB), negative
	// turns the reserve off. Ballast is the file kept in reserve above it
	// and released when the floor is crossed; default DefaultBallast.
	Floor, Ballast int64
	// Free reports a directory's free bytes; default statfs.
	Free func(dir string) (int64, error)
}

// SchemaVersion is the layout of keys and values this build reads and writes.
// A data directory written by a newer layout is refused rather than misread.
const SchemaVersion = 1

var schemaKey = []byte("meta/schema")

// ErrLocked reports a data directory another process has open.
var ErrLocked = errors.New("storage: data directory is in use by another hark process")

// DB is an open data directory.
type DB struct {
	bdb *badger.DB
	dir string
	res *reserve
	seq atomic.Uint32 // tells apart keys made in the same nanosecond
	// order numbers the dialogue's exchanges, whatever the wall clock does.
	order dialogueOrder
}

// Open opens (creating if needed) the store in dir.
func Open(dir string, o Options) (*DB, error) {
	opts, err := badgerOptions(dir, o)
	if err != nil {
		return nil, err
	}
	// Below the floor at start (a crash loop on a full disk: Badger could
	// not even write its LOCK file), the ballast gives Badger room to open.
	if o.Floor >= 0 {
		if free, ferr := freeBytes(dir); ferr == nil && free < max(o.Floor, DefaultFloor) {
			if os.Remove(filepath.Join(dir, ballastFile)) == nil {
				logger(o).Warn("the data partition is full at start: released the storage reserve's ballast", "free", disk.MiB(free))
			}
		}
	}
	bdb, err := badger.Open(opts)
	if err != nil && !locked(err) {
		// Once, after removing only files proven empty that a crash left.
		if healed, herr := heal(dir, err, logger(o)); herr != nil {
			return nil, herr
		} else if healed {
			bdb, err = badger.Open(opts)
		}
	}
	if err != nil {
		if locked(err) {
			return nil, fmt.Errorf("storage: open %s: %w", dir, ErrLocked)
		}
		return nil, fmt.Errorf("storage: open %s: %w", dir, err)
	}
	db := &DB{bdb: bdb, dir: dir, res: newReserve(dir, o, logger(o))}
	if err := db.checkSchema(); err != nil {
		bdb.Close()
		return nil, err
	}
	return db, nil
}

func locked(err error) bool {
	return strings.Contains(err.Error(), "Another process is using this Badger database")
}

func logger(o Options) *slog.Logger {
	if o.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return o.Log.With("pkg", "storage")
}

// Close flushes and closes the store. Call it on shutdown; what was written
// before is on disk either way, since writes are synchronous.
func (db *DB) Close() error {
	if err := db.bdb.Close(); err != nil {
		return fmt.Errorf("storage: close %s: %w", db.dir, err)
	}
	return nil
}

// Full reports whether writes are being refused because the data
// partition is below its reserve.
func (db *DB) Full() bool { return db.res.isFull() }

// Writable returns ErrFull (wrapped, with the free space) when a write
// would be refused.
func (db *DB) Writable() error { return db.res.check() }

// Dir is the data directory the store lives in.
func (db *DB) Dir() string { return db.dir }

func (db *DB) checkSchema() error {
	return db.bdb.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(schemaKey)
		if errors.Is(err, badger.ErrKeyNotFound) {
			return txn.Set(schemaKey, []byte(strconv.Itoa(SchemaVersion)))
		}
		if err != nil {
			return fmt.Errorf("storage: read schema version: %w", err)
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return fmt.Errorf("storage: read schema version: %w", err)
		}
		n, err := strconv.Atoi(string(v))
		if err != nil {
			return fmt.Errorf("storage: schema version %q in %s is not a number", v, db.dir)
		}
		if n > SchemaVersion {
			return fmt.Errorf("storage: %s holds schema %d, newer than this build's %d; refusing to open it", db.dir, n, SchemaVersion)
		}
		return nil
	})
}

// Memory budgets per profile. Badger refuses a value threshold above 15 % of
// the memtable (its largest write batch), so the threshold stays well below.
// The low-memory memtable (an arena on the Go heap, two of them) and caches
// are small: against 4 MiB memtables and 4+2 MiB caches, the heap of an
// open store with 2,000 exchanges is 3.6 MiB instead of 6.2, an append
// (synced) about 1.3 ms instead of 1.0 and a read of the recent ones about
// the same (BenchmarkDialogue): a turn writes once.
type budget struct {
	memTable, valueThreshold, valueLogFile, baseTable, blockCache, indexCache int64
	memTables, level0, level0Stall, compactors, goroutines                    int
}

var budgets = map[Profile]budget{
	LowMemory: {
		memTable: 2 << 20, valueThreshold: 64 << 10, valueLogFile: 16 << 20, baseTable: 1 << 20,
		blockCache: 1 << 20, indexCache: 1 << 20,
		memTables: 2, level0: 2, level0Stall: 4, compactors: 2, goroutines: 2,
	},
	Standard: {
		memTable: 32 << 20, valueThreshold: 256 << 10, valueLogFile: 64 << 20, baseTable: 2 << 20,
		blockCache: 32 << 20, indexCache: 16 << 20,
		memTables: 3, level0: 4, level0Stall: 10, compactors: 2, goroutines: 4,
	},
}

func badgerOptions(dir string, o Options) (badger.Options, error) {
	p := o.Profile
	if p == "" {
		p = LowMemory
	}
	b, ok := budgets[p]
	if !ok {
		return badger.Options{}, fmt.Errorf("storage: unknown profile %q (want %q or %q)", p, LowMemory, Standard)
	}
	if b.valueThreshold > b.memTable*15/100 {
		return badger.Options{}, fmt.Errorf("storage: profile %s: value threshold %d exceeds Badger's batch limit of 15%% of the %d-byte memtable", p, b.valueThreshold, b.memTable)
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return badger.DefaultOptions(dir).
		WithLogger(badgerLog{log.With("pkg", "storage")}).
		WithSyncWrites(true).
		WithMemTableSize(b.memTable).
		WithNumMemtables(b.memTables).
		WithValueThreshold(b.valueThreshold).
		WithValueLogFileSize(b.valueLogFile).
		WithBaseTableSize(b.baseTable).
		WithBlockCacheSize(b.blockCache).
		WithIndexCacheSize(b.indexCache).
		WithNumLevelZeroTables(b.level0).
		WithNumLevelZeroTablesStall(b.level0Stall).
		WithNumCompactors(b.compactors).
		WithNumGoroutines(b.goroutines).
		WithMetricsEnabled(false), nil
}

// badgerLog sends Badger's log lines to slog; its routine chatter is Debug.
type badgerLog struct{ l *slog.Logger }

func (b badgerLog) Errorf(f string, a ...any)   { b.l.Error(line(f, a)) }
func (b badgerLog) Warningf(f string, a ...any) { b.l.Warn(line(f, a)) }
func (b badgerLog) Infof(f string, a ...any)    { b.l.Debug(line(f, a)) }
func (b badgerLog) Debugf(f string, a ...any)   { b.l.Debug(line(f, a)) }

func line(f string, a []any) string { return strings.TrimSpace(fmt.Sprintf(f, a...)) }
