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
	// Model is the chat model's readiness; nil where the box has none of
	// its own (a node, a stopped box).
	Model *ModelStatus `json:"model,omitempty"`
	// Turns are the turns being answered now: spoken, typed or a node's.
	// The box is idle only with none.
	Turns int `json:"turns,omitempty"`
	// Queue is the queue in front of the model server; nil without one.
	Queue *QueueStatus `json:"queue,omitempty"`
}

// QueueStatus is the queue in front of the model server: how many turns
// go to it at once, how many are under way and waiting, and how long the
// recent ones waited.
type QueueStatus struct {
	// Parallel is how many turns go to the server at once; Learned says it
	// was learned from the server's answers rather than configured.
	Parallel int  `json:"parallel"`
	Learned  bool `json:"learned"`
	InFlight int  `json:"in_flight"`
	Waiting  int  `json:"waiting"`
	// Spoken are the waits of the box's microphone's recent turns; Asked
	// the others' (typed, the web, nodes).
	Spoken Waits `json:"spoken"`
	Asked  Waits `json:"asked"`
}

// Waits are the waits of recent turns, in milliseconds.
type Waits struct {
	Turns     int   `json:"turns"`
	P50Ms     int64 `json:"p50_ms"`
	P95Ms     int64 `json:"p95_ms"`
	LongestMs int64 `json:"longest_ms"`
}

// String is the queue in a line: "one at a time (learned); 1 answering, 2
// waiting; waited: spoken p50 0.4 s, p95 1.2 s (5 turns); typed ...".
func (q QueueStatus) String() string {
	how := fmt.Sprintf("%d at a time", q.Parallel)
	if q.Learned {
		how += " (learned)"
	}
	s := fmt.Sprintf("%s; %d answering, %d waiting", how, q.InFlight, q.Waiting)
	for _, w := range []struct {
		name string
		w    Waits
	}{{"spoken", q.Spoken}, {"typed", q.Asked}} {
		if w.w.Turns > 0 {
			s += fmt.Sprintf("; %s waited p50 %.1f s, p95 %.1f s (%d turns)", w.name, float64(w.w.P50Ms)/1000, float64(w.w.P95Ms)/1000, w.w.Turns)
		}
	}
	return s
}

// ModelStatus is whether the model is loaded on its server: loading (for
// how long), ready (and how long the load and the system prompt took), not
// loaded, or unknown (the server did not say).
type ModelStatus struct {
	Name  string `json:"name"`
	State string `json:"state"` // loading, ready, not loaded, unknown
	// Since is when the load under way began, or when the state was found.
	Since time.Time `json:"since,omitzero"`
	// LoadMs and PromptMs are the last warm-up's: loading the model, then
	// its system prompt; 0 before one.
	LoadMs   int64  `json:"load_ms,omitempty"`
	PromptMs int64  `json:"prompt_ms,omitempty"`
	Error    string `json:"error,omitempty"`
	// Detail says it all in a few words: "loading for 12 s", "ready (load
	// 13.2 s, system prompt 6.8 s)".
	Detail string `json:"detail"`
}

// String is the model and its detail: "llama3.2:3b loading for 12 s".
func (m ModelStatus) String() string { return m.Name + " " + m.Detail }

// Storage is how full the data partition is.
type Storage struct {
	Free  int64 `json:"free"`
	Total int64 `json:"total"`
	// Full is set when the store refuses new writes (below its reserve).
	Full bool `json:"full,omitempty"`
}

// Healthy reports whether the daemon is ready and every check passed, and
// if not, why.
func (s Status) Healthy() (bool, string) {
	if !s.Ready {
		return false, "the pipeline is not armed yet"
	}
	for _, c := range s.Checks {
		if !c.OK {
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
