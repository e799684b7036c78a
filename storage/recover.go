package storage

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
)

// Recovery is what the check before opening found damaged and set aside.
type Recovery struct {
	At time.Time
	// Dir is where the damaged files were moved (DATA/recovered-<time>),
	// every byte kept.
	Dir string
	// Why the files were set aside.
	Why string
	// Records were read back from the set-aside files into the fresh
	// store; Unreadable could not be (a value whose bytes are damaged).
	Records, Unreadable int
}

func (r *Recovery) String() string {
	return fmt.Sprintf("damaged files found at %s (%s) were moved to %s; %d records recovered, %d unreadable",
		r.At.Format("2006-01-02 15:04"), r.Why, r.Dir, r.Records, r.Unreadable)
}

// badgerFile reports whether name is one of Badger's files, which a
// recovery moves aside (with the record of the tables checked); the rest of the data directory (the secrets key,
// the identity, the replies, the log) stays where it is.
func badgerFile(name string) bool {
	switch name {
	case badger.ManifestFilename, "MANIFEST-REWRITE", "KEYREGISTRY", "KEYREGISTRY-REWRITE", "DISCARD", "LOCK",
		verifiedFile: // it names the tables moved

		return true
	}
	for _, ext := range []string{".sst", ".mem", ".vlog"} {
		if strings.HasSuffix(name, ext) {
			return true
		}
	}
	return false
}

// prepare checks the data directory before Badger opens it, which on its
// own would start empty without a MANIFEST (deleting the table files it no
// longer knows), refuse to open with a damaged one, and drop every record
// of a write-ahead log after a few damaged bytes. On any of these it moves
// Badger's files to DATA/recovered-<time>/, makes a fresh store, and reads
// back into it what the set-aside files still hold. Every file moved is
// logged at warn level, with why.
//
// A table in trusted (by id) whose file has the same stamp is not read
// whole again; the tables found sound are recorded for the next start.
func prepare(dir string, o Options, log *slog.Logger, trusted map[uint64]stamp) (*Recovery, []tableFile, error) {
	why, orphans, sound, skipped, err := inspect(dir, trusted)
	if err != nil {
		return nil, nil, err
	}
	if why == "" && sound != nil { // on damage, the record is set aside with the tables
		if err := writeVerified(dir, sound); err != nil {
			log.Warn("the tables checked were not recorded: the next start checks them again", "err", err)
		}
	}
	if why == "" && len(orphans) > 0 {
		// Left by a flush or compaction a power cut interrupted: their
		// records are also in the tables and logs the MANIFEST names.
		// Badger would delete them; they are kept, out of its way.
		to := filepath.Join(dir, "recovered-"+time.Now().Format("20060102T150405"))
		if err := moveFiles(dir, to, orphans, "not in the MANIFEST: left by an interrupted flush or compaction, its records are in the files the MANIFEST names", log); err != nil {
			return nil, nil, fmt.Errorf("storage: %s: set aside tables not in the MANIFEST: %w", dir, err)
		}
	}
	if why == "" {
		return nil, skipped, nil
	}
	rec := &Recovery{At: time.Now(), Why: why}
	rec.Dir = filepath.Join(dir, "recovered-"+rec.At.Format("20060102T150405"))
	if err := moveAside(dir, rec.Dir, why, log); err != nil {
		return nil, nil, fmt.Errorf("storage: %s: %w (%s), and they cannot be set aside: %w", dir, errDamaged, why, err)
	}
	rec.Records, rec.Unreadable, err = rebuild(dir, rec.Dir, o)
	if err != nil {
		log.Error("damaged files set aside, but reading them back failed; the store starts empty", "recovered_dir", rec.Dir, "err", err)
	}
	log.Warn("the store was damaged: its files were set aside and what could be read was recovered",
		"why", why, "recovered_dir", rec.Dir, "records", rec.Records, "unreadable", rec.Unreadable)
	return rec, nil, nil
}

