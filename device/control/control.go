// Package control is the running daemon's local control socket: a small
// HTTP API on a unix socket through which Hark's other commands (the update
// agent, the boot health check) ask how the box is and tell it what they
// are doing. Only local processes with access to the socket file reach it.
package control

import (
	"context"
	"encoding/json"
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

// Handler is the API: GET /status, GET /idle (answers once idle),
// POST /updating.
func Handler(b Box) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, b.Status(r.Context()))
	})
	mux.HandleFunc("GET /idle", func(w http.ResponseWriter, r *http.Request) {
		if err := b.WaitIdle(r.Context()); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		writeJSON(w, map[string]string{"state": "idle"})
	})
	mux.HandleFunc("POST /updating", func(w http.ResponseWriter, r *http.Request) {
		var u Update
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1024)).Decode(&u); err != nil {
			http.Error(w, "bad update: "+err.Error(), http.StatusBadRequest)
			return
		}
		b.SetUpdating(u.Active, u.Percent)
		w.WriteHeader(http.StatusNoContent)
	})
	return mux
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// Serve listens on the unix socket at path (replacing a stale one) and
// serves b until ctx is done. The socket is readable and writable by the
// owner and group only.
func Serve(ctx context.Context, path string, b Box, log *slog.Logger) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	os.Remove(path)
	ln, err := net.Listen("unix", path)
	if err != nil {
		return fmt.Errorf("control socket: %w", err)
	}
	if err := os.Chmod(path, 0o660); err != nil {
		ln.Close()
		return fmt.Errorf("control socket: %w", err)
	}
	srv := &http.Server{Handler: Handler(b), ReadHeaderTimeout: 5 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	err = srv.Serve(ln)
	os.Remove(path)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return fmt.Errorf("control socket: %w", err)
}
