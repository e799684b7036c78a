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

// echo knows when the box's own sound (a reply, an earcon, ringing) will
// have died away, so that the microphone never takes it for the user.
// Every playback goes through it (echoSpeaker).
type echo struct {
	mu    sync.Mutex
	until time.Time // when what has been written will have played
}

// played notes d more audio handed to the speaker.
func (e *echo) played(d time.Duration) {
	e.mu.Lock()
	defer e.mu.Unlock()
	now := time.Now()
	if e.until.Before(now) {
		e.until = now
	}
	e.until = e.until.Add(d)
}

// stopped notes that the speaker dropped what was queued (barge-in).
func (e *echo) stopped() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if now := time.Now(); now.Before(e.until) {
		e.until = now
	}
}

// sounding reports whether the box's own sound may be what the microphone
// hears now.
func (e *echo) sounding() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return time.Now().Before(e.until.Add(echoTail))
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
