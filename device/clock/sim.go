package clock

import (
	"crypto/rand"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Sim is a simulated board's clock: the computer's clock plus an offset,
// set or not, stepped as NTP (Sync) or a person (Step) would step a board's.
// It is safe for concurrent use.
type Sim struct {
	boot    string
	mu      sync.Mutex
	offset  time.Duration
	synced  bool
	changed changes
}

// NewSim returns a clock that boots reading boot, not synchronised; a zero
// boot is the computer's own time, synchronised.
func NewSim(boot time.Time) *Sim {
	if boot.IsZero() {
		return &Sim{boot: rand.Text(), synced: true}
	}
	return &Sim{boot: rand.Text(), offset: time.Until(boot)}
}

// Boot names this Sim: each is a board booted anew.
func (s *Sim) Boot() string { return s.boot }

// Now is the simulated wall time, without a monotonic reading.
func (s *Sim) Now() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return time.Now().Add(s.offset).Round(0)
}

// Synced reports whether the clock was synchronised (by Sync).
func (s *Sim) Synced() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.synced
}

// Changed is closed at the next Step or Sync.
func (s *Sim) Changed() <-chan struct{} { return s.changed.next() }

// Step sets the wall clock to to, synchronised or not.
func (s *Sim) Step(to time.Time, synced bool) {
	s.mu.Lock()
	s.offset, s.synced = time.Until(to), synced
	s.mu.Unlock()
	s.changed.signal()
}

// Sync steps the clock to the computer's time and marks it synchronised,
// as NTP does on a board.
func (s *Sim) Sync() { s.Step(time.Now(), true) }

// Command runs the simulation console's /clock: "sync" is Sync, an RFC
// 3339 time steps the clock there (not synchronised), nothing shows the
// clock. It returns the line to show, with the time in loc.
func (s *Sim) Command(arg string, loc *time.Location) (string, error) {
	switch arg = strings.TrimSpace(arg); arg {
	case "sync":
		s.Sync()
	case "":
	default:
		t, err := time.Parse(time.RFC3339, arg)
		if err != nil {
			return "", fmt.Errorf("clock: %q is not sync or an RFC 3339 time such as 2024-01-01T07:00:00Z", arg)
		}
		s.Step(t, false)
	}
	state := "not synchronised"
	if s.Synced() {
		state = "synchronised"
	}
	return fmt.Sprintf("clock: %s (%s), %s", s.Now().In(loc).Format("Mon 2 Jan 2006 15:04:05 MST"), loc, state), nil
}
