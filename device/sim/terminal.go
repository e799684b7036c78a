package sim

import (
	"bufio"
	"context"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/voice"
)

// Terminal turns lines typed on standard input into button presses and, when
// there is no speech-to-text engine, into what the user said:
//
//   - Enter on an empty line is a press of the button.
//   - While the pipeline is listening, the next line is what the user said,
//     and its Enter ends the utterance.
//   - A line typed at any other moment is a press and the utterance
//     together (pipeline.Talk): while idle, while the box thinks or speaks
//     (barge-in), and while an alert rings, which it silences. No line is
//     lost or answered out of turn.
//   - "/stop" is a long press (stop everything); "/quit" leaves; other
//     slash commands are the console's own (Handle), such as /clock. None
//     is ever what the user said, even typed while the box listens.
//
// As a microphone, Record captures no audio: it takes the typed line, and
// the terminal's Transcriber hands that line on as the transcript, so the
// speech engines never see typed text.
type Terminal struct {
	in     io.Reader
	screen *Screen
	events chan pipeline.Event
	// typing is the shortest follow-up window: typing takes longer than
	// speaking.
	typing time.Duration
	// button is set when the terminal is only the button (a board whose
	// microphone is real): a typed line is a press and nothing more.
	button bool

	commands map[string]func(arg string) (string, error) // set before Run

	mu      sync.Mutex
	pending []string    // typed ahead of the Record that will take them
	waiting chan string // set while Record waits for a line
	heard   *string     // the line the last Record took, for the Transcriber
}

var _ pipeline.Microphone = (*Terminal)(nil)

// TypingWindow is the shortest follow-up window the terminal keeps open:
// typing an answer takes longer than saying it.
const TypingWindow = 20 * time.Second

// NewTerminal reads lines from in: the button and the microphone.
func NewTerminal(in io.Reader, s *Screen) *Terminal {
	return &Terminal{in: in, screen: s, events: make(chan pipeline.Event), typing: TypingWindow}
}

// NewButton reads lines from in as the button only: every line is a press,
// and what was typed on it is dropped.
func NewButton(in io.Reader, s *Screen) *Terminal {
	t := NewTerminal(in, s)
	t.button = true
	return t
}

// Handle makes "/name arg" a console command: it runs fn and shows the
// line fn returns, or its error, on the screen; it is never a press or
// speech. Call it before Run.
func (t *Terminal) Handle(name string, fn func(arg string) (string, error)) {
	if t.commands == nil {
		t.commands = map[string]func(string) (string, error){}
	}
	t.commands[name] = fn
}

// command runs line when it is a console command, reporting whether it was.
func (t *Terminal) command(line string) bool {
	name, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	fn, ok := t.commands[name]
	if !ok || !strings.HasPrefix(name, "/") {
		return false
	}
	out, err := fn(arg)
	if err != nil {
		out = err.Error()
	}
	t.screen.Println(out)
	return true
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
		ev := pipeline.Press
		switch strings.TrimSpace(line) {
		case "/quit": // never words, even while the box listens
			return
		case "/stop":
			ev = pipeline.Stop
		default:
			if t.command(line) || t.deliver(line) {
				continue
			}
			if strings.TrimSpace(line) != "" && !t.button {
				ev = pipeline.Talk
				t.mu.Lock()
				t.pending = append(t.pending, line)
				t.mu.Unlock()
			}
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
func (t *Terminal) Record(ctx context.Context, l voice.Listen) (voice.Utterance, error) {
	t.mu.Lock()
	t.heard = nil // a cancelled turn's line, never transcribed
	if len(t.pending) > 0 {
		line := t.pending[0]
		t.pending = t.pending[1:]
		t.heard = &line
		t.mu.Unlock()
		return voice.Utterance{}, nil
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
			return voice.Utterance{}, voice.ErrNoSpeech
		}
		t.mu.Lock()
		t.heard = &line
		t.mu.Unlock()
		return voice.Utterance{}, nil
	case <-l.End:
		stopWaiting()
		return voice.Utterance{}, voice.ErrNoSpeech
	case <-window:
		stopWaiting()
		return voice.Utterance{}, voice.ErrNoSpeech
	case <-ctx.Done():
		stopWaiting()
		return voice.Utterance{}, ctx.Err()
	}
}

// Transcriber hands on the line the last Record took (once; a turn
// cancelled before its transcription leaves nothing for the next one, whose
// Record takes its own line): the simulation's speech-to-text without an
// engine. An utterance with audio (there is none
// from the terminal) is ErrNoEngine.
func (t *Terminal) Transcriber() pipeline.Transcriber { return typed{t} }

type typed struct{ t *Terminal }

func (ty typed) Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error) {
	if len(u.Audio.Samples) > 0 {
		return voice.Transcript{}, ErrNoEngine
	}
	t := ty.t
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.heard == nil {
		return voice.Transcript{}, voice.ErrNoSpeech
	}
	line := *t.heard
	t.heard = nil
	return voice.Transcript{Text: line}, nil
}
