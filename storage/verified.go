package storage

import (
	"bytes"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harkbox/hark/internal/atomicfile"
)

// Reading every table whole before opening (see inspect) costs seconds
// at each boot on a large store on a slow card. Badger never changes a
// table file once written, so one found sound need not be read again
// while nothing could have gone wrong since: the tables found sound are
// recorded (verifiedFile: id, size and time of each), and a clean start
// reads whole only the tables not in that record. A start is clean when
// the last run closed the store: runningFile is made before Badger
// opens and removed once it has closed. Every table is read again after
// a run that did not close (a crash, a power cut, a process killed), when
// the record is missing or damaged, and after an open that failed with
// the check cut short. The tables trusted are still read whole a minute
// after Badger opened, one at a time (recheck), and a read that finds a
// block whose checksum fails drops the record too: a table that rots
// after a clean stop is so found by the first run that reads it or dies
// on it, and set aside by the next start.

const (
	verifiedFile = "tables-checked"
	runningFile  = "store-running"
)

// recheckAfter is how long after opening the trusted tables are read
// again: at a box's start the card is busy loading the speech and
// language models, which the first question waits for.
var recheckAfter = time.Minute

// stamp is what says a table file is the one that was read: its size
// and modification time.
type stamp struct{ size, mtime int64 }

func stampOf(info os.FileInfo) stamp { return stamp{info.Size(), info.ModTime().UnixNano()} }

// readVerified is the record of tables found sound in dir; nil when there
// is none, or it is damaged.
func readVerified(dir string) map[uint64]stamp {
	b, err := os.ReadFile(filepath.Join(dir, verifiedFile))
	if err != nil {
		return nil
	}
	body, sum, ok := bytes.Cut(b, []byte("sum "))
	if !ok || strings.TrimSpace(string(sum)) != strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10) {
		return nil
	}
	out := map[uint64]stamp{}
	for line := range strings.Lines(string(body)) {
		var id uint64
		var s stamp
		if _, err := fmt.Sscanf(line, "%d %d %d\n", &id, &s.size, &s.mtime); err != nil {
			return nil
		}
		out[id] = s
	}
	return out
}

// writeVerified records tables as found sound in dir, atomically; a
// record already saying so is left as it is.
func writeVerified(dir string, tables map[uint64]stamp) error {
	var b bytes.Buffer
	for _, id := range slices.Sorted(maps.Keys(tables)) {
		fmt.Fprintf(&b, "%06d %d %d\n", id, tables[id].size, tables[id].mtime)
	}
	fmt.Fprintf(&b, "sum %d\n", crc32.ChecksumIEEE(b.Bytes()))
	path := filepath.Join(dir, verifiedFile)
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		return nil
	}
	if err := atomicfile.Write(path, b.Bytes(), 0o600); err != nil {
		return fmt.Errorf("storage: record the tables checked: %w", err)
	}
	return nil
}

// recheck reads whole, one after another, the tables a clean start
// trusted: a table that rotted after a clean stop is no error where
// Badger reads it (an iteration over its damaged block just ends), so
// this is where it is found. It drops the record then, so that the next
// start reads every table and sets the damaged one aside. It stops at
// Close.
func (db *DB) recheck(tables []tableFile) {
	defer db.rechecked.Done()
	select {
	case <-db.stop:
		return
	case <-time.After(recheckAfter):
	}
	for _, t := range tables {
		select {
		case <-db.stop:
			return
		default:
		}
		if _, err := os.Stat(t.path); errors.Is(err, os.ErrNotExist) {
			continue // compacted away since
		}
		bad := tableDamaged(t.path, t.id, t.c)
		if _, err := os.Stat(t.path); bad == "" || errors.Is(err, os.ErrNotExist) {
			continue
		}
		db.log.Error("a table of the store is damaged: the next start sets it aside, every byte kept, and reads back what it can",
			"table", filepath.Base(t.path), "why", bad)
		if err := forgetVerified(db.dir); err != nil {
			db.log.Warn("the tables checked are still recorded", "err", err)
		}
		return
	}
}

// forgetVerified drops the record, so that the next start reads every
// table whole.
func forgetVerified(dir string) error {
	if err := os.Remove(filepath.Join(dir, verifiedFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("storage: forget the tables checked: %w", err)
	}
	return nil
}

// running reports whether the last run in dir did not close the store.
func running(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, runningFile))
	return err == nil
}

// markRunning says, until unmarkRunning, that the store in dir is open.
func markRunning(dir string) error {
	if err := atomicfile.Write(filepath.Join(dir, runningFile), []byte("the store is open; a start that finds this reads every table\n"), 0o600); err != nil {
		return fmt.Errorf("storage: mark the store open: %w", err)
	}
	return nil
}

// unmarkRunning says the store in dir was closed.
func unmarkRunning(dir string) error {
	if err := os.Remove(filepath.Join(dir, runningFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("storage: mark the store closed: %w", err)
	}
	if err := atomicfile.SyncDir(dir); err != nil {
		return fmt.Errorf("storage: mark the store closed: %w", err)
	}
	return nil
}
