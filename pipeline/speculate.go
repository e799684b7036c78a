package pipeline

import (
	"context"
	"sync"

	"github.com/harkbox/hark/pipeline/voice"
)

// Completer judges whether words make a whole request. The wiring fills
// it from the reply side (the offline core's commands, a template
// matcher); the pipeline only asks.
type Completer interface {
	// Complete reports whether text, heard in lang (a BCP 47 code, or ""
	// when unknown), is a request that can be answered as it stands: a
	// command with everything it needs, or a whole question. It is asked
	// while the user may still be speaking, so it must be quick and change
	// nothing; false is always safe (the utterance then ends on silence
	// alone).
	Complete(ctx context.Context, text, lang string) bool
}

// Speculator transcribes an utterance at its pauses, before it is over:
// it is the voice.Pauses a recording is handed. When the speech goes on
// the transcription is dropped; when the utterance ends at that pause,
// Take has its transcript, ready or nearly. It asks Completer, when there
// is one, whether the words so far make a whole request, so that the
// microphone can end the utterance sooner. At most one transcription is
// in flight: a new pause waits for the dropped one to return.
type Speculator struct {
	tr       Transcriber
	complete Completer

	mu      sync.Mutex
	cur     *guess        // the current pause's transcription; nil after Resume
	prev    chan struct{} // closed when the last transcription started has returned
	started int           // transcriptions started
	dropped int           // ... and dropped because the speech went on
}

// guess is one speculative transcription.
type guess struct {
	cancel context.CancelFunc
	done   chan struct{} // closed when tr and err are set
	tr     voice.Transcript
	err    error
}

var _ voice.Pauses = (*Speculator)(nil)

// NewSpeculator returns a Speculator that transcribes with tr; complete
// may be nil. Close it when the recording is over.
func NewSpeculator(tr Transcriber, complete Completer) *Speculator {
	done := make(chan struct{})
	close(done)
	return &Speculator{tr: tr, complete: complete, prev: done}
}

// Pause starts transcribing u in the background under ctx, after the
// transcription before it has returned, and drops any pause not yet
// resumed.
func (s *Speculator) Pause(ctx context.Context, u voice.Utterance) <-chan bool {
	verdict := make(chan bool, 1)
	ctx, cancel := context.WithCancel(ctx)
	g := &guess{cancel: cancel, done: make(chan struct{})}
	s.mu.Lock()
	s.drop()
	s.cur, s.started = g, s.started+1
	prev, ended := s.prev, make(chan struct{})
	s.prev = ended
	s.mu.Unlock()
	go func() {
		defer close(ended)
		defer close(verdict)
		select { // one transcription in flight
		case <-prev:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			g.err = ctx.Err()
		} else {
			g.tr, g.err = s.tr.Transcribe(ctx, u)
		}
		close(g.done)
		if g.err == nil && s.complete != nil && ctx.Err() == nil {
			verdict <- s.complete.Complete(ctx, g.tr.Text, g.tr.Language)
		}
	}()
	return verdict
}

// Resume drops the current pause's transcription: the speech went on.
func (s *Speculator) Resume() {
	s.mu.Lock()
	s.drop()
	s.mu.Unlock()
}

// drop cancels the current guess. Call with mu held.
func (s *Speculator) drop() {
	if s.cur != nil {
		s.cur.cancel()
		s.dropped++
		s.cur = nil
	}
}

// Take waits for the transcription of the last pause, when the speech did
// not go on after it (the utterance ended there), and returns it; ok is
// false when there is none, and the caller transcribes the utterance
// itself, after Close.
func (s *Speculator) Take(ctx context.Context) (tr voice.Transcript, ok bool, err error) {
	s.mu.Lock()
	g := s.cur
	s.mu.Unlock()
	if g == nil {
		return voice.Transcript{}, false, nil
	}
	select {
	case <-g.done:
	case <-ctx.Done():
		return voice.Transcript{}, true, ctx.Err()
	}
	return g.tr, true, g.err
}

// Close drops what is still running, waits for it to return (so that the
// caller's own transcription never overlaps one), and reports how many
// transcriptions were started and how many of them the speech made
// useless.
func (s *Speculator) Close() (started, dropped int) {
	s.mu.Lock()
	if s.cur != nil {
		s.cur.cancel() // taken or not, it is over
		s.cur = nil
	}
	prev := s.prev
	started, dropped = s.started, s.dropped
	s.mu.Unlock()
	<-prev
	return started, dropped
}

// turnSpec is a turn's Speculator and what became of it.
type turnSpec struct {
	s                *Speculator
	closed           bool
	used             bool // the transcript was the one worked out ahead
	started, dropped int
}

// speculator starts a turn's Speculator and hands it to l, when Speculate
// is set; nil otherwise.
func (p *Pipeline) speculator(l *voice.Listen) *turnSpec {
	if !p.opts.Speculate {
		return nil
	}
	ts := &turnSpec{s: NewSpeculator(p.opts.Transcriber, p.opts.Completer)}
	l.Pauses = ts.s
	return ts
}

// transcribe is u's transcript: the one worked out at its last pause when
// the speech did not go on after it, else a new one.
func (ts *turnSpec) transcribe(ctx context.Context, t Transcriber, u voice.Utterance) (voice.Transcript, error) {
	if ts == nil {
		return t.Transcribe(ctx, u)
	}
	tr, ok, err := ts.s.Take(ctx)
	ts.close()
	if ok {
		ts.used = true
		return tr, err
	}
	return t.Transcribe(ctx, u)
}

// close ends the speculation, once, and keeps its counts.
func (ts *turnSpec) close() {
	if ts == nil || ts.closed {
		return
	}
	ts.closed = true
	ts.started, ts.dropped = ts.s.Close()
}
