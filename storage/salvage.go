package storage

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/dgraph-io/badger/v4"
	"github.com/dgraph-io/badger/v4/fb"
	"github.com/dgraph-io/badger/v4/options"
	"github.com/dgraph-io/badger/v4/table"
	"github.com/dgraph-io/badger/v4/y"
)

// Badger's entry flags (its value.go): a deletion, and a value kept in the
// value log rather than beside its key.
const (
	bitDelete       byte = 1 << 0
	bitValuePointer byte = 1 << 1
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// logEntry is one entry of a write-ahead log (.mem) or value log (.vlog):
// a header (two flag bytes and the varint key length, value length and
// expiry), the key with its version, the value, and a CRC-32C of all that.
type logEntry struct {
	key, value []byte
	meta       byte
	size       int
}

// decodeEntry decodes the entry at the start of b, checksum checked.
func decodeEntry(b []byte) (logEntry, bool) {
	if len(b) < 2+3+4 {
		return logEntry{}, false
	}
	i := 2
	var lens [3]uint64
	for j := range lens {
		v, n := binary.Uvarint(b[i:])
		if n <= 0 {
			return logEntry{}, false
		}
		lens[j], i = v, i+n
	}
	klen, vlen := lens[0], lens[1]
	// A key carries its 8-byte version; Badger keys are at most 64 KiB.
	if klen <= 8 || klen > 1<<16 || vlen > uint64(len(b)) {
		return logEntry{}, false
	}
	end := i + int(klen) + int(vlen)
	if end+4 > len(b) || crc32.Checksum(b[:end], castagnoli) != binary.BigEndian.Uint32(b[end:]) {
		return logEntry{}, false
	}
	return logEntry{key: b[i : i+int(klen)], value: b[i+int(klen) : end], meta: b[0], size: end + 4}, true
}

// logEntries reads every entry of a log it can: where the entries stop at
// bytes that are not one, it looks further on for entries that follow,
// and reports the first damaged offset (-1 for none) and how many entries
// came after it.
func logEntries(b []byte, fn func(logEntry)) (damagedAt, after int) {
	damagedAt = -1
	for off := logHeader; off < len(b); {
		if e, ok := decodeEntry(b[off:]); ok {
			fn(e)
			if damagedAt >= 0 {
				after++
			}
			off += e.size
			continue
		}
		// Not an entry: the zeros past the last one, a write cut short, or
		// damage. Whatever decodes further on is an entry after it.
		next := off + 1
		for ; next < len(b); next++ {
			if b[next] == 0 && next+2 < len(b) && b[next+2] == 0 {
				continue // no key: not an entry's start
			}
			if _, ok := decodeEntry(b[next:]); ok {
				break
			}
		}
		if next < len(b) && damagedAt < 0 {
			damagedAt = off
		}
		off = next
	}
	return damagedAt, after
}

// walDamaged says what is wrong with a write-ahead log, "" for nothing:
// entries that follow bytes that are not one, which Badger would drop
// with the file.
func walDamaged(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("storage: %w", err)
	}
	at, after := logEntries(b, func(logEntry) {})
	if at < 0 {
		return "", nil
	}
	return fmt.Sprintf("has damaged bytes at offset %d with %d records after them", at, after), nil
}

// version is the newest version of a key seen in the set-aside files.
type version struct {
	ts      uint64
	value   []byte
	deleted bool
}

// rebuild reads every record it can from the set-aside files in from
// (tables, write-ahead logs, and the value log for large values) and
// writes the newest version of each key into a fresh store in dir.
func rebuild(dir, from string, o Options) (records, unreadable int, err error) {
	latest, unreadable := salvage(from, nil)
	opts, err := badgerOptions(dir, o)
	if err != nil {
		return 0, unreadable, err
	}
	bdb, err := badger.Open(opts)
	if err != nil {
		return 0, unreadable, fmt.Errorf("storage: rebuild in %s: %w", dir, err)
	}
	records, err = fill(bdb, latest)
	if err != nil {
		bdb.Close()
		return 0, unreadable, fmt.Errorf("storage: rebuild: %w", err)
	}
	return records, unreadable, bdb.Close()
}

