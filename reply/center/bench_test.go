package center

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/reply/replytest"
	"github.com/harkbox/hark/storage"
)

// timedModel sums the time each conversation's engine spends in model
// calls, so the center's own time per request can be told from the
// model's.
type timedModel struct {
	inner *llm.Client
	spent *atomic.Int64
}

func (m timedModel) Chat(ctx context.Context, req llm.Request, on func(llm.Chunk) error) (llm.Response, error) {
	began := time.Now()
	defer func() { m.spent.Add(int64(time.Since(began))) }()
	return m.inner.Chat(ctx, req, on)
}

// benchCenter is a center whose model answers at once (or at rate tokens
// per second of streamed words), with each conversation's model time kept.
func benchCenter(b *testing.B, tokenDelay time.Duration, media ...Media) (*centerSide, *sync.Map) {
	c := &centerSide{model: replytest.New(), llm: ollamatest.New(served)}
	b.Cleanup(c.llm.Close)
	c.model.Default(replytest.Chat, ollamatest.Reply{Content: "Sure, here is a short answer. And a second sentence to say. Then a third one.", TokenDelay: tokenDelay})
	c.llm.Respond(c.model.Respond)
	db, err := storage.Open(b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	c.db = db
	c.keys = NewKeys(db.Settings())
	u, _ := url.Parse(c.llm.URL)
	client, _ := llm.New(llm.Options{Host: u, Model: served.Name})
	meter := cost.NewMeter()
	meter.Set(cost.Key(c.llm.URL, served.Name), cost.Rates{Prompt: 5000, Gen: 500, CharsPerToken: 4})
	spent := &sync.Map{} // conversation id → *atomic.Int64
	var m Media
	if len(media) > 0 {
		m = media[0]
	}
	c.srv, err = NewServer(Options{Keys: c.keys, Rate: 1e6, Burst: 1e6, Media: m,
		ServerTools: func(*time.Location) []*command.Command { return []*command.Command{builtin.Calculate()} },
		Engine: func(cv Conversation) (*reply.Engine, error) {
			v, _ := spent.LoadOrStore(cv.ID, &atomic.Int64{})
			m := timedModel{inner: client, spent: v.(*atomic.Int64)}
			return reply.New(reply.Options{Model: m, Info: client, ModelName: served.Name, Server: c.llm.URL, Meter: meter,
				Commands: cv.Commands, Conversation: cv.ID, Dialogue: Dialogue{Store: db.Dialogue(), ID: cv.ID},
				Diary: db.Diary(), Facts: db.Facts(), Location: cv.Location, PlannerOff: true, Router: "keyword"})
		}})
	if err != nil {
		b.Fatal(err)
	}
	c.http = newTestServer(c.srv.Handler())
	b.Cleanup(c.stop)
	return c, spent
}

// BenchmarkCenterLoad is 50 simulated nodes, 20 turns each, against one
// center with a model that answers at once: requests per second, the
// center's own time per turn beyond the model's (p50, p99), and the
// center's resident memory and goroutines before, during the load and
// after the conversations lapsed (the test's model server and store run in
// the same process, so these are upper bounds for the center alone).
func BenchmarkCenterLoad(b *testing.B) {
	const nodes, turns = 50, 20
	for b.Loop() {
		c, spent := benchCenter(b, 0)
		clients := make([]*Client, nodes)
		for i := range clients {
			cred, err := c.keys.Add(b.Context(), fmt.Sprintf("node-%d", i))
			if err != nil {
				b.Fatal(err)
			}
			clients[i], _ = NewClient(ClientOptions{URL: c.http.URL, Credential: cred, Insecure: true})
		}
		idleG, idleRSS := runtime.NumGoroutine(), rss()
		var mu sync.Mutex
		var overhead []time.Duration
		var peakRSS int64
		peakG := 0
		began := time.Now()
		var wg sync.WaitGroup
		for i, cl := range clients {
			wg.Go(func() {
				conv := fmt.Sprintf("node-%d-conv", i)
				v, _ := spent.LoadOrStore(conv, &atomic.Int64{})
				model := v.(*atomic.Int64)
				for turn := range turns {
					before := model.Load()
					start := time.Now()
					resp, err := cl.Command(b.Context(), CommandRequest{VoiceCommand: "tell me something nice number " + strconv.Itoa(turn), ConversationID: conv}, nil)
					rtt := time.Since(start)
					if err != nil || resp.StopReason != StopComplete {
						b.Errorf("node %d turn %d: %v %+v", i, turn, err, resp)
						return
					}
					mu.Lock()
					overhead = append(overhead, rtt-time.Duration(model.Load()-before))
					if turn == turns/2 {
						peakRSS = max(peakRSS, rss())
						peakG = max(peakG, runtime.NumGoroutine())
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(began)
		c.srv.expire(time.Now().Add(time.Hour))
		// The nodes hang up: what is left is the center's own.
		for _, cl := range clients {
			cl.hc.CloseIdleConnections()
		}
		c.http.CloseClientConnections()
		runtime.GC()
		time.Sleep(100 * time.Millisecond)
		slices.Sort(overhead)
		b.ReportMetric(float64(nodes*turns)/elapsed.Seconds(), "requests/s")
		b.ReportMetric(ms(overhead[len(overhead)/2]), "ms-overhead-p50")
		b.ReportMetric(ms(overhead[len(overhead)*99/100]), "ms-overhead-p99")
		b.ReportMetric(float64(idleRSS)/(1<<20), "MiB-rss-before")
		b.ReportMetric(float64(idleG), "goroutines-before")
		b.ReportMetric(float64(peakRSS)/(1<<20), "MiB-rss-during")
		b.ReportMetric(float64(peakG), "goroutines-during")
		b.ReportMetric(float64(rss())/(1<<20), "MiB-rss-after")
		b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines-after")
	}
}

// BenchmarkNodeRoundTrip is one node's turn through the center on
// loopback, beyond the model's time.
func BenchmarkNodeRoundTrip(b *testing.B) {
	c, spent := benchCenter(b, 0)
	cred, _ := c.keys.Add(b.Context(), "solo")
	cl, _ := NewClient(ClientOptions{URL: c.http.URL, Credential: cred, Insecure: true})
	v, _ := spent.LoadOrStore("solo-conv", &atomic.Int64{})
	model := v.(*atomic.Int64)
	var total time.Duration
	n := 0
	for b.Loop() {
		before := model.Load()
		start := time.Now()
		if _, err := cl.Command(b.Context(), CommandRequest{VoiceCommand: "tell me something nice", ConversationID: "solo-conv"}, nil); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start) - time.Duration(model.Load()-before)
		n++
	}
	b.ReportMetric(ms(total/time.Duration(n)), "ms-overhead")
}

// BenchmarkFirstSentenceThroughCenter is the time to the first sentence a
// node can say, with a model that writes 20 tokens a second: streamed (the
// first sentence) against whole (the complete answer).
func BenchmarkFirstSentenceThroughCenter(b *testing.B) {
	c, _ := benchCenter(b, 50*time.Millisecond)
	cred, _ := c.keys.Add(b.Context(), "stream")
	cl, _ := NewClient(ClientOptions{URL: c.http.URL, Credential: cred, Insecure: true})
	var streamed, whole time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		var first time.Duration
		if _, err := cl.Command(b.Context(), CommandRequest{VoiceCommand: "tell me something nice", ConversationID: "stream-a"}, func(string) {
			if first == 0 {
				first = time.Since(start)
			}
		}); err != nil {
			b.Fatal(err)
		}
		streamed += first
		start = time.Now()
		if _, err := cl.Command(b.Context(), CommandRequest{VoiceCommand: "tell me something nice", ConversationID: "stream-b"}, nil); err != nil {
			b.Fatal(err)
		}
		whole += time.Since(start)
		n++
	}
	b.ReportMetric(ms(streamed/time.Duration(n)), "ms-first-sentence-streamed")
	b.ReportMetric(ms(whole/time.Duration(n)), "ms-first-sentence-whole")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// rss is the process's resident memory in bytes.
func rss() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if f, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(f), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkCenterLoadJarvis is BenchmarkCenterLoad as 50 stock Jarvis
// nodes load the center: each turn a new conversation (the date context,
// the start with its tools, then /voice/command/stream), answered as JSON
// (no voice) or spoken (a voice that costs nothing, so the figure is the
// center's own). The overhead is the turn's time beyond the model's.
func BenchmarkCenterLoadJarvis(b *testing.B) {
	for _, voiced := range []bool{false, true} {
		name := map[bool]string{false: "json", true: "audio"}[voiced]
		b.Run(name, func(b *testing.B) {
			const nodes, turns = 50, 20
			for b.Loop() {
				var m Media
				if voiced {
					m.Voice = &toneVoice{}
				}
				c, spent := benchCenter(b, 0, m)
				start, _ := json.Marshal(jarvisStart("CONV", timerTool()))
				creds := make([]string, nodes)
				for i := range creds {
					creds[i], _ = c.keys.Add(b.Context(), fmt.Sprintf("node-%d", i))
				}
				hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: nodes}}
				post := func(cred, method, path string, body []byte, want int) bool {
					req, _ := http.NewRequestWithContext(b.Context(), method, c.http.URL+path, bytes.NewReader(body))
					req.Header.Set("X-API-Key", cred)
					resp, err := hc.Do(req)
					if err != nil {
						b.Error(err)
						return false
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != want {
						b.Errorf("%s: %d, want %d", path, resp.StatusCode, want)
						return false
					}
					return true
				}
				want := map[bool]int{false: http.StatusAccepted, true: http.StatusOK}[voiced]
				var mu sync.Mutex
				var overhead []time.Duration
				began := time.Now()
				var wg sync.WaitGroup
				for i, cred := range creds {
					wg.Go(func() {
						for turn := range turns {
							conv := fmt.Sprintf("node-%d-turn-%d", i, turn)
							v, _ := spent.LoadOrStore(conv, &atomic.Int64{})
							model := v.(*atomic.Int64)
							t0 := time.Now()
							ok := post(cred, "GET", PathDateContext+"?timezone=UTC-00:00", nil, 200) &&
								post(cred, "POST", PathStart, bytes.Replace(start, []byte("CONV"), []byte(conv), 1), 200) &&
								post(cred, "POST", PathCommandStream, []byte(`{"voice_command": "tell me something nice", "conversation_id": "`+conv+`"}`), want)
							if !ok {
								return
							}
							mu.Lock()
							overhead = append(overhead, time.Since(t0)-time.Duration(model.Load()))
							mu.Unlock()
						}
					})
				}
				wg.Wait()
				elapsed := time.Since(began)
				slices.Sort(overhead)
				b.ReportMetric(float64(3*len(overhead))/elapsed.Seconds(), "requests/s")
				b.ReportMetric(float64(len(overhead))/elapsed.Seconds(), "turns/s")
				b.ReportMetric(ms(overhead[len(overhead)/2]), "ms-overhead-p50")
				b.ReportMetric(ms(overhead[len(overhead)*99/100]), "ms-overhead-p99")
				b.ReportMetric(float64(rss())/(1<<20), "MiB-rss-after")
				c.srv.expire(time.Now().Add(time.Hour))
			}
		})
	}
}
