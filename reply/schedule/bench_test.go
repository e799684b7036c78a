package schedule

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// noticed signals each log record whose message starts with prefix.
type noticed struct {
	prefix string
	ch     chan struct{}
}

func (n noticed) Enabled(context.Context, slog.Level) bool { return true }
func (n noticed) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, n.prefix) {
		n.ch <- struct{}{}
	}
	return nil
}
func (n noticed) WithAttrs([]slog.Attr) slog.Handler { return n }
func (n noticed) WithGroup(string) slog.Handler      { return n }

// BenchmarkStepNoticed is how long after a step of the wall clock (a
// Changed signal, as the simulated clock gives at once and a board's
// timerfd at the kernel's notice) the scheduler has moved its countdowns:
// ns/op is the latency, in real time.
func BenchmarkStepNoticed(b *testing.B) {
	clk := bootAt(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC))
	seen := noticed{prefix: "the wall clock was stepped", ch: make(chan struct{}, 1)}
	s, _ := New(Options{Store: newMemStore(), Clock: clk, Location: time.UTC, Log: slog.New(seen)})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx, func(Alert) {}) }()
	s.AddTimer(ctx, "", 2*time.Hour)
	step := time.Hour
	b.ResetTimer()
	for b.Loop() {
		clk.step(clk.Now().Add(step), true)
		<-seen.ch
		step = -step
	}
	b.StopTimer()
	cancel()
	<-done
}
