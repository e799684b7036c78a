package pipeline

import (
	"context"
	"sync"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
)

// echoTail is how long after its own sound ends the microphone may still
// hear it: the speaker's buffer and the room.
const echoTail = 250 * time.Millisecond

// echoKeep is how far back the box's sounds are remembered: more than
// the audio from before a press that a recording starts with.
const echoKeep = 10 * time.Second

// echo knows when the box's own sound (a reply, an earcon, ringing) played
// and when it will have died away, so that the microphone never takes it
// for the user: neither while it plays nor in the audio from before a
// press that came just after it. Every playback goes through it
// (echoSpeaker).
type echo struct {
	mu    sync.Mutex
	spans []span // the sounds of the last echoKeep, the oldest first
}

// span is one stretch of the box's sound: from when it was first handed
// to the speaker until what was handed will have played.
type span struct{ from, until time.Time }

// played notes d more audio handed to the speaker.
func (e *echo) played(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	if n := len(e.spans); n > 0 && !e.spans[n-1].until.Before(now) {
		e.spans[n-1].until = e.spans[n-1].until.Add(d)
		return
	}
	for len(e.spans) > 0 && now.Sub(e.spans[0].until) > echoKeep {
		e.spans = e.spans[1:]
	}
	e.spans = append(e.spans, span{from: now, until: now.Add(d)})
}

// stopped notes that the speaker dropped what was queued (barge-in).
func (e *echo) stopped() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if n, now := len(e.spans), time.Now(); n > 0 && now.Before(e.spans[n-1].until) {
		e.spans[n-1].until = now
	}
}

// heard reports whether what the microphone caught at may be the box's own
// sound: it was playing then, or had stopped less than echoTail before.
func (e *echo) heard(at time.Time) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, s := range e.spans {
		if !at.Before(s.from) && at.Before(s.until.Add(echoTail)) {
			return true
		}
	}
	return false
}

// echoSpeaker is the speaker as the pipeline uses it: every write is noted.
type echoSpeaker struct {
	Speaker
	e *echo
}

func (s echoSpeaker) Open(ctx context.Context) (Playback, error) {
	pb, err := s.Speaker.Open(ctx)
	if err != nil {
		return nil, err
	}
	return echoPlayback{Playback: pb, e: s.e}, nil
}

type echoPlayback struct {
	Playback
	e *echo
}

func (pb echoPlayback) Write(ctx context.Context, b pcm.Buffer) error {
	pb.e.played(b.Duration())
	err := pb.Playback.Write(ctx, b)
	if ctx.Err() != nil {
		pb.e.stopped()
	}
	return err
}

func (pb echoPlayback) Close(ctx context.Context) error {
	err := pb.Playback.Close(ctx)
	if ctx.Err() != nil {
		pb.e.stopped()
	}
	return err
}
