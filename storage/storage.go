// Package storage keeps Hark's state in Badger on the data partition of the SD
// card: the dialogue, the diary, the facts and secrets, the timers and
// alarms, the alerts nobody heard, and the settings. It is tuned for a 512 MB board and writes synchronously, so that
// what the box was told survives a power cut.
//
// Open one DB per data directory and share it; each kind of record has its own
// small type (Dialogue, Diary, Facts, Schedule, Missed, Settings) obtained
// from the DB.
package storage

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/harkbox/hark/internal/disk"
	"github.com/harkbox/hark/internal/ratelog"
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
	// Check is how often the store looks whether its partition turned
	// read-only, and Retry how often a store that cannot save tries to
	// come back; defaults 1 s and 10 s.
	Check, Retry time.Duration
	// Timeout bounds one call into Badger (a read, a write, an open): a
	// card that takes longer is taken for a failed one; default 5 s.
	// CloseTimeout bounds Close; default 5 s. OpenTimeout bounds opening
	// (a replay of the write-ahead log on a slow card takes a while);
	// default 30 s, after which the store holds, and takes Badger when it
	// opens after all.
	Timeout, CloseTimeout, OpenTimeout time.Duration
	// Mount, when set, is where the data partition is mounted, the data
	// directory on it: while nothing is mounted there (a card pulled, a
	// filesystem fsck would not pass) the store holds rather than write
	// to the filesystem below.
	Mount string
	// CheckAll reads every table whole before opening, trusting none
	// found sound before (see verifiedFile): for a process that runs one
	// command and exits, which the re-read a minute after opening never
	// reaches. A household's store is a few MB of tables: a fraction of a
	// second.
	CheckAll bool
}

func (o Options) withDefaults() Options {
	if o.Check == 0 {
		o.Check = time.Second
	}
	if o.Retry == 0 {
		o.Retry = 10 * time.Second
	}
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second
	}
	if o.CloseTimeout == 0 {
		o.CloseTimeout = 5 * time.Second
	}
	if o.OpenTimeout == 0 {
		o.OpenTimeout = 30 * time.Second
	}
	return o
}

// SchemaVersion is the layout of keys and values this build reads and writes.
// A data directory written by a newer layout is refused rather than misread.
const SchemaVersion = 1

var schemaKey = []byte("meta/schema")

// ErrLocked reports a data directory another process has open.
var ErrLocked = errors.New("storage: data directory is in use by another hark process")

// errNewer marks a data directory of a newer schema.
var errNewer = errors.New("storage: newer schema")

// DB is an open data directory. It stays usable whatever the card does:
// see Health.
type DB struct {
	dir string
	o   Options
	log *slog.Logger
	res *reserve
	seq atomic.Uint32 // tells apart keys made in the same nanosecond
	// order numbers the dialogue's exchanges, whatever the wall clock does.
	order dialogueOrder
	// undecodable holds the keys of records found not to decode, each
	// logged once.
	undecodable sync.Map

	mu       sync.Mutex
	bdb      *badger.DB // nil while nothing could be opened
	readOnly bool       // bdb was opened read-only (the card was at open)
	fsID     [2]int32   // the filesystem bdb is on
	health   Health
	held     held
	changed  chan struct{} // closed and replaced on every change of health
	lastTry  time.Time     // of a reopen

	stop      chan struct{}
	done      chan struct{}
	closeOnce sync.Once
	closeErr  error
	closed    bool // guarded by mu

	// skipped are the tables not read whole before opening, trusted;
	// recheck reads them after.
	skipped   []tableFile
	rechecked sync.WaitGroup
}

// Open opens (creating if needed) the store in dir. A store that cannot be
// opened for writing is still returned, Holding (see Health): read-only
// when the card is, memory-only when nothing can be read, and it comes
// back by itself when the card does. Damaged files are set aside first
// (see Health.Recovered). Open fails only on bad options, a directory
// another process holds (ErrLocked), or one written by a newer schema.
func Open(dir string, o Options) (*DB, error) {
	if _, err := badgerOptions(dir, o); err != nil {
		return nil, err
	}
	o = o.withDefaults()
	log := logger(o)
	db := &DB{dir: dir, o: o, log: log, changed: make(chan struct{}), stop: make(chan struct{}), done: make(chan struct{})}
	var rec *Recovery
	err := db.mounted()
	var trusted map[uint64]stamp // the tables not read whole again (see verifiedFile)
	if err == nil {
		if !running(dir) && !o.CheckAll {
			trusted = readVerified(dir)
		}
		rec, err = db.prepareAndOpen(trusted)
	}
	if err != nil && len(trusted) > 0 && db.bdb == nil && !errors.Is(err, ErrLocked) && !errors.Is(err, errNewer) && !errors.Is(err, errStuck) {
		// A table trusted may have rotted since: read every one.
		log.Warn("the store did not open after a start that trusted the tables checked before; checking every table", "err", err)
		rec, err = db.prepareAndOpen(nil)
	}
	db.health.Recovered = rec
	if errors.Is(err, ErrLocked) || errors.Is(err, errNewer) {
		return nil, err
	}
	if err != nil {
		db.health = Health{Condition: Holding, Err: err, Since: time.Now(), Reading: db.bdb != nil, Data: dataFault(err), Recovered: rec}
		log.Error("the store cannot save: answering on, holding what is new in memory until it can", "dir", dir, "err", err, "reading", db.bdb != nil)
	}
	// No ballast below a data partition that is not there: on the image
	// that is the tmpfs /var, the board's memory.
	db.res = newReserve(dir, o, log, db.mounted() == nil)
	db.lastTry = time.Now()
	go db.watch()
	if db.bdb != nil && !db.readOnly && len(db.skipped) > 0 {
		db.rechecked.Add(1)
		go db.recheck(db.skipped)
	}
	return db, nil
}

