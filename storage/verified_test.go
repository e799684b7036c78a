package storage

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4/options"

	"github.com/harkbox/hark/internal/sharedtest"
)

// countChecks counts the table files read whole before opening, for the
// rest of the test.
func countChecks(t *testing.T) *atomic.Int32 {
	var n atomic.Int32
	was := checkTable
	checkTable = func(path string, id uint64, c options.CompressionType) string {
		n.Add(1)
		return was(path, id, c)
	}
	t.Cleanup(func() { checkTable = was })
	return &n
}

// openClose opens dir and closes it cleanly, returning the tables read
// whole at its start.
func openClose(t *testing.T, dir string, checks *atomic.Int32) int32 {
	t.Helper()
	checks.Store(0)
	db := open(t, dir)
	if h := db.Health(); !h.OK() {
		t.Fatalf("health: %+v", h)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return checks.Load()
}

// copyDir copies the files of a store in use: what a power cut leaves
// (its writes are synchronous).
func copyDir(t *testing.T, dir string) string {
	t.Helper()
	to := t.TempDir()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// A table is read whole once: a clean start after that trusts it; a start
// after a crash, or without the record of what was checked, reads every
// one again.
func TestCleanStartReadsOnlyNewTables(t *testing.T) {
	checks := countChecks(t)
	dir := stored(t, 200)
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(tables) == 0 {
		t.Fatal("no table file was written")
	}
	if n := openClose(t, dir, checks); n != int32(len(tables)) {
		t.Errorf("first start after the tables were written read %d tables whole, want %d", n, len(tables))
	}
	if n := openClose(t, dir, checks); n != 0 {
		t.Errorf("a clean start read %d tables whole, want none", n)
	}

	// A crash: the store's files as a power cut leaves them.
	db := open(t, dir)
	crashed := copyDir(t, dir)
	db.Close()
	if n := openClose(t, crashed, checks); n != int32(len(tables)) {
		t.Errorf("the start after a crash read %d tables whole, want all %d", n, len(tables))
	}
	if n := openClose(t, crashed, checks); n != 0 {
		t.Errorf("the clean start after that read %d tables whole, want none", n)
	}

	// The record damaged, or gone.
	for _, damage := range []func(path string){
		func(path string) { os.WriteFile(path, []byte("000001 123 456\nsum 1\n"), 0o644) },
		func(path string) { os.Remove(path) },
	} {
		damage(filepath.Join(dir, verifiedFile))
		if n := openClose(t, dir, checks); n != int32(len(tables)) {
			t.Errorf("a start without a sound record read %d tables whole, want all %d", n, len(tables))
		}
	}
}

// rot changes one byte at offset (from the end when negative) of the
// first table, keeping its size and time: what a card's bit rot does.
func rot(t *testing.T, dir string, offset int) {
	t.Helper()
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	info, err := os.Stat(tables[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(tables[0])
	if err != nil {
		t.Fatal(err)
	}
	if offset < 0 {
		offset += len(b)
	}
	b[offset] ^= 0xff
	if err := os.WriteFile(tables[0], b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tables[0], info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
}

// A table that rots after a clean stop, checked before and so trusted:
// the run that trips over it (reading it again after opening, failing to
// open, or dying on it) leaves the next start to check every table, which
// sets it aside with every byte kept, and reads back what it can; what
// the run after the rot wrote is not lost.
func TestTableRottingAfterACleanStopIsSetAside(t *testing.T) {
	if dir := os.Getenv("HARK_ROT_CHILD"); dir != "" {
		rotChild(dir)
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		offset int
	}{
		{"a block", 100},
		{"the index", -60},
		{"the index's checksum length", -2},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := stored(t, 100)
			openClose(t, dir, countChecks(t)) // the tables are checked and trusted from now on
			rot(t, dir, c.offset)
			kept := sums(t, dir, "*.sst")

			// The start after the rot, in a process of its own: it may
			// fail, or die.
			cmd := exec.Command(exe, "-test.run", "^TestTableRottingAfterACleanStopIsSetAside$")
			cmd.Env = append(os.Environ(), "HARK_ROT_CHILD="+dir)
			out, err := cmd.CombinedOutput()
			if err != nil {
				skipUnderEmulation(t, err)
			}
			first := "died"
			if i := bytes.Index(out, []byte("child: ")); i >= 0 {
				first = strings.TrimSpace(string(out[i:]))
				first = first[:min(len(first), 200)]
			}
			t.Logf("figure: the start after the rot (%s): %s", c.name, first)

			var log bytes.Buffer
			db, err := Open(dir, Options{Log: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			h := db.Health()
			if h.Recovered == nil && !strings.Contains(first, "recovered") {
				t.Fatalf("neither start set the rotten table aside: %+v; the first: %s", h, first)
			}
			if h.Condition != Saving {
				t.Errorf("the store is %+v; want it saving", h)
			}
			after := sums(t, dir, "*.sst")
			for _, s := range kept {
				if !slices.Contains(after, s) {
					t.Errorf("%s is gone from under the data directory", s)
				}
			}
			got := factTexts(t, db)
			for _, l := range strings.Split(string(out), "\n") {
				if want, ok := strings.CutPrefix(l, "acked "); ok && !slices.Contains(got, want) {
					t.Errorf("%q, written in the run after the rot, is lost", want)
				}
			}
			t.Logf("figure: rot in %s: %d facts read back (100 before the rot, and what the run after wrote)", c.name, len(got))
			// The facts written after are kept as any others.
			if _, err := db.Facts().Add(t.Context(), "written after the rot", time.Now()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// rotChild opens the store, reads every fact and closes it, saying how
// it went.
func rotChild(dir string) {
	recheckAfter = 0 // a run long enough to read the trusted tables again
	db, err := Open(dir, Options{})
	if err != nil {
		fmt.Printf("child: open failed: %v\n", err)
		os.Exit(1)
	}
	for i := range 20 {
		text := fmt.Sprintf("written in the run after the rot %d", i)
		if _, err := db.Facts().Add(context.Background(), text, time.Now()); err != nil {
			fmt.Printf("child: write failed: %v\n", err)
			break
		}
		fmt.Printf("acked %s\n", text)
	}
	h := db.Health()
	facts, err := db.Facts().All(context.Background())
	db.rechecked.Wait() // a run long enough to read the trusted tables again
	fmt.Printf("child: health %v, recovered %v, %d facts, err %v\n", h.Condition, h.Recovered != nil, len(facts), err)
	db.Close()
	os.Exit(0)
}

// A start on a data partition filled to the last byte (a crash loop on a
// full disk) gives up the storage reserve's ballast before it marks the
// store open: a crash in this run is then noticed at the next start,
// which reads every table again rather than trusting them.
func TestFullDiskAtStartStillMarksTheStoreOpen(t *testing.T) {
	mnt := sharedtest.SmallDisk(t, "32m")
	dir := filepath.Join(mnt, "data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	db, err := Open(dir, Options{Ballast: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Facts().Add(t.Context(), "stored before the disk filled", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	filler, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	mb := make([]byte, 1<<20)
	for i := 0; ; i++ {
		if _, err := filler.Write(mb); err != nil {
			break
		}
		if i > 64 {
			t.Fatal("the tmpfs never filled")
		}
	}
	for _, err := filler.Write(mb[:4096]); err == nil; _, err = filler.Write(mb[:4096]) {
	}
	filler.Close()

	db, err = Open(dir, Options{Ballast: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !running(dir) {
		t.Error("the store is open on a full disk without the mark that says so: a crash now would go unnoticed")
	}
}

// A store opened for one command (Options.CheckAll) reads every table
// whole as it opens, trusting none: the re-read a minute after opening
// would never come, and the command would read with records missing. A
// table that rotted after a clean stop is set aside at once, every byte
// kept, and the command is told (Health.Recovered).
func TestOneCommandChecksEveryTableAtOpen(t *testing.T) {
	dir := stored(t, 100)
	checks := countChecks(t)
	openClose(t, dir, checks) // the tables are checked and trusted from now on
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	rot(t, dir, 100)

	checks.Store(0)
	db, err := Open(dir, Options{CheckAll: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if n := checks.Load(); n < int32(len(tables)) {
		t.Errorf("opening for one command read %d tables whole, want all %d", n, len(tables))
	}
	if h := db.Health(); h.Recovered == nil || h.Condition != Saving {
		t.Errorf("health after opening on a rotten table for one command: %+v; want it set aside, saving", h)
	}
}
