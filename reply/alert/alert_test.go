package alert

import (
	"context"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/schedule/scheduletest"
)

func newMemStore() *scheduletest.Store { return scheduletest.New() }

// bell is a Ringer that records what it was asked.
type bell struct {
	mu      sync.Mutex
	rung    []pipeline.Alert
	ringing bool
	stops   int
}

func (b *bell) Ring(a pipeline.Alert) {
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

func (b *bell) seen() ([]pipeline.Alert, int) {
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

// TestServiceRingsThePipeline: the real pipeline is the Ringer; the alert
// rings it, and StopAlerts through the service silences it.
func TestServiceRingsThePipeline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, err := pipeline.New(pipeline.Options{
			Microphone:  silentMic{},
			Transcriber: noWords{},
			Replier: pipeline.ReplierFunc(func(context.Context, pipeline.Query, func(string)) (pipeline.Outcome, error) {
				return pipeline.Outcome{}, nil
			}),
			RingFor: time.Hour,
		})
		if err != nil {
			t.Fatal(err)
		}
		feed := p.Subscribe(64)
		svc, err := New(Options{Store: newMemStore(), Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		events := make(chan pipeline.Event)
		var wg sync.WaitGroup
		wg.Go(func() { p.Run(ctx, events) })
		wg.Go(func() { svc.Run(ctx, p) })
		if _, err := svc.AddReminder(t.Context(), "water the plants", time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		st, _ := feed.Latest(t.Context())
		if st.State != pipeline.Ringing || st.Text != "Reminder: water the plants." {
			t.Fatalf("state %v %q, want ringing the reminder", st.State, st.Text)
		}
		if !svc.StopAlerts() {
			t.Error("StopAlerts found nothing ringing")
		}
		synctest.Wait()
		if st, _ := feed.Latest(t.Context()); st.State != pipeline.Idle {
			t.Errorf("state %v after StopAlerts, want idle", st.State)
		}
		cancel()
		wg.Wait()
	})
}

type silentMic struct{}

func (silentMic) Record(ctx context.Context, _ pipeline.Listen) (pipeline.Utterance, error) {
	<-ctx.Done()
	return pipeline.Utterance{}, ctx.Err()
}

type noWords struct{}

func (noWords) Transcribe(context.Context, pipeline.Utterance) (pipeline.Transcript, error) {
	return pipeline.Transcript{}, pipeline.ErrNoSpeech
}
