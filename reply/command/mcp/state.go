package mcp

import (
	"encoding/json"
	"log/slog"
	"maps"
	"os"
	"sync"
	"time"

	"github.com/harkbox/hark/internal/atomicfile"
)

// memo is what the hub remembers between runs, in a small file in the
// data directory: the servers that were down when last tried, and since
// when. A one-shot command does not wait for them; they are still
// started, and join if they answer.
type memo struct {
	path string
	log  *slog.Logger

	mu   sync.Mutex
	down map[string]time.Time
}

type memoFile struct {
	Down map[string]time.Time `json:"down"`
}

// loadMemo reads the file at path; a missing or unreadable file is an
// empty memo (nothing is skipped), and "" keeps the memo in memory only.
func loadMemo(path string, log *slog.Logger) *memo {
	m := &memo{path: path, log: log, down: map[string]time.Time{}}
	if path == "" {
		return m
	}
	b, err := os.ReadFile(path)
	if err != nil {
		if !os.IsNotExist(err) {
			log.Warn("mcp: state file unreadable; waiting for every server", "path", path, "err", err)
		}
		return m
	}
	var f memoFile
	if err := json.Unmarshal(b, &f); err != nil {
		log.Warn("mcp: state file malformed; waiting for every server", "path", path, "err", err)
		return m
	}
	maps.Copy(m.down, f.Down)
	return m
}

// wasDown reports whether the server was down when last tried.
func (m *memo) wasDown(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	_, ok := m.down[name]
	return ok
}

// note records a server's state after a try, writing the file when it
// changed.
func (m *memo) note(name string, up bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, was := m.down[name]; was != up {
		return
	}
	if up {
		delete(m.down, name)
	} else {
		m.down[name] = time.Now()
	}
	if m.path == "" {
		return
	}
	b, _ := json.Marshal(memoFile{Down: m.down})
	if err := atomicfile.Write(m.path, b, 0o600); err != nil {
		m.log.Warn("mcp: state not saved", "err", err)
	}
}
