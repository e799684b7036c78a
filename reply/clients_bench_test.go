package reply

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harkbox/hark/reply/llm"
)

// BenchmarkClientsAtOnce is the storm on a server that answers
// one call at a time, each in about 240 ms (the 2.4 s, a tenth):
// six typed questions at once and the microphone's 80 ms later, then ten
// at once. It reports the queue's waits (the microphone's, and the typed
// ones' p50 and p95), and how far the heap in use rose over idle while
// ten turns were under way (the test server's own allocations included).
func BenchmarkClientsAtOnce(b *testing.B) {
	q := llm.NewQueue(llm.QueueOptions{})
	f := newFixture(b, smallModel, Options{PlannerOff: true, Queue: q, ReplyBudget: 600 * time.Millisecond, ChatTimeout: 10 * time.Second})
	f.echoing(1, 240*time.Millisecond)
	ask := func(client, text string) Result {
		res, err := f.eng.Reply(b.Context(), Query{Text: text, Client: client}, func(string) {})
		if err != nil {
			b.Errorf("%s: %v", client, err)
		}
		return res
	}
	var micWait time.Duration
	var heapRise uint64
	for range b.N {
		var wg sync.WaitGroup
		for i := range 6 {
			wg.Go(func() { ask("ask:"+string(rune('a'+i)), "tell me a fact about the number "+string(rune('1'+i))) })
		}
		time.Sleep(80 * time.Millisecond)
		wg.Go(func() { micWait += ask(Microphone, "what is the weather like on the moon").Timings.Queued })
		wg.Wait()

		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		idle := ms.HeapInuse
		var peak atomic.Uint64
		stop := make(chan struct{})
		sampled := make(chan struct{})
		go func() {
			defer close(sampled)
			t := time.NewTicker(20 * time.Millisecond)
			defer t.Stop()
			for {
				var m runtime.MemStats
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		}()
		for i := range 10 {
			wg.Go(func() {
				ask("ask:ten"+string(rune('a'+i)), "tell me another fact about the letter "+string(rune('a'+i)))
			})
		}
		wg.Wait()
		close(stop)
		<-sampled
		if p := peak.Load(); p > idle {
			heapRise = max(heapRise, p-idle)
		}
	}
	s := q.Status()
	b.ReportMetric(float64(micWait.Milliseconds())/float64(b.N), "mic_wait_ms")
	b.ReportMetric(float64(s.Spoken.P95.Milliseconds()), "mic_p95_ms")
	b.ReportMetric(float64(s.Asked.P50.Milliseconds()), "typed_p50_ms")
	b.ReportMetric(float64(s.Asked.P95.Milliseconds()), "typed_p95_ms")
	b.ReportMetric(float64(heapRise)/(1<<20), "heap_rise_MB")
}