// copyToMemory reads what the Badger files in dir hold, as a recovery
// does (see rebuild) but only from the tables its MANIFEST names, into a
// store in memory. It is for a card that takes no writes and on which
// Badger's own read-only open fails: Badger syncs the directory as it
// opens, which a filesystem the kernel turned read-only on an error
// refuses.
func copyToMemory(dir string, o Options) (*badger.DB, error) {
	named, err := manifestTables(dir)
	if err != nil {
		return nil, err
	}
	latest, _ := salvage(dir, func(id uint64) bool { return named[id] })
	opts, err := badgerOptions("", o)
	if err != nil {
		return nil, err
	}
	bdb, err := badger.Open(opts.WithInMemory(true))
	if err != nil {
		return nil, fmt.Errorf("storage: a copy in memory of %s: %w", dir, err)
	}
	if _, err := fill(bdb, latest); err != nil {
		bdb.Close()
		return nil, fmt.Errorf("storage: a copy in memory of %s: %w", dir, err)
	}
	return bdb, nil
}

// manifestTables are the ids of the tables the MANIFEST in dir names.
func manifestTables(dir string) (map[uint64]bool, error) {
	f, err := os.Open(filepath.Join(dir, badger.ManifestFilename))
	if err != nil {
		return nil, fmt.Errorf("storage: %w", err)
	}
	defer f.Close()
	m, _, err := badger.ReplayManifestFile(f, 0, badger.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		return nil, fmt.Errorf("storage: %s: the MANIFEST is damaged: %w", dir, err)
	}
	named := make(map[uint64]bool, len(m.Tables))
	for id := range m.Tables {
		named[id] = true
	}
	return named, nil
}

// salvage reads the newest version of every key the files in from hold:
// the tables (those table keeps, by id; all when table is nil), the
// write-ahead logs, and the value log for large values. It counts what
// it could not read.
func salvage(from string, table func(id uint64) bool) (latest map[string]version, unreadable int) {
	latest = map[string]version{}
	note := func(key []byte, meta byte, value []byte) {
		user, ts := string(y.ParseKey(key)), y.ParseTs(key)
		if strings.HasPrefix(user, "!badger!") {
			return
		}
		if v, ok := latest[user]; ok && v.ts >= ts {
			return
		}
		if meta&bitValuePointer != 0 && meta&bitDelete == 0 {
			var ok bool
			if value, ok = pointed(from, value); !ok {
				unreadable++
				return
			}
		}
		latest[user] = version{ts: ts, value: bytes.Clone(value), deleted: meta&bitDelete != 0}
	}
	names, _ := filepath.Glob(filepath.Join(from, "*.sst"))
	for _, path := range names {
		id, err := strconv.ParseUint(strings.TrimSuffix(filepath.Base(path), ".sst"), 10, 64)
		if table != nil && (err != nil || !table(id)) {
			continue
		}
		if err := readTable(path, note); err != nil {
			unreadable++
		}
	}
	wals, _ := filepath.Glob(filepath.Join(from, "*.mem"))
	for _, path := range wals {
		b, err := os.ReadFile(path)
		if err != nil {
			unreadable++
			continue
		}
		logEntries(b, func(e logEntry) { note(e.key, e.meta, e.value) })
	}
	return latest, unreadable
}

// fill writes the versions in latest that are not deletions into bdb,
// and returns how many.
func fill(bdb *badger.DB, latest map[string]version) (records int, err error) {
	wb := bdb.NewWriteBatch()
	defer wb.Cancel()
	for k, v := range latest {
		if v.deleted {
			continue
		}
		if err := wb.Set([]byte(k), v.value); err != nil {
			return 0, err
		}
		records++
	}
	if err := wb.Flush(); err != nil {
		return 0, err
	}
	return records, nil
}

