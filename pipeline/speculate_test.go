package pipeline

import (
	"context"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/voice"
)

// slowTranscriber takes its time, counts its calls, and never runs two at
// once without saying so.
type slowTranscriber struct {
	took time.Duration

	mu        sync.Mutex
	calls     int
	cancelled int
	running   int
	overlap   bool
}

func (s *slowTranscriber) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	s.mu.Lock()
	s.calls++
	s.running++
	s.overlap = s.overlap || s.running > 1
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.running--
		s.mu.Unlock()
	}()
	select {
	case <-ctx.Done():
		s.mu.Lock()
		s.cancelled++
		s.mu.Unlock()
		return voice.Transcript{}, ctx.Err()
	case <-time.After(s.took):
	}
	return voice.Transcript{Text: textOf(u), Language: "en"}, nil
}

// wholeIf judges the words whole when they end with a full stop.
type wholeIf struct{}

func (wholeIf) Complete(ctx context.Context, text, lang string) bool {
	return strings.HasSuffix(text, ".")
}

func TestSpeculatorTakesTheLastPause(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &slowTranscriber{took: 200 * time.Millisecond}
		s := NewSpeculator(tr, wholeIf{})
		v1 := s.Pause(t.Context(), speech("set a timer for"))
		time.Sleep(50 * time.Millisecond)
		s.Resume() // the user went on: that transcription is dropped
		v2 := s.Pause(t.Context(), speech("set a timer for ten minutes."))
		if whole, ok := <-v1; ok {
			t.Errorf("the dropped pause gave a verdict: %v", whole)
		}
		start := time.Now()
		if whole := <-v2; !whole {
			t.Error("the whole command was not judged whole")
		}
		// The second waited for the first to return (at once, on its
		// cancel), then took 200 ms.
		if took := time.Since(start); took != 200*time.Millisecond {
			t.Errorf("the verdict came %v after the pause, want 200 ms", took)
		}
		tr2, ok, err := s.Take(t.Context())
		if !ok || err != nil || tr2.Text != "set a timer for ten minutes." {
			t.Errorf("Take: %q, %v, %v; want the last pause's words", tr2.Text, ok, err)
		}
		started, dropped := s.Close()
		if started != 2 || dropped != 1 || tr.calls != 2 || tr.cancelled != 1 || tr.overlap {
			t.Errorf("started %d, dropped %d; transcriber called %d, cancelled %d, overlapping %v; want 2, 1, 2, 1, false",
				started, dropped, tr.calls, tr.cancelled, tr.overlap)
		}
	})
}

// Murmur transcribes the utterance with the sounds after the pause, once
// the pause's transcription has returned, and says whether they hold
// words: only the same words, punctuation and case aside, say none. The
// pause's transcript is still the one to take.
func TestSpeculatorMurmur(t *testing.T) {
	for _, tc := range []struct {
		later  string
		hushed bool
	}{{"Turn on the kitchen light", true}, {"turn on the kitchen light.", true}, {"turn on the kitchen light please", false}} {
		synctest.Test(t, func(t *testing.T) {
			tr := &slowTranscriber{took: 200 * time.Millisecond}
			s := NewSpeculator(tr, wholeIf{})
			v := s.Pause(t.Context(), speech("turn on the kitchen light,"))
			time.Sleep(100 * time.Millisecond)
			m := s.Murmur(t.Context(), speech(tc.later))
			if whole := <-v; whole {
				t.Error("words not whole judged whole")
			}
			start := time.Now()
			hushed, ok := <-m
			if hushed != tc.hushed || ok != tc.hushed {
				t.Errorf("%q after %q: the murmur said %v (sent %v), want %v", tc.later, "turn on the kitchen light,", hushed, ok, tc.hushed)
			}
			// It waited for the pause's transcription (100 ms more), then
			// took its own 200 ms.
			if took := time.Since(start); took != 200*time.Millisecond {
				t.Errorf("the murmur answered %v after the pause's verdict, want 200 ms", took)
			}
			if got, ok, err := s.Take(t.Context()); !ok || err != nil || got.Text != "turn on the kitchen light," {
				t.Errorf("Take: %q, %v, %v; want the pause's words", got.Text, ok, err)
			}
			started, dropped := s.Close()
			if started != 2 || dropped != 0 || tr.calls != 2 || tr.overlap {
				t.Errorf("started %d, dropped %d; transcriber called %d, overlapping %v; want 2, 0, 2, false", started, dropped, tr.calls, tr.overlap)
			}
		})
	}
}