// prepareAndOpen checks the data directory, the tables in trusted aside
// (see prepare), says the store is running, and opens it.
// The tables trusted are read again after it opened (see recheck).
func (db *DB) prepareAndOpen(trusted map[uint64]stamp) (*Recovery, error) {
	// Room first: the record, the mark and a recovery write too.
	db.roomAtStart()
	rec, skipped, err := prepare(db.dir, db.o, db.log, trusted)
	if err != nil {
		return rec, err
	}
	db.skipped = skipped
	if _, serr := os.Stat(db.dir); serr == nil {
		db.markRunning()
	}
	return rec, db.open(db.adopt)
}

// markRunning marks the store open (see runningFile), saying when it
// cannot: on a read-only card nothing is written, so a crash there has
// nothing to leave half done.
func (db *DB) markRunning() {
	err := markRunning(db.dir)
	switch {
	case err == nil:
	case errors.Is(err, syscall.EROFS):
		db.log.Info("the card is read-only: the store is not marked open, as nothing is written to it", "err", err)
	default:
		db.log.Warn("a crash from now on may go unnoticed at the next start", "err", err)
	}
}

// open opens Badger in db.dir for writing or, on a read-only card, for
// reading; it sets db.bdb when either works, and returns why it cannot
// write. A Badger that opens only after Options.OpenTimeout goes to late.
func (db *DB) open(late func(*badger.DB)) error {
	dir, o := db.dir, db.o
	opts, _ := badgerOptions(dir, o)
	db.roomAtStart()
	type opened struct {
		bdb *badger.DB
		err error
	}
	result := make(chan opened, 1)
	go func() {
		bdb, err := badger.Open(opts)
		if err != nil && !locked(err) {
			// Once, after removing only files proven empty that a crash left.
			if healed, herr := heal(dir, err, db.log); herr != nil {
				err = herr
			} else if healed {
				bdb, err = badger.Open(opts)
			}
		}
		result <- opened{bdb, err}
	}()
	var bdb *badger.DB
	var err error
	select {
	case r := <-result:
		bdb, err = r.bdb, r.err
	case <-time.After(o.OpenTimeout):
		// A card that answers slowly: the box goes on from memory, and
		// takes the store when it opens after all.
		go func() {
			if r := <-result; r.err == nil {
				late(r.bdb)
			}
		}()
		err = fmt.Errorf("%w (not open within %v)", errStuck, o.OpenTimeout)
	}
	if err != nil {
		if locked(err) {
			return fmt.Errorf("storage: open %s: %w", dir, ErrLocked)
		}
		if errors.Is(err, errStuck) {
			return fmt.Errorf("storage: open %s: %w", dir, err)
		}
		werr := fmt.Errorf("storage: open %s: %w", dir, err)
		// A read-only card still reads: what was stored (the timers
		// above all) is there.
		var rerr error
		if rerr = db.bounded(func() (err error) { bdb, err = badger.Open(opts.WithReadOnly(true)); return err }); rerr == nil {
			if serr := checkSchema(bdb, dir, false); serr != nil {
				bdb.Close()
				return serr
			}
			db.bdb, db.readOnly, db.fsID = bdb, true, fsID(dir)
		} else if readOnlyFS(err) {
			// A card the kernel turned read-only on an error: Badger
			// cannot open it even to read, and a copy in memory is read.
			var mem *badger.DB
			if merr := db.bounded(func() (err error) { mem, err = copyToMemory(dir, o); return err }); merr == nil {
				if serr := checkSchema(mem, dir, false); serr != nil {
					mem.Close()
					return serr
				}
				db.log.Warn("the card cannot be opened even to read: what it holds is read from a copy in memory", "dir", dir, "err", rerr)
				db.bdb, db.readOnly, db.fsID = mem, true, fsID(dir)
			}
		}
		return werr
	}
	if err := checkSchema(bdb, dir, true); err != nil {
		bdb.Close()
		if errors.Is(err, errNewer) {
			return err
		}
		return fmt.Errorf("storage: open %s: %w", dir, err)
	}
	db.bdb, db.readOnly, db.fsID = bdb, false, fsID(dir)
	return nil
}

