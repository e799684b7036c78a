package pipeline

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/voice"
)

// listenMic records how each recording was asked for and answers from a
// script: an error, or an utterance once the recording ends.
type listenMic struct {
	mu      sync.Mutex
	listens []voice.Listen
	answers []micAnswer
}

type micAnswer struct {
	u   voice.Utterance
	err error
}

func (m *listenMic) Record(ctx context.Context, l voice.Listen) (voice.Utterance, error) {
	m.mu.Lock()
	m.listens = append(m.listens, l)
	var a micAnswer
	if len(m.answers) > 0 {
		a, m.answers = m.answers[0], m.answers[1:]
	}
	m.mu.Unlock()
	if a.err != nil {
		return voice.Utterance{}, a.err
	}
	select {
	case <-ctx.Done():
		return voice.Utterance{}, ctx.Err()
	case <-l.End:
	}
	return a.u, nil
}

func runPipeline(t *testing.T, o Options) (chan<- Event, *Feed) {
	t.Helper()
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	feed := p.Subscribe(256)
	events := make(chan Event)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { p.Run(ctx, events); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return events, feed
}

func TestHoldMode(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mic := &listenMic{answers: []micAnswer{{u: speech("what time is it")}}}
		rep := &scriptReplier{sentences: []string{"Noon."}}
		events, _ := runPipeline(t, Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: rep, Talk: TalkHold})
		events <- Press
		time.Sleep(2 * time.Second)
		events <- Stop // the long-press gesture fires while the user talks: ignored
		events <- Release
		time.Sleep(time.Second)
		synctest.Wait()
		if len(rep.queries) != 1 || rep.queries[0].Text != "what time is it" {
			t.Fatalf("queries %+v: the release did not end the held utterance", rep.queries)
		}
		if l := mic.listens[0]; l.EndOnSilence || l.StartTimeout != 0 || l.FollowUp {
			t.Errorf("hold mode listened with %+v, want only the release to end it", l)
		}
		// Abort stops even a held turn.
		events <- Press
		time.Sleep(time.Second)
		events <- Abort
		synctest.Wait()
		if len(rep.queries) != 1 {
			t.Errorf("an aborted turn was answered: %+v", rep.queries)
		}
		mic.mu.Lock()
		n := len(mic.listens)
		mic.mu.Unlock()
		events <- Press // listening again, so the abort ended the held turn
		synctest.Wait()
		mic.mu.Lock()
		defer mic.mu.Unlock()
		if len(mic.listens) != n+1 {
			t.Errorf("after the abort, a press did not start listening: %d recordings", len(mic.listens))
		}
	})
}

func TestTapModeEndsOnSilence(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mic := &listenMic{}
		events, _ := runPipeline(t, Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: &scriptReplier{}, NoSpeech: 3 * time.Second})
		events <- Press
		synctest.Wait()
		if l := mic.listens[0]; !l.EndOnSilence || l.StartTimeout != 3*time.Second || l.FollowUp {
			t.Errorf("tap mode listened with %+v, want silence to end it and 3 s to wait for speech", l)
		}
		events <- Release // ignored in tap mode
		synctest.Wait()
		mic.mu.Lock()
		defer mic.mu.Unlock()
		if len(mic.listens) != 1 {
			t.Errorf("%d recordings", len(mic.listens))
		}
	})
}

func TestMutedPressIsExplained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mic := &listenMic{answers: []micAnswer{{err: voice.ErrMuted}}}
		synth := &langSynth{}
		rep := &scriptReplier{}
		events, feed := runPipeline(t, Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: rep, Synthesizer: synth, Speaker: &clockSpeaker{}})
		events <- Press
		time.Sleep(10 * time.Second)
		synctest.Wait()
		states := readAll(feed)
		if slices.ContainsFunc(states, func(s voice.Status) bool { return s.State == voice.Error }) {
			t.Errorf("a muted press showed an error: %+v", states)
		}
		if said := spoken(states); !slices.Equal(said, []string{mutedNotice}) || len(rep.queries) != 0 {
			t.Errorf("said %q, %d queries; want only %q", said, len(rep.queries), mutedNotice)
		}
	})
}

// A press with the microphone gone says why, and shows the error.
func TestPressWithoutMicrophoneIsExplained(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		gone := fmt.Errorf("endpoint: %w: it does not open: no such device", voice.ErrNoMicrophone)
		mic := &listenMic{answers: []micAnswer{{err: gone}}}
		rep := &scriptReplier{}
		events, feed := runPipeline(t, Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: rep, Synthesizer: &langSynth{}, Speaker: &clockSpeaker{}})
		events <- Press
		time.Sleep(10 * time.Second)
		synctest.Wait()
		states := readAll(feed)
		if !slices.ContainsFunc(states, func(s voice.Status) bool { return s.State == voice.Error }) {
			t.Errorf("no error shown: %+v", states)
		}
		if said := spoken(states); !slices.Equal(said, []string{noMicNotice}) || len(rep.queries) != 0 {
			t.Errorf("said %q, %d queries; want only %q", said, len(rep.queries), noMicNotice)
		}
	})
}

func TestCutUtteranceIsSaid(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		mic := &listenMic{answers: []micAnswer{{u: cutShort(speech("a very long story"))}}}
		rep := &scriptReplier{sentences: []string{"I see."}}
		events, feed := runPipeline(t, Options{Microphone: mic, Transcriber: typedTranscriber{}, Replier: rep})
		events <- Press
		events <- Press
		time.Sleep(10 * time.Second)
		synctest.Wait()
		if said := spoken(readAll(feed)); !slices.Equal(said, []string{cutNotice, "I see."}) {
			t.Errorf("said %q, want the cut noticed first", said)
		}
	})
}

// spoken is the sentences said, from the Speaking states.
func spoken(states []voice.Status) []string {
	var out []string
	for _, s := range states {
		if s.State == voice.Speaking {
			out = append(out, s.Text)
		}
	}
	return out
}

// readAll is what the feed holds now.
func readAll(f *Feed) []voice.Status {
	done, cancel := context.WithCancel(context.Background())
	cancel()
	var got []voice.Status
	for {
		s, err := f.Next(done)
		if err != nil {
			return got
		}
		got = append(got, s)
	}
}

func cutShort(u voice.Utterance) voice.Utterance {
	u.Cut = true
	return u
}
