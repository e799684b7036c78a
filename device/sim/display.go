package sim

import (
	"context"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/voice"
)

// lights is how each state looks on the simulated LED ring.
var lights = map[voice.State]struct{ glyph, color, label string }{
	voice.Idle:         {"○", "\033[2m", "idle: press Enter to talk, or type and press Enter"},
	voice.Listening:    {"●", "\033[34m", "listening: type what you say, Enter ends it"},
	voice.Transcribing: {"◐", "\033[36m", "transcribing"},
	voice.Thinking:     {"◑", "\033[33m", "thinking: Enter cancels"},
	voice.Speaking:     {"◉", "\033[32m", "speaking: Enter cancels"},
	voice.Error:        {"✖", "\033[31m", "error"},
	voice.Ringing:      {"⏰", "\033[35m", "ringing: Enter stops it"},
}

// Display shows the pipeline on the screen until ctx is done: the LED status
// line, what was heard and what Hark says. It reads every state from feed,
// which never holds the pipeline up.
func Display(ctx context.Context, feed *pipeline.Feed, s *Screen) {
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
		line := ledLine(st.State, s.tty)
		if st.State == voice.Listening && st.FollowUp {
			line += " (follow-up: answer, or wait)"
		}
		s.Status(line)
	}
}

func ledLine(st voice.State, color bool) string {
	l := lights[st]
	if !color {
		return l.glyph + " " + l.label
	}
	return l.color + l.glyph + "\033[0m " + l.label
}
