package control

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Check is one item of the self-test.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
	// Data marks a failing check as a fault of the data partition (a
	// card read-only, damaged or not mounted): the box needs care, but a
	// system update neither caused it nor cures it, so the boot check
	// passes it and never rolls the system back for it.
	Data bool `json:"data,omitempty"`
}

// Status is the daemon's answer to "how are you?".
type Status struct {
	State   string  `json:"state"` // the pipeline's: idle, listening, ...
	Ready   bool    `json:"ready"` // the pipeline is armed
	Version string  `json:"version"`
	Checks  []Check `json:"checks"`
	// Links are the box's connections to other machines (a node's command
	// center): shown, but not part of the self-test, so a center that is
	// down never fails an update's health check.
	Links []Check `json:"links,omitempty"`
	// Started is when the daemon started; zero when none runs.
	Started time.Time `json:"started,omitzero"`
	// Storage is the data partition's use; nil when unknown.
	Storage *Storage `json:"storage,omitempty"`
	// Clock is the box's wall clock; nil when unknown.
	Clock *Clock `json:"clock,omitempty"`
}

// Clock is the box's wall clock. It is not part of the self-test: a box
// whose clock is not set yet still works (timers ring), so it never fails
// an update's health check.
type Clock struct {
	// Now is the box's time, in Zone.
	Now time.Time `json:"now"`
	// Zone is the household's time zone (an IANA name): every time a
	// person reads is in it.
	Zone string `json:"zone"`
	// Synced is set once NTP has set the clock; until then alarms and
	// reminders at a clock time wait.
	Synced bool `json:"synced"`
}

// String is the clock as a person reads it.
func (c Clock) String() string {
	s := c.Now.Format("Mon 2 Jan 2006 15:04 MST") + " (" + c.Zone + "), "
	if c.Synced {
		return s + "synchronised"
	}
	return s + "not synchronised yet: alarms and reminders at a time of day wait for it"
}

// Storage is how full the data partition is.
type Storage struct {
	Free  int64 `json:"free"`
	Total int64 `json:"total"`
	// Full is set when the store refuses new writes (below its reserve).
	Full bool `json:"full,omitempty"`
}

// Healthy reports whether the daemon is ready and every check passed but
// those of the data partition (Check.Data), and if not, why.
func (s Status) Healthy() (bool, string) {
	if !s.Ready {
		return false, "the pipeline is not armed yet"
	}
	for _, c := range s.Checks {
		if !c.OK && !c.Data {
			return false, c.Name + ": " + c.Detail
		}
	}
	return true, ""
}

// Box is what the socket serves.
type Box interface {
	Status(ctx context.Context) Status
	// WaitIdle returns once the speaker is idle: no conversation, no
	// timer ringing.
	WaitIdle(ctx context.Context) error
	// SetUpdating shows (or clears) that an update is being installed.
	SetUpdating(active bool, percent int)
}

// Update is what POST /updating carries.
type Update struct {
	Active  bool `json:"active"`
	Percent int  `json:"percent"`
}

// Serve listens on the unix socket at path (replacing a stale one) and
// serves h until ctx is done. The socket file is readable and writable by
// the owner and group only, and every connection carries its peer's
// identity (see the package documentation). A nil log discards the
// server's own complaints.
func Serve(ctx context.Context, path string, h http.Handler, log *slog.Logger) error {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return fmt.Errorf("control: socket %s: %w", path, err)
	}
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("control: socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o660); err != nil {
		ln.Close()
		return fmt.Errorf("control: socket %s: %w", path, err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, ConnContext: peerIdentity,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	err = srv.Serve(ln)
	os.Remove(path)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("control: socket %s: %w", path, err)
}
