package box

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/device/clock"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
	"github.com/harkbox/hark/reply/alert"
	"github.com/harkbox/hark/reply/schedule"
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
		svc, err := alert.New(alert.Options{Schedule: schedule.Options{Store: db.Schedule(), Location: time.UTC}})
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

// TestAlertRungUnheardIsToldAfterARestart: a timer that rang while the
// speaker was gone (only the lights showed it) is still told after the
// daemon restarts before the speaker came back: the new box, over the same
// data directory, says what went off, once, and a third start says nothing.
func TestAlertRungUnheardIsToldAfterARestart(t *testing.T) {
	srv, _ := modelServer(t)
	cfg, res := configure(t, "[assistant]\ntime_zone = \"UTC\"\n", map[string]string{"OLLAMA_HOST": srv.URL})
	synctest.Test(t, func(t *testing.T) {
		clk := clock.NewSim(time.Time{}) // set: synctest's midnight, 1 January 2000
		// run opens a box over the data directory and runs its alerts on a
		// pipeline with spk until stop is called; it returns what the
		// pipeline said.
		run := func(spk pipeline.Speaker) (b *Box, said func() []string, stop func()) {
			b, err := Open(cfg, res, Options{Clock: clk})
			if err != nil {
				t.Fatal(err)
			}
			p, err := pipeline.New(pipeline.Options{Microphone: silentMic{}, Transcriber: noWords{}, Replier: pipeline.ReplierFunc(nil),
				Synthesizer: toneSynth{}, Speaker: spk, RingFor: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			feed := p.Subscribe(256)
			ctx, cancel := context.WithCancel(t.Context())
			var wg sync.WaitGroup
			wg.Go(func() { p.Run(ctx, make(chan pipeline.Event)) })
			wg.Go(func() { b.alerts.Run(ctx, ringer{p}) })
			said = func() []string {
				synctest.Wait()
				var out []string
				for {
					now, stop := context.WithCancel(t.Context())
					stop()
					st, err := feed.Next(now)
					if err != nil {
						return out
					}
					if st.State == voice.Speaking {
						out = append(out, st.Text)
					}
				}
			}
			stop = func() {
				cancel()
				wg.Wait()
				if err := b.Close(); err != nil {
					t.Errorf("close: %v", err)
				}
			}
			return b, said, stop
		}

		b, _, stop := run(goneSpeaker{})
		if _, err := b.alerts.AddTimer(t.Context(), "tea", 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		time.Sleep(12 * time.Minute) // it rang, silently, and rings on
		stop()                       // the daemon restarts; the speaker is back

		spk := &chimes{}
		_, said, stop := run(spk)
		time.Sleep(time.Minute)
		const want = "While my speaker was gone, an alert went off at 12:10 AM: Your tea timer is done."
		if got := said(); !slices.Equal(got, []string{want}) || spk.count() == 0 {
			t.Errorf("after the restart the box said %q (%d writes), want %q", got, spk.count(), want)
		}
		stop()

		_, said, stop = run(&chimes{})
		time.Sleep(time.Minute)
		if got := said(); len(got) != 0 {
			t.Errorf("a third start said %q, want nothing: it was told", got)
		}
		stop()
	})
}

// goneSpeaker is a speaker that is not there.
type goneSpeaker struct{}

func (goneSpeaker) Open(context.Context) (pipeline.Playback, error) {
	return nil, errors.New("speaker unplugged")
}

// toneSynth makes 10 ms of audio per character.
type toneSynth struct{}

func (toneSynth) Synthesize(_ context.Context, text string) (pcm.Buffer, error) {
	return pcm.Buffer{Rate: 16000, Channels: 1, Samples: make([]float32, 160*len(text))}, nil
}

// TestPipelineAlertIsWordedWhenTold: an alert handed from the alert
// service to the pipeline keeps its wording for the time it is told and
// when it is too old to tell.
func TestPipelineAlertIsWordedWhenTold(t *testing.T) {
	stale := time.Date(2026, 3, 2, 22, 10, 0, 0, time.UTC)
	a := alert.Alert{ID: "tea", Missed: "at ring time", Stale: stale,
		MissedAt: func(now time.Time) string { return "told at " + now.Format(time.Kitchen) }}
	p := pipelineAlert(a)
	now := stale.Add(-time.Hour)
	if p.MissedAt == nil || p.MissedAt(now) != a.MissedAt(now) || !p.Stale.Equal(stale) {
		t.Errorf("the pipeline's alert: stale %v, worded when told %v; want stale %v, worded %q", p.Stale, p.MissedAt != nil, stale, a.MissedAt(now))
	}
}
