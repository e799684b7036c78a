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
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/reply/schedule/scheduletest"
	"github.com/harkbox/hark/storage"
)

func newMemStore() *scheduletest.Store { return scheduletest.New() }

// bell is a Ringer that records what it was asked.
type bell struct {
	mu      sync.Mutex
	rung    []Alert
	told    []Alert // handed to Tell
	ringing bool
	stops   int
}

func (b *bell) Tell(a Alert) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.told = append(b.told, a)
}

// toTell is what was handed to Tell.
func (b *bell) toTell() []Alert {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.told)
}

func (b *bell) Ring(a Alert) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.rung = append(b.rung, a)
	b.ringing = true
}

func (b *bell) StopAlerts() bool {
	b.mu.Lock()
	b.stops++
	was := b.ringing
	b.ringing = false
	rung := slices.Clone(b.rung)
	b.mu.Unlock()
	if was {
		for _, a := range rung {
			a.Done() // done twice for one rung before: the service must not mind
		}
	}
	return was
}

// StopAlert stops the one alert of id the bell rings, as the pipeline does.
func (b *bell) StopAlert(id string) bool {
	b.mu.Lock()
	i := slices.IndexFunc(b.rung, func(a Alert) bool { return a.ID == id })
	var a Alert
	if i >= 0 {
		a = b.rung[i]
		b.rung = slices.Delete(b.rung, i, i+1)
	}
	b.mu.Unlock()
	if i < 0 {
		return false
	}
	a.Done()
	return true
}

func (b *bell) seen() ([]Alert, int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.rung), b.stops
}

func TestServiceRingsAndStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc, err := New(Options{Schedule: schedule.Options{Store: newMemStore(), Location: time.UTC}})
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

		if r := svc.Ringing(); len(r) != 1 || r[0].Name != "tea" {
			t.Errorf("Ringing while the tea timer rings: %+v", r)
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
		if r := svc.Ringing(); len(r) != 0 {
			t.Errorf("Ringing after stop: %+v", r)
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

// ringing is a service on an empty store, running with a bell until the
// test ends.
func ringing(t *testing.T) *Service {
	t.Helper()
	svc, err := New(Options{Schedule: schedule.Options{Store: newMemStore(), Location: time.UTC}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go svc.Run(ctx, &bell{})
	return svc
}

// TestStopOneAlert: StopAlert silences the one item of its id, and
// Ringing lists what rings until then.
func TestStopOneAlert(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc := ringing(t)
		tea, _ := svc.AddTimer(t.Context(), "tea", time.Minute)
		eggs, _ := svc.AddTimer(t.Context(), "eggs", 2*time.Minute)
		time.Sleep(3 * time.Minute)
		synctest.Wait()
		if r := svc.Ringing(); len(r) != 2 || r[0].ID != tea.ID || r[1].ID != eggs.ID {
			t.Fatalf("Ringing: %+v, want tea then eggs", r)
		}
		if svc.StopAlert("nothing") {
			t.Error("StopAlert stopped an id that does not ring")
		}
		if !svc.StopAlert(tea.ID) {
			t.Error("StopAlert did not stop the tea timer")
		}
		if r := svc.Ringing(); len(r) != 1 || r[0].ID != eggs.ID {
			t.Errorf("Ringing after the tea timer stopped: %+v, want eggs", r)
		}
	})
}

// TestJustRang: an alert is what has just rung while it rings and for a
// minute after it is silenced, then no more; of its own kind only.
func TestJustRang(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		svc := ringing(t)
		synctest.Wait()
		svc.AddTimer(t.Context(), "pasta", 5*time.Minute)
		svc.AddTimer(t.Context(), "roast", 90*time.Minute)
		if got := svc.JustRang(storage.Timer); len(got) != 0 {
			t.Fatalf("before anything rang: %+v", got)
		}
		time.Sleep(5 * time.Minute)
		synctest.Wait()
		names := func(kind storage.ItemKind) []string {
			var out []string
			for _, it := range svc.JustRang(kind) {
				out = append(out, it.Name)
			}
			return out
		}
		if got := names(storage.Timer); !slices.Equal(got, []string{"pasta"}) {
			t.Errorf("while the pasta timer rings: %v", got)
		}
		svc.StopAlerts() // the press that begins a turn
		time.Sleep(50 * time.Second)
		if got := names(storage.Timer); !slices.Equal(got, []string{"pasta"}) {
			t.Errorf("50 s after it was silenced: %v", got)
		}
		if got := names(storage.Alarm); len(got) != 0 {
			t.Errorf("alarms just rung: %v", got)
		}
		time.Sleep(11 * time.Second)
		if got := names(storage.Timer); len(got) != 0 {
			t.Errorf("61 s after it was silenced: %v", got)
		}
	})
}
