package storage

import (
	"context"
	"fmt"
	"runtime"
	"strings"
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
