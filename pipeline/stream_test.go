package pipeline

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
)

// stampSpeaker records when each piece of audio was written.
type stampSpeaker struct {
	mu     sync.Mutex
	writes []time.Time
}

func (s *stampSpeaker) Open(context.Context) (Playback, error) { return s, nil }
func (s *stampSpeaker) Format() (int, int)                     { return 22050, 1 }
func (s *stampSpeaker) Close(context.Context) error            { return nil }
func (s *stampSpeaker) Write(_ context.Context, b pcm.Buffer) error {
	s.mu.Lock()
	s.writes = append(s.writes, time.Now())
	s.mu.Unlock()
	return nil
}

// TestStreamedSentencePlaysAsItArrives: a voice that streams a sentence
// piece by piece is heard from its first piece, not once it is whole.
func TestStreamedSentencePlaysAsItArrives(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		synth := &pacedVoice{first: 100 * time.Millisecond, gap: 2 * time.Second, pieces: 3}
		spk := &stampSpeaker{}
		rep := &scriptReplier{sentences: []string{"A sentence that takes the voice four seconds."}}
		events, _ := runPipeline(t, Options{Microphone: &typedMic{lines: []string{"talk to me"}}, Transcriber: typedTranscriber{},
			Replier: rep, Synthesizer: synth, Speaker: spk})
		began := time.Now()
		events <- Press
		events <- Press
		time.Sleep(10 * time.Second)
		synctest.Wait()
		spk.mu.Lock()
		defer spk.mu.Unlock()
		if len(spk.writes) != 3 {
			t.Fatalf("%d writes, want the 3 pieces", len(spk.writes))
		}
		if first, last := spk.writes[0].Sub(began), spk.writes[2].Sub(began); last-first < 4*time.Second-time.Millisecond || first > time.Second {
			t.Errorf("first piece played at %v, last at %v: want the first at once, the last 4 s later", first, last)
		}
	})
}
