package storage

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BenchmarkDialogue is the store's work in a turn, on the low-memory
// profile: appending an exchange (a synced write) and reading the recent
// ones back, over a store that already holds 2,000 exchanges; with the Go
// heap in use after the run.
func BenchmarkDialogue(b *testing.B) {
	ctx := context.Background()
	db, err := Open(b.TempDir(), Options{Floor: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	d := db.Dialogue()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	reply := strings.Repeat("Paris is the capital of France, and it is lovely in spring. ", 4)
	next := func(i int) Exchange {
		at = at.Add(time.Minute)
		return Exchange{At: at, Conversation: fmt.Sprintf("c%d", i/5), User: fmt.Sprintf("what is the capital of France (%d)", i), Assistant: reply, Model: "qwen3:1.7b"}
	}
	for i := range 2000 {
		if err := d.Append(ctx, next(i)); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("append", func(b *testing.B) {
		i := 0
		for b.Loop() {
			if err := d.Append(ctx, next(i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("recent", func(b *testing.B) {
		for b.Loop() {
			if got, err := d.Recent(ctx, at.Add(-2*time.Hour), 20); err != nil || len(got) != 20 {
				b.Fatal(len(got), err)
			}
		}
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		b.ReportMetric(float64(m.HeapAlloc)/(1<<20), "MB-live-heap")
	})
}

// TestOpenTimeOnABigStore measures opening a store of HARK_BIG_STORE
// exchanges (60000 is about 110 MB written) after a clean stop, with every
// table read whole (the record of tables checked removed, as after a
// crash) and with the record: go test ./storage -run OpenTimeOnABigStore
// -v with HARK_BIG_STORE=60000.
func TestOpenTimeOnABigStore(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HARK_BIG_STORE"))
	if n == 0 {
		t.Skip("HARK_BIG_STORE=<exchanges> measures opening a big store")
	}
	dir := t.TempDir()
	db := open(t, dir)
	reply := strings.Repeat("Paris is the capital of France, and it is lovely in spring. ", 4)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				e := Exchange{At: at.Add(time.Duration(i) * time.Minute), Conversation: fmt.Sprintf("c%d", i/5), User: fmt.Sprintf("what is the capital of France (%d)", i), Assistant: reply, Model: "qwen3:1.7b"}
				if err := db.Dialogue().Append(t.Context(), e); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	db.Close()
	openClose(t, dir, countChecks(t)) // the tables written are checked once
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	var size int64
	for _, p := range tables {
		info, _ := os.Stat(p)
		size += info.Size()
	}
	for _, full := range []bool{true, false, true, false, true, false} {
		if full {
			os.Remove(filepath.Join(dir, verifiedFile))
		}
		start := time.Now()
		db := open(t, dir)
		took := time.Since(start)
		db.Close()
		t.Logf("figure: %d exchanges, %d tables, %.1f MB: open %v with every table read: %v", n, len(tables), float64(size)/(1<<20), took.Round(time.Millisecond), full)
	}
}