// readTable calls note with every entry of the table file at path,
// trying each compression Badger may have written it with.
func readTable(path string, note func(key []byte, meta byte, value []byte)) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	id, _ := strconv.ParseUint(strings.TrimSuffix(filepath.Base(path), ".sst"), 10, 64)
	type entry struct {
		key []byte
		vs  y.ValueStruct
	}
	try := func(c options.CompressionType) (out []entry, err error) {
		defer func() {
			if r := recover(); r != nil { // Badger asserts on bytes it cannot parse
				err = fmt.Errorf("storage: table %s: %v", path, r)
			}
		}()
		t, err := table.OpenInMemoryTable(data, id, &table.Options{BlockSize: 4 << 10, Compression: c, ChkMode: options.OnBlockRead})
		if err != nil {
			return nil, err
		}
		defer t.DecrRef()
		it := t.NewIterator(table.NOCACHE)
		defer it.Close()
		bases := blockKeys(data)
		if len(bases) == 0 {
			bases = [][]byte{nil} // from the first key on, as far as it reads
		}
		// Block by block: reading on stops at a damaged block, and the
		// blocks after it are read from their first keys.
		for i, base := range bases {
			if base == nil {
				it.Rewind()
			} else {
				it.Seek(base)
			}
			for ; it.Valid(); it.Next() {
				if i+1 < len(bases) && y.CompareKeys(it.Key(), bases[i+1]) >= 0 {
					break
				}
				out = append(out, entry{bytes.Clone(it.Key()), it.ValueCopy()})
			}
		}
		if uint32(len(out)) != t.KeyCount() {
			return out, fmt.Errorf("storage: table %s: read %d of %d keys", path, len(out), t.KeyCount())
		}
		return out, nil
	}
	var best []entry
	for _, c := range []options.CompressionType{options.Snappy, options.None, options.ZSTD} {
		got, err := try(c)
		if err == nil {
			best = got
			break
		}
		if len(got) > len(best) {
			best = got
		}
	}
	for _, e := range best {
		note(e.key, e.vs.Meta, e.vs.Value)
	}
	if best == nil {
		return fmt.Errorf("storage: table %s cannot be read", path)
	}
	return nil
}

// blockKeys are the first keys of the blocks of the table in data, from
// its index as Badger lays it out (the index, its length, its checksum,
// the checksum's length, at the end); nil when it cannot be read.
func blockKeys(data []byte) (keys [][]byte) {
	defer func() {
		if recover() != nil { // bytes that are not an index
			keys = nil
		}
	}()
	n := len(data)
	if n < 8 {
		return nil
	}
	end := n - 4 - int(binary.BigEndian.Uint32(data[n-4:])) - 4
	if end < 0 || end > n-8 {
		return nil
	}
	start := end - int(binary.BigEndian.Uint32(data[end:end+4]))
	if start < 0 {
		return nil
	}
	index := fb.GetRootAsTableIndex(data[start:end], 0)
	var ko fb.BlockOffset
	for i := range index.OffsetsLength() {
		if !index.Offsets(&ko, i) {
			return nil
		}
		keys = append(keys, bytes.Clone(ko.KeyBytes()))
	}
	return keys
}

// pointed reads a large value from the value log a pointer (file id,
// length, offset; little-endian as Badger lays its struct out) names.
func pointed(from string, ptr []byte) ([]byte, bool) {
	if len(ptr) < 12 {
		return nil, false
	}
	fid, n, off := binary.LittleEndian.Uint32(ptr), binary.LittleEndian.Uint32(ptr[4:]), binary.LittleEndian.Uint32(ptr[8:])
	f, err := os.Open(filepath.Join(from, fmt.Sprintf("%06d.vlog", fid)))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, int64(off)); err != nil {
		return nil, false
	}
	e, ok := decodeEntry(buf)
	return e.value, ok
}
