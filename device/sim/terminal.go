package sim

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/pipeline"
)

// Terminal turns lines typed on standard input into button presses and, when
// there is no speech-to-text engine, into utterances:
//
//   - Enter on an empty line is a press of the button.
//   - While the pipeline is listening, the next line is what the user said,
//     and its Enter ends the utterance.
//   - A line typed while idle is a press and the utterance together.
//   - "/stop" is a long press (stop everything); "/quit" leaves.
type Terminal struct {
	in     io.Reader
	screen *Screen
	events chan pipeline.Event
	// typing is the shortest follow-up window: typing takes longer than
	// speaking.
	typing time.Duration

	mu      sync.Mutex
	pending []string    // typed ahead of the Record that will take them
	waiting chan string // set while Record waits for a line
}

var _ pipeline.Microphone = (*Terminal)(nil)

// TypingWindow is the shortest follow-up window the terminal keeps open:
// typing an answer takes longer than saying it.
const TypingWindow = 20 * time.Second

// NewTerminal reads lines from in.
func NewTerminal(in io.Reader, s *Screen) *Terminal {
	return &Terminal{in: in, screen: s, events: make(chan pipeline.Event), typing: TypingWindow}
}

// Events delivers the button presses. It is closed when input ends or the
// user types /quit.
func (t *Terminal) Events() <-chan pipeline.Event { return t.events }

// Run reads input until it ends, the user quits, or ctx is done. A read
// already blocked on the input outlives Run until the input is closed; for
// standard input that is when the process exits.
func (t *Terminal) Run(ctx context.Context) {
	defer close(t.events)
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(t.in)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			return
		case line, ok = <-lines:
			if !ok {
				return
			}
		}
		if t.deliver(line) {
			continue
		}
		ev := pipeline.Press
		switch strings.TrimSpace(line) {
		case "/quit":
			return
		case "/stop":
			ev = pipeline.Stop
		case "":
		default:
			t.mu.Lock()
			t.pending = append(t.pending, line)
			t.mu.Unlock()
		}
		select {
		case t.events <- ev:
		case <-ctx.Done():
			return
		}
	}
}

// deliver hands line to a waiting Record and reports whether there was one.
func (t *Terminal) deliver(line string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.waiting == nil {
		return false
	}
	t.waiting <- line // buffered, and only one line per wait
	t.waiting = nil
	return true
}

// Record returns the line the user typed: one typed together with the press,
// or the next line. An empty line, the button ending the utterance before
// any line, or no line within a follow-up window (at least TypingWindow) is
// ErrNoSpeech.
func (t *Terminal) Record(ctx context.Context, l pipeline.Listen) (pipeline.Utterance, error) {
	t.mu.Lock()
	if len(t.pending) > 0 {
		line := t.pending[0]
		t.pending = t.pending[1:]
		t.mu.Unlock()
		return pipeline.Utterance{Typed: line}, nil
	}
	ch := make(chan string, 1)
	t.waiting = ch
	t.mu.Unlock()
	stopWaiting := func() {
		t.mu.Lock()
		if t.waiting == ch {
			t.waiting = nil
		}
		t.mu.Unlock()
	}
	var window <-chan time.Time
	if l.StartTimeout > 0 {
		timer := time.NewTimer(max(l.StartTimeout, t.typing))
		defer timer.Stop()
		window = timer.C
	}
	select {
	case line := <-ch:
		if strings.TrimSpace(line) == "" {
			return pipeline.Utterance{}, pipeline.ErrNoSpeech
		}
		return pipeline.Utterance{Typed: line}, nil
	case <-l.End:
		stopWaiting()
		return pipeline.Utterance{}, pipeline.ErrNoSpeech
	case <-window:
		stopWaiting()
		return pipeline.Utterance{}, pipeline.ErrNoSpeech
	case <-ctx.Done():
		stopWaiting()
		return pipeline.Utterance{}, ctx.Err()
	}
}
