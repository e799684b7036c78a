package alert

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/schedule/scheduletest"
)

func newMemStore() *scheduletest.Store { return scheduletest.New() }

// bell is a Ringer that records what it was asked.
type bell struct {
	mu      sync.Mutex
	rung    []Alert
	ringing bool
	stops   int
}

func (b *bell) Ring(a Alert) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rung = append(b.rung, a)
	b.ringing = true
}

func (b *bell) StopAlerts() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.stops++
	was := b.ringing
	b.ringing = false
	return was
}

func (b *bell) seen() ([]Alert, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.rung), b.stops
}

func TestServiceRingsAndStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc, err := New(Options{Store: newMemStore(), Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		if svc.StopAlerts() {
			t.Error("StopAlerts before Run reported something ringing")
		}
		b := &bell{}
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- svc.Run(ctx, b) }()
		synctest.Wait()
		if err := svc.Run(ctx, b); err != ErrRunning {
			t.Errorf("a second Run: %v, want ErrRunning", err)
		}

		if _, err := svc.AddTimer(t.Context(), "tea", 5*time.Minute); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5*time.Minute - time.Second)
		synctest.Wait()
		if rung, _ := b.seen(); len(rung) != 0 {
			t.Fatalf("rang %v a second early", rung)
		}
		time.Sleep(time.Second)
		synctest.Wait()
		if rung, _ := b.seen(); len(rung) != 1 || rung[0].Announcement != "Your tea timer is done." {
			t.Fatalf("rang %+v, want the tea timer once", rung)
		}

		// The stop command reaches the ringer through the service.
		reg := command.NewRegistry(command.Options{Location: time.UTC})
		if err := reg.Register(builtin.All(builtin.Deps{Schedule: svc, Alerts: svc})...); err != nil {
			t.Fatal(err)
		}
		resp := reg.Call(t.Context(), "stop", nil, "stop")
		if _, stops := b.seen(); resp.Data["stopped_ringing"] != true || stops != 1 {
			t.Errorf("stop: %+v after %d stops, want stopped_ringing", resp, stops)
		}
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
		if _, stops := b.seen(); svc.StopAlerts() || stops != 1 {
			t.Error("StopAlerts after Run reached the ringer")
		}
	})
}
