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

// processCPU is the CPU time the process has used, its garbage
// collector's included: on a machine shared with other work, a load's own
// cost where the wall clock also counts the waiting.
func processCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLoad does what Load does for each language, reading the
// embedded data and compiling it, and reports the process's CPU time a
// load takes and the heap the compiled language keeps.
func BenchmarkLoad(b *testing.B) {
	for _, lang := range langs {
		b.Run(lang, func(b *testing.B) {
			var kept uint64
			var cpu time.Duration
			for b.Loop() {
				b.StopTimer()
				var before, after runtime.MemStats
				runtime.GC()
				runtime.ReadMemStats(&before)
				c0 := processCPU()
				b.StartTimer()
				src, err := intent.Embedded(lang)
				if err != nil {
					b.Fatal(err)
				}
				l, err := intent.Compile(src)
				if err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				cpu += processCPU() - c0
				runtime.GC()
				runtime.ReadMemStats(&after)
				runtime.KeepAlive(l)
				kept = after.HeapAlloc - before.HeapAlloc
				b.StartTimer()
			}
			b.ReportMetric(float64(kept)/1024, "heap-KiB")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
		})
	}
}