// roomAtStart gives up the storage reserve's ballast when the data
// partition is below the floor at start (a crash loop on a full disk:
// Badger could not even write its LOCK file), so that the store opens.
func (db *DB) roomAtStart() {
	if db.o.Floor < 0 {
		return
	}
	if free, err := freeBytes(db.dir); err == nil && free < max(db.o.Floor, DefaultFloor) {
		if os.Remove(filepath.Join(db.dir, ballastFile)) == nil {
			db.log.Warn("the data partition is full at start: released the storage reserve's ballast", "free", disk.MiB(free))
		}
	}
}

// errNotMounted: the data partition is not where it should be.
var errNotMounted = errors.New("the data partition is not mounted")

// mounted checks that the data partition is mounted where Options.Mount
// says.
func (db *DB) mounted() error {
	if db.o.Mount == "" || disk.Mounted(db.o.Mount) {
		return nil
	}
	return fmt.Errorf("storage: %w on %s", errNotMounted, db.o.Mount)
}

func fsID(dir string) [2]int32 {
	sp, _ := disk.Usage(dir)
	return sp.ID
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

// Close flushes and closes the store, within Options.CloseTimeout: a card
// that stops answering is abandoned rather than waited for (what was
// acknowledged before is on it either way, since writes are synchronous).
// Changes still held in memory are lost, and logged.
func (db *DB) Close() error {
	db.closeOnce.Do(func() {
		close(db.stop)
		<-db.done
		db.rechecked.Wait()
		db.mu.Lock()
		db.closed = true
		bdb, holding, readOnly, n := db.bdb, db.health.Condition == Holding, db.readOnly, db.held.len()
		db.bdb = nil
		db.mu.Unlock()
		if n > 0 {
			db.log.Warn("changes held in memory are lost: the storage did not come back before the box stopped", "changes", n)
		}
		if bdb == nil {
			return
		}
		if holding && !readOnly {
			// Badger would try to flush to a card that refuses it, for ever.
			db.log.Warn("not closing the store on a card that cannot be written: what was saved before the fault is on it", "dir", db.dir)
			return
		}
		if err := db.boundedFor(db.o.CloseTimeout, bdb.Close); err != nil {
			db.closeErr = fmt.Errorf("storage: close %s: %w", db.dir, err)
			return
		}
		if readOnly {
			return // as it was: a read-only card was never marked
		}
		if err := unmarkRunning(db.dir); err != nil {
			db.log.Warn("the next start reads every table", "err", err)
		}
	})
	return db.closeErr
}

// Full reports whether writes are being refused because the data
// partition is below its reserve.
func (db *DB) Full() bool { return db.res.isFull() }

// Writable returns ErrFull (wrapped, with the free space) when a write
// would be refused.
func (db *DB) Writable() error { return db.res.check() }

// Dir is the data directory the store lives in.
func (db *DB) Dir() string { return db.dir }

// checkSchema reads the schema version, writing it to a new store unless
// write is false.
func checkSchema(bdb *badger.DB, dir string, write bool) error {
	var v []byte
	err := bdb.View(func(txn *badger.Txn) error {
		item, err := txn.Get(schemaKey)
		if err != nil {
			return err
		}
		v, err = item.ValueCopy(nil)
		return err
	})
	if errors.Is(err, badger.ErrKeyNotFound) {
		if !write {
			return nil
		}
		return bdb.Update(func(txn *badger.Txn) error { return txn.Set(schemaKey, []byte(strconv.Itoa(SchemaVersion))) })
	}
	if err != nil {
		return fmt.Errorf("storage: read schema version: %w", err)
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return fmt.Errorf("storage: schema version %q in %s is not a number", v, dir)
	}
	if n > SchemaVersion {
		return fmt.Errorf("%w: %s holds schema %d, newer than this build's %d; refusing to open it", errNewer, dir, n, SchemaVersion)
	}
	return nil
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
		WithLogger(badgerLog{log.With("pkg", "storage"), ratelog.New(time.Minute)}).
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
		WithMetricsEnabled(false).
		// A block whose checksum fails is an error where it is read, not
		// bytes taken for records (tables are read whole only once: see
		// verifiedFile).
		WithChecksumVerificationMode(options.OnBlockRead), nil
}

// badgerLog sends Badger's log lines to slog; its routine chatter is
// Debug. A warning or error that repeats (a flush retried each second on
// a card that refuses it) is logged once a minute, with how many were not.
type badgerLog struct {
	l     *slog.Logger
	limit *ratelog.Limiter
}

func (b badgerLog) Errorf(f string, a ...any)   { b.limited(slog.LevelError, f, a) }
func (b badgerLog) Warningf(f string, a ...any) { b.limited(slog.LevelWarn, f, a) }

func (b badgerLog) limited(level slog.Level, f string, a []any) {
	if ok, held := b.limit.Allow(f); ok {
		b.l.Log(context.Background(), level, line(f, a), "repeats_not_logged", held)
	}
}
func (b badgerLog) Infof(f string, a ...any)  { b.l.Debug(line(f, a)) }
func (b badgerLog) Debugf(f string, a ...any) { b.l.Debug(line(f, a)) }

func line(f string, a []any) string { return strings.TrimSpace(fmt.Sprintf(f, a...)) }
