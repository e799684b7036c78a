package builtin

import (
	"testing"

	"github.com/harkbox/hark/locale"
)

// BenchmarkOfflineRoute measures deciding which command claims an utterance,
// across the whole offline table: the cost every utterance pays before any
// model is asked.
func BenchmarkOfflineRoute(b *testing.B) {
	f := newFixture(b)
	for b.Loop() {
		for _, u := range offline {
			f.reg.Understand(b.Context(), locale.English, u.say)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(offline)), "µs/utterance")
}

// BenchmarkOfflineAnswer measures whole offline answers, routing and running
// included, for commands that only read ("what time is it") and for one
// that writes a timer to disk and syncs it ("set a timer").
func BenchmarkOfflineAnswer(b *testing.B) {
	for _, u := range []string{"what time is it", "what's 12 times 4", "how many centimeters in a foot", "what timers do I have", "set a timer for 5 minutes"} {
		b.Run(u, func(b *testing.B) {
			f := newFixture(b)
			for b.Loop() {
				un := f.reg.Understand(b.Context(), locale.English, u)
				if !un.OK {
					b.Fatalf("%q not claimed", u)
				}
				f.reg.RunRoute(b.Context(), un.Route, u)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N), "µs/answer")
		})
	}
}

// BenchmarkToolSchema reports the characters the built-ins' tool
// definitions add to every model call.
func BenchmarkToolSchema(b *testing.B) {
	f := newFixture(b)
	total := 0
	for b.Loop() {
		total = 0
		for _, c := range f.reg.Commands() {
			total += len(c.ToolJSON())
		}
	}
	b.ReportMetric(float64(total), "schema-chars")
	b.ReportMetric(float64(len(f.reg.Commands())), "commands")
}

// BenchmarkOfflineRouteLanguage measures reading an utterance in each
// language into a command: matching the language's templates, then the
// command's readers of the slots.
func BenchmarkOfflineRouteLanguage(b *testing.B) {
	f := newFixture(b)
	b.Run("en", func(b *testing.B) {
		for b.Loop() {
			for _, u := range offline {
				f.reg.Understand(b.Context(), locale.English, u.say)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(offline)), "µs/utterance")
	})
	for _, l := range locale.All[1:] {
		cases := offlineCases[l]
		b.Run(string(l), func(b *testing.B) {
			for b.Loop() {
				for _, c := range cases {
					f.reg.Understand(b.Context(), l, c.say)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(cases)), "µs/utterance")
		})
	}
}
