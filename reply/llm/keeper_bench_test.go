package llm

import (
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
)

// BenchmarkKeeperProbe is what keeping the model warm costs an idle box:
// one look at the server's loaded models (/api/ps) per maintenance tick
// (30 s), here against the test server on loopback. The CPU it costs an
// idle box is about ns/op every 30 s; the memory, B/op of garbage each
// time.
func BenchmarkKeeperProbe(b *testing.B) {
	srv := ollamatest.New(ollamatest.Model{Name: "llama3.2:1b", Family: "llama", Capabilities: []string{"completion"}})
	defer srv.Close()
	c := newClient(b, srv, "llama3.2:1b")
	k := NewKeeper(KeeperOptions{Server: c})
	defer k.Close()
	b.ReportAllocs()
	for b.Loop() {
		if st := k.Probe(b.Context()); st.Phase != Ready {
			b.Fatalf("phase %v", st.Phase)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(30*time.Second)*100, "%cpu-at-30s")
}
