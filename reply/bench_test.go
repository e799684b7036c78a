package reply

import (
	"testing"
	"time"

	"github.com/harkbox/hark/reply/ollamatest"
	"github.com/harkbox/hark/storage"
)

// advancing is a clock that moves on by more than the conversation lapse at
// every reading after the first of a reply, so each benchmark iteration is
// a fresh conversation and no cache hides a model call.
func advancing() func() time.Time {
	now := clock
	return func() time.Time {
		now = now.Add(6 * time.Minute)
		return now
	}
}

// BenchmarkReplyCost reports the model calls and prompt characters one
// reply costs: these drive latency on a small board.
func BenchmarkReplyCost(b *testing.B) {
	cases := []struct {
		name  string
		setup func(f *fixture)
		query string
	}{
		{"reply-only", func(f *fixture) {
			f.model.Default(kindPlanner, ollamatest.Reply{Content: `{"steps": ["reply"]}`})
			f.model.Default(kindChat, ollamatest.Reply{Content: "Hello! Good to hear from you."})
		}, "hello there my friend"},
		{"one-tool", func(f *fixture) {
			f.model.Default(kindPlanner, ollamatest.Reply{Content: `{"steps": ["get_current_time: now", "reply"]}`})
			f.model.Default(kindRouter, ollamatest.Reply{Content: `{"tools": ["get_current_time"]}`})
			f.model.Default(kindChat, ollamatest.Reply{ToolCalls: []ollamatest.ToolCall{{Name: "get_current_time"}}})
			tool := ollamatest.Reply{Content: "It's a quarter past ten."}
			f.srv.Respond(func(r ollamatest.ChatRequest) ollamatest.Reply {
				if kindOf(r) == kindChat && r.Messages[len(r.Messages)-1].Role == "tool" {
					return tool
				}
				return f.model.respond(r)
			})
		}, "is it coffee time yet"},
		{"memory", func(f *fixture) {
			for i := range 3 {
				f.db.Diary().Add(b.Context(), storage.DiaryEntry{Conversation: string(rune('a' + i)), Date: clock.AddDate(0, 0, -i-1),
					Keywords: []string{"lisbon"}, Summary: "The user talked about the Lisbon trip in April, the hotel near Alfama, the flights and the tram routes."})
			}
			f.model.Default(kindPlanner, ollamatest.Reply{Content: `{"steps": ["memory: the Lisbon trip", "reply"]}`})
			f.model.Default(kindExtract, ollamatest.Reply{Content: `{"keywords": ["lisbon", "trip"]}`})
			f.model.Default(kindMemory, ollamatest.Reply{Content: "The user is going to Lisbon in April."})
			f.model.Default(kindChat, ollamatest.Reply{Content: "You're off to Lisbon in April."})
		}, "when am I going to Lisbon"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			f := newFixture(b, smallModel, Options{Now: advancing()})
			c.setup(f)
			var calls, chars int
			for b.Loop() {
				res, _, err := f.ask(b, c.query)
				if err != nil {
					b.Fatal(err)
				}
				calls, chars = res.Timings.ModelCalls, res.Timings.PromptChars
			}
			b.ReportMetric(float64(calls), "model-calls")
			b.ReportMetric(float64(chars), "prompt-chars")
		})
	}
}

// BenchmarkFirstSentence streams a three-sentence answer at 20 tokens a
// second and reports when the first sentence is ready against when the
// whole reply is.
func BenchmarkFirstSentence(b *testing.B) {
	f := newFixture(b, smallModel, Options{Now: advancing(), PlannerOff: true})
	f.model.Default(kindRouter, ollamatest.Reply{Content: `{"tools": []}`})
	f.model.Default(kindChat, ollamatest.Reply{TokenDelay: 50 * time.Millisecond,
		Content: "Lisbon is lovely in April. The days are mild and the evenings long. Take a light jacket for the wind by the river."})
	var first, total time.Duration
	for b.Loop() {
		res, _, err := f.ask(b, "is Lisbon nice in April")
		if err != nil {
			b.Fatal(err)
		}
		first += res.Timings.FirstSentence
		total += res.Timings.Total
	}
	b.ReportMetric(float64(first.Milliseconds())/float64(b.N), "ms-first-sentence")
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-full-reply")
}

// BenchmarkEngineOverhead measures a reply-only answer against a server
// that answers at once: two model round trips, the history read and the
// synced dialogue write, and the engine's own work.
func BenchmarkEngineOverhead(b *testing.B) {
	f := newFixture(b, smallModel, Options{Now: advancing()})
	f.model.Default(kindPlanner, ollamatest.Reply{Content: `{"steps": ["reply"]}`})
	f.model.Default(kindChat, ollamatest.Reply{Content: "Hello! Good to hear from you."})
	var first time.Duration
	for b.Loop() {
		res, _, err := f.ask(b, "hello there my friend")
		if err != nil {
			b.Fatal(err)
		}
		first += res.Timings.FirstSentence
	}
	b.ReportMetric(float64(first.Microseconds())/float64(b.N)/1000, "ms-first-sentence")
}

// BenchmarkOfflineReply measures a whole offline reply through the engine:
// reading the conversation, routing, running the command, and storing the
// exchange (a synchronous disk write).
func BenchmarkOfflineReply(b *testing.B) {
	f := newFixture(b, smallModel, Options{Now: time.Now})
	for b.Loop() {
		if _, _, err := f.ask(b, "what's 12 times 4"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/reply")
}

// BenchmarkOfflineReplyLanguage measures whole offline replies through the
// engine in each language: detecting the language, reading the phrasing
// into a command, running it and saying its sentence from the catalogue,
// and storing the exchange. The arithmetic reads; the timer writes and
// syncs to disk.
func BenchmarkOfflineReplyLanguage(b *testing.B) {
	for _, c := range []struct{ lang, sum, timer string }{
		{"en", "what's 12 times 4", "set a timer for 5 minutes"},
		{"de", "was ist zwölf mal vier", "stell einen Timer für fünf Minuten"},
		{"fr", "combien font douze fois quatre", "mets un minuteur de cinq minutes"},
		{"es", "cuánto es doce por cuatro", "pon un temporizador de cinco minutos"},
	} {
		for kind, text := range map[string]string{"sum": c.sum, "timer": c.timer} {
			b.Run(c.lang+"/"+kind, func(b *testing.B) {
				f := newFixture(b, smallModel, Options{Now: time.Now})
				for b.Loop() {
					res, _, err := f.ask(b, text)
					if err != nil || !res.Offline {
						b.Fatalf("%q: offline %v, err %v", text, res.Offline, err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/reply")
			})
		}
	}
}
