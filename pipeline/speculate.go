package pipeline

import (
	"context"
	"slices"
	"strings"
	"sync"
	"unicode"

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
// microphone can end the utterance sooner, and, when soft sounds go on in
// a pause, whether they hold words (Murmur). At most one transcription is
// in flight: a new one waits for the one before it to return.
type Speculator struct {
	tr       Transcriber
	complete Completer

	mu      sync.Mutex
	cur     *guess        // the current pause's transcription; nil after Resume
	prev    chan struct{} // closed when the last transcription started has returned
	started int           // transcriptions started, Murmur's included
	dropped int           // ... and dropped because the speech went on
}

// guess is one speculative transcription.
type guess struct {
	cancel context.CancelFunc // ends it, and its Murmur's
	done   chan struct{}      // closed when tr and err are set
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
	defer s.mu.Unlock()
	s.drop()
	s.cur = g
	s.inLine(ctx, verdict, func() {
		if ctx.Err() != nil {
			g.err = ctx.Err()
		} else {
			g.tr, g.err = s.tr.Transcribe(ctx, u)
		}
		close(g.done)
		if g.err == nil && s.complete != nil && ctx.Err() == nil {
			verdict <- s.complete.Complete(ctx, g.tr.Text, g.tr.Language)
		}
	})
	return verdict
}

// inLine runs work in the background once the transcription started
// before it has returned (at once when ctx is done), then closes verdict.
// It counts as returned only once the one before it has too, whatever
// ctx: one transcription in flight, and Close waits for them all. Call
// with mu held.
func (s *Speculator) inLine(ctx context.Context, verdict chan bool, work func()) {
	prev, ended := s.prev, make(chan struct{})
	s.prev, s.started = ended, s.started+1
	go func() {
		defer close(ended)
		defer func() { <-prev }()
		defer close(verdict)
		select {
		case <-prev:
		case <-ctx.Done():
		}
		work()
	}()
}

// Murmur transcribes u, the utterance with the soft sounds after the
// current pause, in the background (after the transcription before it has
// returned), and sends true when its words are the pause's: the sounds
// hold none. Nothing is sent when there is no current pause, or when
// either transcription fails.
func (s *Speculator) Murmur(ctx context.Context, u voice.Utterance) <-chan bool {
	verdict := make(chan bool, 1)
	s.mu.Lock()
	defer s.mu.Unlock()
	g := s.cur
	if g == nil {
		close(verdict)
		return verdict
	}
	ctx, cancel := context.WithCancel(ctx)
	stop := g.cancel
	g.cancel = func() { stop(); cancel() }
	s.inLine(ctx, verdict, func() {
		// The pause's transcription was the one before: it has returned.
		if ctx.Err() != nil || g.err != nil {
			return
		}
		tr, err := s.tr.Transcribe(ctx, u)
		if err == nil && ctx.Err() == nil && slices.Equal(wordsIn(tr.Text), wordsIn(g.tr.Text)) {
			verdict <- true
		}
	})
	return verdict
}

// wordsIn are text's words, lower case, without punctuation: a transcript
// with more audio may end its sentence differently.
func wordsIn(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
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
// transcriptions were started (Murmur's among them) and how many pauses
// the speech made useless.
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
	started, dropped int  // transcriptions started (Murmur's among them), pauses dropped
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
