package sim

import (
	"context"
	"sync"

	"github.com/harkbox/hark/gpio/leds"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/voice"
)

// light is one look of the simulated ring.
type light struct{ glyph, color, label string }

// starting is the box whose model is still loading.
var starting = light{"◌", "\033[33m", "starting: the model is loading"}

// lights is how each state looks on the simulated LED ring.
var lights = map[voice.State]light{
	voice.Idle:         {"○", "\033[2m", "idle: press Enter to talk, or type and press Enter"},
	voice.Listening:    {"●", "\033[34m", "listening: type what you say, Enter ends it"},
	voice.Transcribing: {"◐", "\033[36m", "transcribing"},
	voice.Thinking:     {"◑", "\033[33m", "thinking: Enter cancels"},
	voice.Speaking:     {"◉", "\033[32m", "speaking: Enter cancels"},
	voice.Error:        {"✖", "\033[31m", "error"},
	voice.Ringing:      {"⏰", "\033[35m", "ringing: Enter stops it"},
}

// Lights is the simulated LED ring: the status line shows the pipeline's
// state as the board's ring would, starting (the model still loading)
// over idle and thinking by the ring's own rule. It is safe for concurrent
// use.
type Lights struct {
	s        *Screen
	mu       sync.Mutex
	st       leds.Status
	followed bool // a state came from the pipeline
}

// NewLights draws on s.
func NewLights(s *Screen) *Lights { return &Lights{s: s} }

// SetStarting shows or clears that the model is loading.
func (l *Lights) SetStarting(on bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.st.Starting = on
	if l.followed {
		l.draw()
	}
}

// show draws the pipeline's state st.
func (l *Lights) show(st voice.State, followUp bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.st.State, l.st.FollowUp, l.followed = st, followUp, true
	l.draw()
}

// draw puts the status line on the screen, under l.mu.
func (l *Lights) draw() {
	if leds.Choose(l.st, false).Name == leds.Starting.Name {
		l.s.Status(lit(starting, l.s.tty))
		return
	}
	line := lit(lights[l.st.State], l.s.tty)
	if l.st.State == voice.Listening && l.st.FollowUp {
		line += " (follow-up: answer, or wait)"
	}
	l.s.Status(line)
}

// Follow shows the pipeline on the screen until ctx is done: the LED status
// line, what was heard and what Hark says. It reads every state from feed,
// which never holds the pipeline up.
func (l *Lights) Follow(ctx context.Context, feed *pipeline.Feed) {
	s := l.s
	for {
		st, err := feed.Next(ctx)
		if err != nil {
			return
		}
		switch {
		case st.State == voice.Thinking && st.Text != "":
			s.Println("you:  " + st.Text)
		case (st.State == voice.Speaking || st.State == voice.Ringing) && st.Text != "":
			s.Println("hark: " + st.Text)
		case st.State == voice.Error && st.Err != nil:
			// What was said says what went wrong; the error itself, in
			// the words of the code, is in the log.
			s.Println("      (that did not work out; the log says why)")
		}
		l.show(st.State, st.FollowUp)
	}
}

func lit(l light, color bool) string {
	if !color {
		return l.glyph + " " + l.label
	}
	return l.color + l.glyph + "\033[0m " + l.label
}
