package storage

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// stored is a store in a fresh directory holding n facts, closed: Badger
// has flushed them into a table file.
func stored(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	db := open(t, dir)
	for i := range n {
		if _, err := db.Facts().Add(t.Context(), fmt.Sprintf("fact number %d", i), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// sums are the SHA-256 of every file under dir whose name matches, by
// content: the same bytes anywhere under dir count.
func sums(t *testing.T, dir, pattern string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if ok, _ := filepath.Match(pattern, d.Name()); ok {
			b, _ := os.ReadFile(path)
			out = append(out, fmt.Sprintf("%s %x", d.Name(), sha256.Sum256(b)))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func factTexts(t *testing.T, db *DB) []string {
	t.Helper()
	facts, err := db.Facts().All(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range facts {
		out = append(out, f.Text)
	}
	slices.Sort(out)
	return out
}

func wantFacts(n int) []string {
	var out []string
	for i := range n {
		out = append(out, fmt.Sprintf("fact number %d", i))
	}
	slices.Sort(out)
	return out
}

// Badger alone, without a MANIFEST, starts empty and deletes the table
// files; with a damaged one, or a table missing or cut, it does not open.
// The store sets the files aside, every byte kept, reads them back, and
// says so.
func TestDamagedFilesAreSetAsideAndReadBack(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string)
		why    string
		lost   bool // the damage took records with it
	}{
		{"MANIFEST missing", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "MANIFEST")) }, "MANIFEST is missing", false},
		{"MANIFEST garbage", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "MANIFEST"), []byte("this is not a manifest at all, it is garbage"), 0o644)
		}, "MANIFEST is damaged", false},
		{"MANIFEST checksum", func(t *testing.T, dir string) {
			path := filepath.Join(dir, "MANIFEST")
			b, _ := os.ReadFile(path)
			b[len(b)-1] ^= 0xff
			os.WriteFile(path, b, 0o644)
		}, "MANIFEST is damaged", false},
		// The registry of encryption keys (the store has none) damaged:
		// Badger refuses to open, and nothing stored would be read again.
		{"KEYREGISTRY empty", func(t *testing.T, dir string) { os.WriteFile(filepath.Join(dir, "KEYREGISTRY"), nil, 0o644) }, "KEYREGISTRY is damaged", false},
		{"KEYREGISTRY garbage", func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "KEYREGISTRY"), []byte("twenty-eight bytes, garbage."), 0o644)
		}, "KEYREGISTRY is damaged", false},
		{"table missing", func(t *testing.T, dir string) { removeTables(t, dir, func(string) error { return nil }) }, "is missing", true},
		{"table empty", func(t *testing.T, dir string) {
			removeTables(t, dir, func(path string) error { return os.WriteFile(path, nil, 0o644) })
		}, "is cut short", true},
		// Bytes that are not a table at all: Badger panics in a goroutine
		// of its own on them, and the box would never start again.
		{"table garbage", func(t *testing.T, dir string) {
			removeTables(t, dir, func(path string) error {
				return os.WriteFile(path, bytes.Repeat([]byte("not a table, garbage. "), 30), 0o644)
			})
		}, "is damaged", true},
		// One byte of a block changed: Badger refuses to open, and the
		// store would hold on in memory forever, what it held unread.
		{"table byte flipped", func(t *testing.T, dir string) {
			tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
			b, err := os.ReadFile(tables[0])
			if err != nil {
				t.Fatal(err)
			}
			b[100] ^= 0xff
			if err := os.WriteFile(tables[0], b, 0o644); err != nil {
				t.Fatal(err)
			}
		}, "is damaged", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := stored(t, 20)
			before := sums(t, dir, "*.sst")
			if len(before) == 0 {
				t.Fatal("no table file was written")
			}
			tc.damage(t, dir)
			kept := sums(t, dir, "*")
			var log bytes.Buffer
			db, err := Open(dir, Options{Log: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatalf("Open after %s = %v; want a store", tc.name, err)
			}
			defer db.Close()
			h := db.Health()
			if h.Recovered == nil || !strings.Contains(h.Recovered.Why, tc.why) || h.OK() {
				t.Fatalf("health after %s: %+v; want a recovery saying %q", tc.name, h, tc.why)
			}
			if h.Condition != Saving {
				t.Errorf("after the recovery the store is %+v; want it saving", h)
			}
			// Every byte of every file that was there is still under the
			// data directory.
			after := sums(t, dir, "*")
			for _, s := range kept {
				if !slices.Contains(after, s) {
					t.Errorf("%s is gone from under the data directory", s)
				}
			}
			got := factTexts(t, db)
			if !tc.lost && !slices.Equal(got, wantFacts(20)) {
				t.Errorf("facts recovered: %v; want all 20", got)
			}
			t.Logf("figure: %s: %d of 20 facts recovered (%s)", tc.name, len(got), h.Recovered)
			moved := strings.Count(log.String(), "moved a store file aside")
			entries, _ := os.ReadDir(h.Recovered.Dir)
			if moved == 0 || moved != len(entries) || !strings.Contains(log.String(), "level=WARN") {
				t.Errorf("%d files moved, %d logged at warn level:\n%s", len(entries), moved, log.String())
			}
			// The next start finds nothing wrong.
			db.Close()
			db2, err := Open(dir, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db2.Close()
			if h := db2.Health(); !h.OK() || !slices.Equal(factTexts(t, db2), got) {
				t.Errorf("the start after the recovery: %+v, facts %v", h, factTexts(t, db2))
			}
		})
	}
}

