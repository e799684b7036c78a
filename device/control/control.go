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
	"strings"
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
	// Model is the chat model's readiness; nil where the box has none of
	// its own (a node, a stopped box).
	Model *ModelStatus `json:"model,omitempty"`
	// Turns are the turns being answered now: spoken, typed or a node's.
	// The box is idle only with none.
	Turns int `json:"turns,omitempty"`
	// Queue is the queue in front of the model server; nil without one.
	Queue *QueueStatus `json:"queue,omitempty"`
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

// socketIdle is how long the socket keeps a connection idle after its
// request, and socketHeader bounds a request's headers: the hark commands
// send a few hundred bytes.
var socketIdle = 2 * time.Minute

const socketHeader = 16 << 10

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
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second, IdleTimeout: socketIdle, MaxHeaderBytes: socketHeader, ConnContext: peerIdentity,
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

// Answer is the status's answer to the question a person asks first:
// can it answer me? Can is "yes", "partly" or "no"; Sentence says so in
// one plain sentence, Todo what to do about it, and Fix, when set, is the
// web page where that is done.
type Answer struct {
	Can      string `json:"can"`
	Sentence string `json:"sentence"`
	Todo     string `json:"todo,omitempty"`
	Fix      string `json:"fix,omitempty"`
}

// OK reports whether the box answers fully.
func (a Answer) OK() bool { return a.Can == "yes" }

// CanAnswer says whether the box can answer a person, and if not, why and
// what to do: a box that is stopped or starting cannot; one whose
// microphone or speech-to-text fails cannot hear; one that cannot reach
// any model server (or its center) answers only its built-in commands.
func (s Status) CanAnswer() Answer {
	switch {
	case s.State == "stopped":
		return Answer{Can: "no", Sentence: "No: Hark is not running.", Todo: "Start it: on the speaker, systemctl start hark (or hark run)."}
	case !s.Ready:
		return Answer{Can: "no", Sentence: "Not yet: it is still starting.", Todo: "Give it a minute. If this stays, the details below say what it waits for."}
	}
	for _, c := range s.Checks {
		if c.OK {
			continue
		}
		switch c.Name {
		case "microphone":
			return Answer{Can: "no", Sentence: "No: it cannot hear you, because its microphone is not working.", Todo: "Check the microphone's cable or board, then restart the speaker."}
		case "speech-to-text":
			return Answer{Can: "no", Sentence: "No: it cannot make out words, because its speech recognition did not load.", Todo: "Restart the speaker; if that does not help, look at the logs for the speech model."}
		case "storage":
			return Answer{Can: "partly", Sentence: "Partly: it answers, but cannot remember anything new.", Todo: "Delete old conversations, or free space on the SD card.", Fix: "/conversations"}
		}
	}
	var model []Check
	for _, l := range s.Links {
		if l.Name == "model server" || strings.HasPrefix(l.Name, "model ") || l.Name == "center" {
			model = append(model, l)
		}
	}
	up := 0
	for _, l := range model {
		if l.OK {
			up++
		}
	}
	if len(model) > 0 && up == 0 {
		where, _, _ := strings.Cut(model[0].Detail, ",")
		if model[0].Name == "center" {
			return Answer{Can: "partly", Sentence: "Only simple things: it cannot reach its command center (" + where + "), so it sets timers and tells the time, but answers no questions.",
				Todo: "Check that the center's computer is on and hark center runs there."}
		}
		return Answer{Can: "partly", Sentence: "Only simple things: it cannot reach its model server (" + where + "), so it sets timers and tells the time, but answers no questions.",
			Todo: "Start Ollama on that computer (ollama serve), or choose another model server.", Fix: "/setup/model"}
	}
	return Answer{Can: "yes", Sentence: "Yes: it can hear you and answer you."}
}
