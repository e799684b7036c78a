package intent_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/harkbox/hark/locale/intent"
)

// BenchmarkRecognize matches sentences sampled from each language's
// templates, and reports the time of one match at the median and the 99th
// percentile: go test -bench Recognize ./locale/intent.
func BenchmarkRecognize(b *testing.B) {
	for _, lang := range langs {
		b.Run(lang, func(b *testing.B) {
			l, err := intent.Load(lang)
			if err != nil {
				b.Fatal(err)
			}
			lists := sampleHouse(l)
			samples := l.Samples(rand.New(rand.NewPCG(3, 4)), 1, lists)
			var took []time.Duration
			i := 0
			for b.Loop() {
				s := samples[i%len(samples)]
				i++
				began := time.Now()
				l.Recognize(s.Text, intent.Options{Lists: lists, Context: s.Context})
				took = append(took, time.Since(began))
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// BenchmarkLoad compiles each language's embedded templates and reports
// the heap the compiled language keeps.
func BenchmarkLoad(b *testing.B) {
	for _, lang := range langs {
		b.Run(lang, func(b *testing.B) {
			src, err := intent.Embedded(lang)
			if err != nil {
				b.Fatal(err)
			}
			var kept uint64
			for b.Loop() {
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				l, err := intent.Compile(src)
				runtime.GC()
				runtime.ReadMemStats(&after)
				if err != nil {
					b.Fatal(err)
				}
				runtime.KeepAlive(l)
				kept = after.HeapAlloc - before.HeapAlloc
			}
			b.ReportMetric(float64(kept)/1024, "heap-KiB")
		})
	}
}
