package web

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/harkbox/hark/device/control"
)

// A command's setup is a conversation (questions, answers, lines said),
// run by the daemon's own setup handler. On the page it runs in the
// background, one per browser session: each question is a form, each
// answer a post.

// setupIdle ends a setup nobody answered for this long.
const setupIdle = 5 * time.Minute

// flow is one command's setup under way.
type flow struct {
	command string
	cancel  context.CancelFunc

	mu       sync.Mutex
	lines    []string // what the setup said, and the questions asked
	question string   // the question waiting for an answer; "" for none
	answers  chan string
	changed  chan struct{} // closed and replaced when the state moves
	done     bool
	err      error
}

// Ask shows the question and waits for the browser's answer.
func (f *flow) Ask(q string) (string, error) {
	f.mu.Lock()
	f.question = q
	f.moved()
	f.mu.Unlock()
	select {
	case a := <-f.answers:
		return a, nil
	case <-time.After(setupIdle):
		return "", errors.New("nobody answered for five minutes: the setup stopped")
	}
}

// Say adds a line to the transcript.
func (f *flow) Say(line string) {
	f.mu.Lock()
	f.lines = append(f.lines, line)
	f.moved()
	f.mu.Unlock()
}

// moved wakes whoever waits for the setup's next state; the caller holds mu.
func (f *flow) moved() {
	close(f.changed)
	f.changed = make(chan struct{})
}

// view is the flow's state for the page.
type flowView struct {
	Command, Question string
	Lines             []string
	Done              bool
	Error             string
	Secret            bool // the question asks for something not to show
}

func (f *flow) view() flowView {
	f.mu.Lock()
	defer f.mu.Unlock()
	v := flowView{Command: f.command, Question: f.question, Lines: append([]string(nil), f.lines...), Done: f.done}
	if f.err != nil {
		v.Error = sentence(f.err)
	}
	v.Secret = control.AsksSecret(f.question)
	return v
}

// settle waits a little for the setup to ask its next question or end,
// so the page after a post shows where it went.
func (f *flow) settle(d time.Duration) {
	deadline := time.After(d)
	for {
		f.mu.Lock()
		ch := f.changed
		waiting := f.question == "" && !f.done
		f.mu.Unlock()
		if !waiting {
			return
		}
		select {
		case <-ch:
		case <-deadline:
			return
		}
	}
}

func (s *Server) setupRoutes(handle func(string, pageHandler)) {
	handle("POST /commands/{name}/setup", s.commandSetupStart)
	handle("GET /commands/{name}/setup", s.commandSetupPage)
	handle("POST /commands/{name}/setup/answer", s.commandSetupAnswer)
}

// flowOf is the browser's setup of the command, if one runs.
func (s *Server) flowOf(r *request) *flow {
	s.flowsMu.Lock()
	defer s.flowsMu.Unlock()
	f := s.flows[r.token]
	if f == nil || f.command != r.PathValue("name") {
		return nil
	}
	return f
}

func (s *Server) commandSetupStart(w http.ResponseWriter, r *request) {
	if s.o.API.Commands == nil {
		s.unserved(w, r, "Commands", "commands")
		return
	}
	name := r.PathValue("name")
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), 2*setupIdle)
	f := &flow{command: name, cancel: cancel, answers: make(chan string), changed: make(chan struct{})}
	s.flowsMu.Lock()
	if old := s.flows[r.token]; old != nil {
		old.cancel()
	}
	s.flows[r.token] = f
	s.flowsMu.Unlock()
	go func() {
		err := s.o.API.Commands.Setup(ctx, name, f)
		cancel()
		f.mu.Lock()
		f.done, f.err, f.question = true, err, ""
		f.moved()
		f.mu.Unlock()
	}()
	f.settle(5 * time.Second)
	http.Redirect(w, r.Request, "/commands/"+name+"/setup", http.StatusSeeOther)
}

func (s *Server) commandSetupPage(w http.ResponseWriter, r *request) {
	f := s.flowOf(r)
	if f == nil {
		s.back(w, r, "/commands", "No setup of "+r.PathValue("name")+" is running: start it again.")
		return
	}
	v := s.page(r, "Set up "+r.PathValue("name"), "commands")
	v.Data = f.view()
	s.render(w, http.StatusOK, "setupflow", v)
}

func (s *Server) commandSetupAnswer(w http.ResponseWriter, r *request) {
	f := s.flowOf(r)
	if f == nil {
		s.back(w, r, "/commands", "No setup of "+r.PathValue("name")+" is running: start it again.")
		return
	}
	f.mu.Lock()
	asked := f.question != ""
	f.question = ""
	f.mu.Unlock()
	if asked {
		select {
		case f.answers <- r.PostFormValue("answer"):
		case <-time.After(5 * time.Second):
		}
		f.settle(10 * time.Second) // a setup may check what it was told with a server
	}
	http.Redirect(w, r.Request, "/commands/"+r.PathValue("name")+"/setup", http.StatusSeeOther)
}
