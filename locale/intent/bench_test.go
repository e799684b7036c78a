package intent_test

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/harkbox/hark/locale/intent"
)

// threadCPU is the CPU time the calling thread has used: on a machine
// shared with other work, a match's own cost where the wall clock also
// counts the waiting.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// BenchmarkRecognize matches sentences sampled from each language's
// templates, and reports the time of one match at the median and the 99th
// percentile, by the wall clock and by the thread's CPU time: go test
// -bench Recognize ./locale/intent.
func BenchmarkRecognize(b *testing.B) {
	for _, lang := range langs {
		b.Run(lang, func(b *testing.B) {
			runtime.LockOSThread() // the thread's CPU time is the match's
			defer runtime.UnlockOSThread()
			l, err := intent.Load(lang)
			if err != nil {
				b.Fatal(err)
			}
			lists := sampleHouse(l)
			samples := l.Samples(rand.New(rand.NewPCG(3, 4)), 1, lists)
			var took, cpu []time.Duration
			i := 0
			for b.Loop() {
				s := samples[i%len(samples)]
				i++
				began, c0 := time.Now(), threadCPU()
				l.Recognize(s.Text, intent.Options{Lists: lists, Context: s.Context})
				took, cpu = append(took, time.Since(began)), append(cpu, threadCPU()-c0)
			}
			slices.Sort(took)
			slices.Sort(cpu)
			b.ReportMetric(float64(took[len(took)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(took[len(took)*99/100].Microseconds()), "p99-µs")
			b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds()), "p50-cpu-µs")
			b.ReportMetric(float64(cpu[len(cpu)*99/100].Microseconds()), "p99-cpu-µs")
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
