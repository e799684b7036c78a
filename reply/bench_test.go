package reply

import (
	"testing"
	"time"
)

// BenchmarkOfflineReply measures a whole offline reply through the engine:
// reading the conversation, routing, running the command, and storing the
// exchange (a synchronous disk write).
func BenchmarkOfflineReply(b *testing.B) {
	f := newFixture(b, Options{Now: time.Now})
	withCommands(b, f)
	for b.Loop() {
		if _, err := f.eng.Reply(b.Context(), Query{Text: "what's 12 times 4"}, func(string) {}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/reply")
}