// inspect says what is wrong with the Badger files in dir, "" for
// nothing (a new store included), which table files the MANIFEST does
// not name while it names others, and the stamps of the tables it names,
// found sound (nil when dir is not there). A table in trusted with the
// same stamp is taken for sound without reading it.
func inspect(dir string, trusted map[uint64]stamp) (why string, orphans []string, sound map[uint64]stamp, skipped []tableFile, err error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil, nil, nil, nil
	}
	if err != nil {
		return "", nil, nil, nil, fmt.Errorf("storage: read %s: %w", dir, err)
	}
	sound = map[uint64]stamp{}
	tables := map[uint64]stamp{} // id: size and time
	var wals []string
	hasManifest := false
	for _, e := range entries {
		name := e.Name()
		switch {
		case name == badger.ManifestFilename:
			hasManifest = true
		case strings.HasSuffix(name, ".sst"):
			id, err := strconv.ParseUint(strings.TrimSuffix(name, ".sst"), 10, 64)
			if err != nil {
				continue
			}
			info, err := e.Info()
			if err != nil {
				return "", nil, nil, nil, fmt.Errorf("storage: %s: %w", name, err)
			}
			tables[id] = stampOf(info)
		case strings.HasSuffix(name, ".mem"):
			wals = append(wals, name)
		}
	}
	if !hasManifest {
		if len(tables) == 0 && !anyEntries(dir, wals) {
			return "", nil, sound, nil, nil // a new store
		}
		return "the MANIFEST is missing", nil, nil, nil, nil
	}
	f, err := os.Open(filepath.Join(dir, badger.ManifestFilename))
	if err != nil {
		return "", nil, nil, nil, fmt.Errorf("storage: %w", err)
	}
	m, _, err := badger.ReplayManifestFile(f, 0, badger.DefaultOptions(dir).WithLogger(nil))
	f.Close()
	if err != nil {
		return "the MANIFEST is damaged: " + err.Error(), nil, nil, nil, nil
	}
	var problems []string
	if bad := keyRegistryDamaged(filepath.Join(dir, "KEYREGISTRY")); bad != "" {
		problems = append(problems, "KEYREGISTRY is damaged: "+bad)
	}
	for id := range m.Tables {
		st, ok := tables[id]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("table %06d.sst is missing", id))
		case st.size < minTable:
			problems = append(problems, fmt.Sprintf("table %06d.sst is cut short (%d bytes)", id, st.size))
		case trusted[id] == st:
			sound[id] = st // read whole before, and the same file since
			skipped = append(skipped, tableFile{filepath.Join(dir, fmt.Sprintf("%06d.sst", id)), id, m.Tables[id].Compression})
		default:
			path := filepath.Join(dir, fmt.Sprintf("%06d.sst", id))
			if bad := checkTable(path, id, m.Tables[id].Compression); bad != "" {
				problems = append(problems, fmt.Sprintf("table %06d.sst is damaged: %s", id, bad))
			} else {
				sound[id] = st
			}
		}
	}
	for id := range tables {
		if _, ok := m.Tables[id]; !ok {
			orphans = append(orphans, fmt.Sprintf("%06d.sst", id))
		}
	}
	if len(orphans) > 0 && len(orphans) == len(tables) && len(tables) > 0 {
		problems = append(problems, "no table file is in the MANIFEST")
	}
	for _, name := range wals {
		if bad, err := walDamaged(filepath.Join(dir, name)); err != nil {
			return "", nil, nil, nil, err
		} else if bad != "" {
			problems = append(problems, name+" "+bad)
		}
	}
	slices.Sort(problems)
	slices.Sort(orphans)
	return strings.Join(problems, "; "), orphans, sound, skipped, nil
}

// keyRegistryDamaged says what is wrong with the KEYREGISTRY file at
// path, "" for nothing or no file (Badger makes one). The store encrypts
// nothing, so Badger's registry is only its header: an IV and the plain
// text it checks the (empty) key against. Damaged, Badger refuses to
// open, and nothing stored would be read again.
func keyRegistryDamaged(path string) string {
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return ""
	case err != nil:
		return err.Error()
	case len(b) != keyRegistrySize || !bytes.HasSuffix(b, []byte(keyRegistryText)):
		return fmt.Sprintf("%d bytes that are not the header of a registry without keys", len(b))
	}
	return ""
}

// The KEYREGISTRY of a store without encryption: a 16-byte IV, then this
// text.
const (
	keyRegistryText = "Hello Badger"
	keyRegistrySize = 16 + len(keyRegistryText)
)

// tableFile is a table file the MANIFEST names.
type tableFile struct {
	path string
	id   uint64
	c    options.CompressionType
}

// checkTable is tableDamaged before opening; tests count its calls.
var checkTable = tableDamaged

// minTable is the least a table file holds: its index and checksums.
const minTable = 32

// tableDamaged says what is wrong with the table file at path, "" for
// nothing: its index, its first and last keys and every block's checksum
// are read as Badger reads them. Badger itself, on bytes that are not a
// table, panics in a goroutine of its own, which would end the process at
// every start; on a block whose checksum fails it refuses to open.
func tableDamaged(path string, id uint64, c options.CompressionType) (why string) {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	defer func() {
		if recover() != nil { // Badger asserts on bytes it cannot parse
			why = "not a table: its index cannot be read"
		}
	}()
	t, err := table.OpenInMemoryTable(data, id, &table.Options{BlockSize: 4 << 10, Compression: c})
	if err != nil {
		return err.Error()
	}
	defer t.DecrRef()
	if err := t.VerifyChecksum(); err != nil {
		return err.Error()
	}
	return ""
}

// anyEntries reports whether any of the write-ahead logs holds an entry.
func anyEntries(dir string, wals []string) bool {
	for _, name := range wals {
		if blank, err := noEntries(filepath.Join(dir, name)); err != nil || !blank {
			return true
		}
	}
	return false
}

// moveAside moves Badger's files from dir into to, logging each.
func moveAside(dir, to, why string, log *slog.Logger) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && badgerFile(e.Name()) {
			names = append(names, e.Name())
		}
	}
	return moveFiles(dir, to, names, "the store is damaged: "+why, log)
}

// moveFiles moves the files names from dir into to, logging each with
// why at warn level.
func moveFiles(dir, to string, names []string, why string, log *slog.Logger) error {
	if err := os.MkdirAll(to, 0o700); err != nil {
		return err
	}
	for _, name := range names {
		if err := os.Rename(filepath.Join(dir, name), filepath.Join(to, name)); err != nil {
			return err
		}
		log.Warn("moved a store file aside, every byte kept", "file", name, "to", to, "why", why)
	}
	if err := syncDir(to); err != nil {
		return err
	}
	return syncDir(dir)
}

func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}
