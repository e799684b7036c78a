package box

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/voice"
	"github.com/harkbox/hark/reply/alert"
	"github.com/harkbox/hark/storage"
)

// TestServiceRingsThePipeline: the real pipeline is the alert service's
// Ringer, through the box's ringer; the alert rings it, and StopAlerts
// through the service silences it.
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
		db, err := storage.Open(t.TempDir(), storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		svc, err := alert.New(alert.Options{Store: db.Schedule(), Location: time.UTC})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		events := make(chan pipeline.Event)
		var wg sync.WaitGroup
		wg.Go(func() { p.Run(ctx, events) })
		wg.Go(func() { svc.Run(ctx, ringer{p}) })
		if _, err := svc.AddReminder(t.Context(), "water the plants", time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Minute)
		synctest.Wait()
		st, _ := feed.Latest(t.Context())
		if st.State != voice.Ringing || st.Text != "Reminder: water the plants." {
			t.Fatalf("state %v %q, want ringing the reminder", st.State, st.Text)
		}
		if !svc.StopAlerts() {
			t.Error("StopAlerts found nothing ringing")
		}
		synctest.Wait()
		if st, _ := feed.Latest(t.Context()); st.State != voice.Idle {
			t.Errorf("state %v after StopAlerts, want idle", st.State)
		}
		cancel()
		wg.Wait()
	})
}

type silentMic struct{}

func (silentMic) Record(ctx context.Context, _ voice.Listen) (voice.Utterance, error) {
	<-ctx.Done()
	return voice.Utterance{}, ctx.Err()
}

type noWords struct{}

func (noWords) Transcribe(context.Context, voice.Utterance) (voice.Transcript, error) {
	return voice.Transcript{}, voice.ErrNoSpeech
}
