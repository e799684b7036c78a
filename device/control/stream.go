package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
)

// ndjson writes one JSON value a line and flushes each, so the client sees
// it at once. The header is written with the first line, so an error that
// comes before any line can still be answered with its own status.
type ndjson struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	mu      sync.Mutex
	started bool
	err     error
}

func newNDJSON(w http.ResponseWriter) *ndjson {
	return &ndjson{w: w, rc: http.NewResponseController(w)}
}

func (s *ndjson) send(v any) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err != nil {
		return s.err
	}
	if !s.started {
		s.w.Header().Set("Content-Type", "application/x-ndjson")
		s.w.WriteHeader(http.StatusOK)
		s.started = true
	}
	if err := json.NewEncoder(s.w).Encode(v); err != nil {
		s.err = err
		return err
	}
	if err := s.rc.Flush(); err != nil {
		s.err = err
	}
	return s.err
}

func serveAsk(w http.ResponseWriter, r *http.Request, a Asker) error {
	var q Question
	if err := readJSON(w, r, &q); err != nil {
		return err
	}
	q.Text = strings.TrimSpace(q.Text)
	if q.Text == "" {
		return fmt.Errorf("%w: the question is empty", ErrInvalid)
	}
	out := newNDJSON(w)
	res, err := a.Ask(r.Context(), q, func(sentence string) {
		out.send(AskEvent{Sentence: sentence})
	}, func(line string) {
		out.send(AskEvent{Notice: line})
	})
	last := AskEvent{}
	if res != nil {
		b, merr := json.Marshal(res)
		if merr != nil {
			return fmt.Errorf("control: ask: %w", merr)
		}
		last.Result = b
	}
	if err != nil {
		last.Error = err.Error()
		var h *HintError
		if errors.As(err, &h) {
			last.Hint = h.Hint
		}
	}
	out.send(last)
	return nil
}

// SetupEvent is one line the server sends during a setup.
type SetupEvent struct {
	Say   string `json:"say,omitempty"`
	Ask   string `json:"ask,omitempty"`
	Done  bool   `json:"done,omitempty"`
	Error string `json:"error,omitempty"`
}

// SetupAnswer is one line the client sends, answering an "ask".
type SetupAnswer struct {
	Answer string `json:"answer"`
}

// streamIO is a setup's conversation over the full-duplex request.
type streamIO struct {
	out *ndjson
	in  *json.Decoder
}

func (s *streamIO) Say(line string) { s.out.send(SetupEvent{Say: line}) }

func (s *streamIO) Ask(q string) (string, error) {
	if err := s.out.send(SetupEvent{Ask: q}); err != nil {
		return "", fmt.Errorf("control: setup: %w", err)
	}
	var a SetupAnswer
	if err := s.in.Decode(&a); err != nil {
		if errors.Is(err, io.EOF) {
			return "", fmt.Errorf("control: setup: no answer: %w", io.ErrUnexpectedEOF)
		}
		return "", fmt.Errorf("control: setup: reading the answer: %w", err)
	}
	return a.Answer, nil
}

func serveSetup(w http.ResponseWriter, r *http.Request, c Commands) error {
	out := newNDJSON(w)
	// The answers arrive in the request body while the response streams.
	if err := out.rc.EnableFullDuplex(); err != nil && !errors.Is(err, http.ErrNotSupported) {
		return fmt.Errorf("control: setup: %w", err)
	}
	err := c.Setup(r.Context(), r.PathValue("name"), &streamIO{out: out, in: json.NewDecoder(io.LimitReader(r.Body, 1<<20))})
	out.mu.Lock()
	started := out.started
	out.mu.Unlock()
	if err != nil && !started {
		return err // nothing streamed yet: answer with the error's own status
	}
	if err != nil {
		out.send(SetupEvent{Error: err.Error()})
		return nil
	}
	out.send(SetupEvent{Done: true})
	return nil
}