// Speech after the pause drops its murmur with it; with no pause there is
// nothing to murmur about.
func TestSpeculatorMurmurDropped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &slowTranscriber{took: 200 * time.Millisecond}
		s := NewSpeculator(tr, nil)
		if _, ok := <-s.Murmur(t.Context(), speech("play some music")); ok {
			t.Error("a murmur with no pause answered")
		}
		s.Pause(t.Context(), speech("play some music"))
		m := s.Murmur(t.Context(), speech("play some music"))
		time.Sleep(300 * time.Millisecond) // the murmur's transcription is running
		s.Resume()
		if _, ok := <-m; ok {
			t.Error("a murmur answered after the speech went on")
		}
		s.Close()
		tr.mu.Lock()
		defer tr.mu.Unlock()
		if tr.calls != 2 || tr.cancelled != 1 || tr.running != 0 {
			t.Errorf("transcriber called %d, cancelled %d, running %d after Close; want 2, 1, 0", tr.calls, tr.cancelled, tr.running)
		}
	})
}

// A pause after which the speech went on leaves nothing to take: the
// caller transcribes the whole utterance, after Close, which waits for
// the dropped transcription to return.
func TestSpeculatorNothingToTakeAfterResume(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &slowTranscriber{took: 200 * time.Millisecond}
		s := NewSpeculator(tr, nil)
		v := s.Pause(t.Context(), speech("turn on the"))
		s.Resume()
		if _, ok, _ := s.Take(t.Context()); ok {
			t.Error("Take gave the transcript of a pause the speech went on after")
		}
		s.Close()
		tr.mu.Lock()
		defer tr.mu.Unlock()
		if tr.running != 0 {
			t.Error("Close returned with a transcription still running")
		}
		if _, ok := <-v; ok {
			t.Error("a verdict without a Completer")
		}
	})
}

// With Speculate the turn's transcript is the one worked out at the pause
// that ended the utterance: the transcriber runs once, before the silence
// is over, and the reply has the words as soon as the utterance ends.
func TestTurnUsesTheTranscriptWorkedAhead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &slowTranscriber{took: 300 * time.Millisecond}
		mic := &pausingMic{words: "what time is it", quiet: 600 * time.Millisecond}
		rep := &scriptReplier{sentences: []string{"It is noon."}}
		var asked time.Time
		timed := ReplierFunc(func(ctx context.Context, q Query, say func(string)) (Outcome, error) {
			asked = time.Now()
			return rep.Reply(ctx, q, say)
		})
		pressOnce(t, Options{Microphone: mic, Transcriber: tr, Replier: timed, Speculate: true})
		rep.mu.Lock()
		defer rep.mu.Unlock()
		if len(rep.queries) != 1 || rep.queries[0].Text != "what time is it" {
			t.Fatalf("queries %+v", rep.queries)
		}
		if tr.calls != 1 {
			t.Errorf("transcribed %d times, want once, at the pause", tr.calls)
		}
		// The pause came 250 ms into the silence, the transcript 300 ms
		// later: 50 ms before the 600 ms silence ended the utterance.
		if mic.ended.IsZero() || asked.Sub(mic.ended) != 0 {
			t.Errorf("the reply began %v after the utterance ended, want at once", asked.Sub(mic.ended))
		}
	})
}

