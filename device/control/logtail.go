package control

import (
	"bytes"
	"sync"
)

// LogTail keeps the last lines written to it, for GET /api/v1/logs: put it
// beside the daemon's other log outputs. It is safe for concurrent use.
type LogTail struct {
	mu      sync.Mutex
	lines   []string // a ring of cap lines
	next    int
	full    bool
	partial []byte
}

// NewLogTail keeps up to n lines.
func NewLogTail(n int) *LogTail { return &LogTail{lines: make([]string, max(n, 1))} }

// Write adds the complete lines of p; a line's end may come in a later
// Write.
func (t *LogTail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	rest := p
	for {
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			t.partial = append(t.partial, rest...)
			return len(p), nil
		}
		line := string(append(t.partial, rest[:i]...))
		t.partial = t.partial[:0]
		rest = rest[i+1:]
		t.lines[t.next] = line
		t.next = (t.next + 1) % len(t.lines)
		if t.next == 0 {
			t.full = true
		}
	}
}

// Tail returns up to the last n complete lines, oldest first.
func (t *LogTail) Tail(n int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var all []string
	if t.full {
		all = append(all, t.lines[t.next:]...)
	}
	all = append(all, t.lines[:t.next]...)
	if n < len(all) {
		all = all[len(all)-n:]
	}
	return all
}
