package sim

import (
	"bytes"
	"io"
	"sync"
)

// Screen is the terminal the simulation draws on: a status line at the
// bottom that stands for the LEDs, and ordinary lines above it. On a terminal
// the status line is redrawn in place; elsewhere (a pipe, a log file) each
// status change is printed as a line of its own. Screen is safe for
// concurrent use, and is an io.Writer so logs can be printed through it.
type Screen struct {
	mu     sync.Mutex
	w      io.Writer
	tty    bool
	status string
}

// NewScreen draws on w; tty says whether w is a terminal.
func NewScreen(w io.Writer, tty bool) *Screen { return &Screen{w: w, tty: tty} }

const (
	clearLine = "\r\033[K"
	// prompt ends the status line on a terminal, so that what the user
	// types stands apart from it.
	prompt = " › "
)

// Status replaces the status line.
func (s *Screen) Status(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if line == s.status {
		return
	}
	s.status = line
	if s.tty {
		io.WriteString(s.w, clearLine+line+prompt)
	} else {
		io.WriteString(s.w, "[leds] "+line+"\n")
	}
}

// Println prints a line above the status line.
func (s *Screen) Println(line string) {
	s.Write([]byte(line + "\n"))
}

// Write prints p, which should end in a newline, above the status line.
func (s *Screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b bytes.Buffer
	if s.tty {
		b.WriteString(clearLine)
	}
	b.Write(p)
	if s.tty && s.status != "" {
		b.WriteString(s.status + prompt)
	}
	if _, err := s.w.Write(b.Bytes()); err != nil {
		return 0, err
	}
	return len(p), nil
}

// End clears the status line, leaving the cursor at the start of an empty
// line, for when the program stops.
func (s *Screen) End() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tty && s.status != "" {
		io.WriteString(s.w, clearLine)
	}
	s.status = ""
}