// pressOnce runs a pipeline for o, presses once and lets the turn run
// for 3 s.
func pressOnce(t *testing.T, o Options) {
	p, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan Event)
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	go p.Run(ctx, events)
	events <- Press
	time.Sleep(3 * time.Second)
	synctest.Wait()
}

// pausingMic says words, pauses (telling l.Pauses after 250 ms) and ends
// the utterance after quiet.
type pausingMic struct {
	words string
	quiet time.Duration
	ended time.Time
}

func (m *pausingMic) Record(ctx context.Context, l voice.Listen) (voice.Utterance, error) {
	u := speech(m.words)
	time.Sleep(250 * time.Millisecond)
	if l.Pauses != nil {
		l.Pauses.Pause(ctx, u)
	}
	time.Sleep(m.quiet - 250*time.Millisecond)
	m.ended = time.Now()
	return u, nil
}

// When the speech went on after the last pause, the turn transcribes the
// whole utterance itself, after the dropped transcription has returned.
func TestTurnTranscribesAnewWhenTheSpeechWentOn(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		tr := &slowTranscriber{took: 300 * time.Millisecond}
		mic := &resumingMic{}
		rep := &scriptReplier{sentences: []string{"Done."}}
		pressOnce(t, Options{Microphone: mic, Transcriber: tr, Replier: rep, Speculate: true, Completer: wholeIf{}})
		rep.mu.Lock()
		defer rep.mu.Unlock()
		tr.mu.Lock()
		defer tr.mu.Unlock()
		if len(rep.queries) != 1 || rep.queries[0].Text != "turn on the kitchen light" {
			t.Fatalf("queries %+v, want the whole utterance", rep.queries)
		}
		if tr.calls != 2 || tr.cancelled != 1 || tr.overlap {
			t.Errorf("transcriber called %d times, %d cancelled, overlapping %v; want 2, 1, false", tr.calls, tr.cancelled, tr.overlap)
		}
	})
}

// resumingMic pauses after "turn on the", goes on, and ends on the button
// of its own accord: the pause's work is stale.
type resumingMic struct{}

func (resumingMic) Record(ctx context.Context, l voice.Listen) (voice.Utterance, error) {
	time.Sleep(250 * time.Millisecond)
	l.Pauses.Pause(ctx, speech("turn on the"))
	time.Sleep(100 * time.Millisecond)
	l.Pauses.Resume()
	time.Sleep(time.Second)
	return speech("turn on the kitchen light"), nil
}

// lagging takes 100 ms to return once cancelled (an encoder pass that
// finishes before it looks at its context, a recognizer across the
// network), a second otherwise.
type lagging struct {
	mu      sync.Mutex
	running int
}

func (l *lagging) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	l.mu.Lock()
	l.running++
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.running--
		l.mu.Unlock()
	}()
	select {
	case <-ctx.Done():
		time.Sleep(100 * time.Millisecond)
		return voice.Transcript{}, ctx.Err()
	case <-time.After(time.Second):
	}
	return voice.Transcript{Text: textOf(u)}, nil
}

// Close waits for every transcription to return, those dropped behind a
// slow one included: a murmur queued behind its pause, or a second pause.
func TestSpeculatorCloseWaitsForAll(t *testing.T) {
	for _, second := range []string{"murmur", "pause"} {
		synctest.Test(t, func(t *testing.T) {
			tr := &lagging{}
			s := NewSpeculator(tr, nil)
			s.Pause(t.Context(), speech("play some"))
			time.Sleep(50 * time.Millisecond)
			if second == "murmur" {
				s.Murmur(t.Context(), speech("play some"))
			} else {
				s.Pause(t.Context(), speech("play some"))
			}
			time.Sleep(50 * time.Millisecond)
			s.Resume()
			s.Close()
			tr.mu.Lock()
			defer tr.mu.Unlock()
			if tr.running != 0 {
				t.Errorf("a %s behind a pause, both dropped: Close returned with %d transcriptions running", second, tr.running)
			}
		})
	}
}
