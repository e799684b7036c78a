package web

import (
	"encoding/json"
	"fmt"
	"net/http"

	"slices"
	"time"

	"github.com/harkbox/hark/device/control"
)

// pollEvery is how often the event stream looks for a new state or log
// lines.
const pollEvery = time.Second

// events streams server-sent events: "state" (the box's status, when it
// changes); with ?turns, "turns" (the last turns, when one more is
// over); "alerts" (the timers, alarms and reminders and what rings,
// when they change); with ?logs=LEVEL, "log" (each new log line at LEVEL or
// above); with ?update, "update" (the install's progress, when it moves).
func (s *Server) events(w http.ResponseWriter, r *request) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming is not supported here", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	level, logs := r.URL.Query().Get("logs"), r.URL.Query().Has("logs")
	updates := r.URL.Query().Has("update") && s.o.API.Updates != nil
	var lastState, lastJob, lastAlerts, lastTurns []byte
	turns := r.URL.Query().Has("turns") && s.o.API.Turns != nil
	var lastLines []string
	if logs {
		lastLines = s.logLines(level, 200) // the page shows these already
	}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		full := s.o.API.Box.Status(r.Context())
		// what the page shows live: not the free space, which moves with
		// every log line
		st, _ := json.Marshal(struct {
			State  string          `json:"state"`
			Ready  bool            `json:"ready"`
			Checks []control.Check `json:"checks"`
			Answer control.Answer  `json:"answer"`
		}{full.State, full.Ready, full.Checks, full.CanAnswer()})
		if string(st) != string(lastState) {
			fmt.Fprintf(w, "event: state\ndata: %s\n\n", st)
			lastState = st
		}
		if al := s.alertsEvent(r.Context()); al != nil && string(al) != string(lastAlerts) {
			fmt.Fprintf(w, "event: alerts\ndata: %s\n\n", al)
			lastAlerts = al
		}
		if turns {
			if ts, err := s.o.API.Turns.Turns(r.Context()); err == nil {
				if b, _ := json.Marshal(ts); string(b) != string(lastTurns) {
					fmt.Fprintf(w, "event: turns\ndata: %s\n\n", b)
					lastTurns = b
				}
			}
		}
		if updates {
			if st, err := s.o.API.Updates.Status(r.Context()); err == nil {
				if job, _ := json.Marshal(st.Job); string(job) != string(lastJob) {
					fmt.Fprintf(w, "event: update\ndata: %s\n\n", job)
					lastJob = job
				}
			}
		}
		if logs {
			lines := s.logLines(level, 200)
			for _, l := range newLines(lastLines, lines) {
				b, _ := json.Marshal(l)
				fmt.Fprintf(w, "event: log\ndata: %s\n\n", b)
			}
			lastLines = lines
		}
		fl.Flush()
		select {
		case <-r.Context().Done():
			return
		case <-tick.C:
		}
		if !s.access.alive(r.token) {
			return // logged out, or idle too long, meanwhile
		}
	}
}

// newLines are the lines of now that came after those of before: now's
// lines after the longest suffix of before that starts now.
func newLines(before, now []string) []string {
	for k := min(len(before), len(now)); k > 0; k-- {
		if slices.Equal(before[len(before)-k:], now[:k]) {
			return now[k:]
		}
	}
	return now
}