// removeTables damages every other table file with damage (nothing: the
// file is removed).
func removeTables(t *testing.T, dir string, damage func(path string) error) {
	t.Helper()
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	for i, path := range tables {
		if i%2 != 0 {
			continue
		}
		os.Remove(path)
		if err := damage(path); err != nil {
			t.Fatal(err)
		}
	}
}

// A power cut left damaged bytes in the middle of the write-ahead log:
// Badger would keep the records before them and drop the file with every
// record after. The store sets the log aside and reads back both sides.
func TestDamagedWriteAheadLogKeepsTheRecordsAfterTheDamage(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	for i := range 20 {
		if _, err := db.Facts().Add(t.Context(), fmt.Sprintf("fact number %d", i), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	// A copy of the open store is what a power cut leaves: the records in
	// the write-ahead log only.
	crash := t.TempDir()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		os.WriteFile(filepath.Join(crash, e.Name()), b, 0o644)
	}
	db.Close()
	wals, _ := filepath.Glob(filepath.Join(crash, "*.mem"))
	if len(wals) != 1 {
		t.Fatalf("write-ahead logs: %v, want one", wals)
	}
	b, _ := os.ReadFile(wals[0])
	at := bytes.Index(b, []byte("fact number 9"))
	if at < 0 {
		t.Fatal("fact 9 is not in the write-ahead log")
	}
	copy(b[at:], "\xde\xad\xbe\xef") // its text damaged: its checksum fails
	os.WriteFile(wals[0], b, 0o644)

	var log bytes.Buffer
	db, err := Open(crash, Options{Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	h := db.Health()
	if h.Recovered == nil || !strings.Contains(h.Recovered.Why, "damaged bytes") {
		t.Fatalf("health: %+v; want a recovery naming the damaged log", h)
	}
	got := factTexts(t, db)
	var want []string
	for _, f := range wantFacts(20) {
		if f != "fact number 9" {
			want = append(want, f)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("facts recovered: %v\nwant every one but the damaged ninth: %v", got, want)
	}
	if kept, _ := os.ReadFile(filepath.Join(h.Recovered.Dir, filepath.Base(wals[0]))); !bytes.Equal(kept, b) {
		t.Error("the damaged log's bytes were not kept")
	}
}

// A torn last write (a power cut in the middle of it) is not damage: the
// write was never acknowledged, and Badger's own replay drops it.
func TestTornLastWriteIsNotDamage(t *testing.T) {
	b := make([]byte, 4096)
	e := encodeForTest("meta/x", "value")
	copy(b[logHeader:], e)
	copy(b[logHeader+len(e):], e[:len(e)-3]) // the second write cut short
	path := filepath.Join(t.TempDir(), "00001.mem")
	os.WriteFile(path, b, 0o644)
	if why, err := walDamaged(path); why != "" || err != nil {
		t.Errorf("walDamaged = %q, %v; want nothing wrong", why, err)
	}
}

// encodeForTest is an entry as Badger writes it, version 1.
func encodeForTest(key, value string) []byte {
	k := append([]byte(key), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe)
	h := []byte{0, 0, byte(len(k)), byte(len(value)), 0}
	b := append(append(h, k...), value...)
	sum := make([]byte, 4)
	crc := crcForTest(b)
	sum[0], sum[1], sum[2], sum[3] = byte(crc>>24), byte(crc>>16), byte(crc>>8), byte(crc)
	return append(b, sum...)
}

// A table the MANIFEST does not name, with the rest in order, is what a
// power cut during a flush leaves: it is set aside, not deleted, and
// nothing else moves.
func TestTableNotInTheManifestIsSetAside(t *testing.T) {
	dir := stored(t, 5)
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	b, _ := os.ReadFile(tables[0])
	orphan := filepath.Join(dir, "000099.sst")
	os.WriteFile(orphan, b, 0o644)
	var log bytes.Buffer
	db, err := Open(dir, Options{Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if h := db.Health(); !h.OK() {
		t.Errorf("health: %+v; want ok", h)
	}
	if got := factTexts(t, db); !slices.Equal(got, wantFacts(5)) {
		t.Errorf("facts: %v", got)
	}
	kept, _ := filepath.Glob(filepath.Join(dir, "recovered-*", "000099.sst"))
	if len(kept) != 1 || !strings.Contains(log.String(), "000099.sst") || !strings.Contains(log.String(), "not in the MANIFEST") {
		t.Errorf("the orphan table: kept at %v; log:\n%s", kept, log.String())
	}
}

func crcForTest(b []byte) uint32 { return crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)) }

// A table with one damaged block is read back block by block: the
// records of the blocks after the damaged one are recovered too (reading
// on from the damaged block ended the table there).
func TestDamagedBlockLosesOnlyItsRecords(t *testing.T) {
	const n = 300 // facts: a table of several blocks
	dir := stored(t, n)
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(tables) != 1 {
		t.Fatalf("%d tables; want the facts in one", len(tables))
	}
	b, err := os.ReadFile(tables[0])
	if err != nil {
		t.Fatal(err)
	}
	b[100] ^= 0xff // in the first block
	if err := os.WriteFile(tables[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	db := open(t, dir)
	defer db.Close()
	h := db.Health()
	if h.Recovered == nil {
		t.Fatalf("health: %+v; want a recovery", h)
	}
	got := factTexts(t, db)
	t.Logf("figure: %d of %d facts read back after a byte of the first block turned (%s)", len(got), n, h.Recovered)
	if len(got) < n/2 {
		t.Errorf("%d of %d facts read back; want all but the first block's", len(got), n)
	}
}
