package web

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/harkbox/hark/device/control"
)

// The welcome: after the first password, a few questions, one a page,
// each kept through the settings' own checks (and the model server's
// address checked against the server), each skippable, all of them
// asked again from the settings page.

// step is one question of the welcome.
type step struct {
	Name, Title string
	// keys are the settings the step keeps, in the form's field names.
	keys []string
	// board marks a step only a board has (its speaker and microphone).
	board bool
}

var steps = []step{
	{Name: "name", Title: "What shall it be called?", keys: []string{"assistant.name"}},
	{Name: "room", Title: "Which room is it in?", keys: []string{"assistant.room"}},
	{Name: "time", Title: "Which time zone?", keys: []string{"assistant.time_zone"}},
	{Name: "place", Title: "Where is home?", keys: []string{"assistant.place", "weather.location"}},
	{Name: "language", Title: "Which language?", keys: []string{"whisper.language", "tts.voice"}},
	{Name: "model", Title: "Where does it think?", keys: []string{"ollama.host", "ollama.model"}},
	{Name: "home", Title: "Home Assistant (if you have one)"},
	{Name: "sound", Title: "Can it hear and be heard?", board: true},
	{Name: "done", Title: "All set"},
}

// welcomeView is what the welcome's template gets.
type welcomeView struct {
	Step     step
	Steps    []step
	Index    int // from 1
	Next     string
	Values   map[string]string // the settings' current values
	Zones    []string
	Models   *control.ModelServer
	Trial    *control.Trial
	Lines    []string // what Home Assistant's setup said
	Pending  bool     // settings kept that apply at the next start
	Simulate bool
}

func (s *Server) welcomeRoutes(handle func(string, pageHandler)) {
	handle("GET /setup/{step}", s.welcomePage)
	handle("POST /setup/{step}", s.welcomePost)
	handle("GET /welcome", func(w http.ResponseWriter, r *request) {
		http.Redirect(w, r.Request, "/setup/"+steps[0].Name, http.StatusSeeOther)
	})
}

// stepsHere are the welcome's steps on this box: a simulation has no
// speaker or microphone of its own to test.
func (s *Server) stepsHere() []step {
	sim := s.o.Network == nil || s.o.Network.Simulated()
	var out []step
	for _, st := range steps {
		if !st.board || !sim {
			out = append(out, st)
		}
	}
	return out
}

// stepOf is the step of the request's address and what comes after it.
func (s *Server) stepOf(r *request) (step, int, string, bool) {
	here := s.stepsHere()
	i := slices.IndexFunc(here, func(st step) bool { return st.Name == r.PathValue("step") })
	if i < 0 {
		return step{}, 0, "", false
	}
	next := "/"
	if i+1 < len(here) {
		next = "/setup/" + here[i+1].Name
	}
	return here[i], i, next, true
}

func (s *Server) welcomeView(r *request, v *view, st step, i int, next string) *welcomeView {
	wv := &welcomeView{Step: st, Steps: s.stepsHere(), Index: i + 1, Next: next, Values: map[string]string{},
		Simulate: s.o.Network == nil || s.o.Network.Simulated()}
	if list, err := s.o.API.Settings.List(r.Context()); err == nil {
		for _, set := range list {
			wv.Values[set.Key] = set.Value
			if set.Saved != "" {
				wv.Values[set.Key], wv.Pending = set.Saved, true
			}
		}
	}
	if st.Name == "time" {
		wv.Zones = zones()
	}
	for k, typed := range v.Form {
		wv.Values[k] = typed
	}
	v.Data = wv
	return wv
}

func (s *Server) welcomePage(w http.ResponseWriter, r *request) {
	if s.o.API.Settings == nil {
		s.unserved(w, r, "Welcome", "settings")
		return
	}
	st, i, next, ok := s.stepOf(r)
	if !ok {
		v := s.page(r, "No such page", "")
		v.Error = "There is no step " + r.PathValue("step") + " in the welcome."
		s.render(w, http.StatusNotFound, "message", v)
		return
	}
	v := s.page(r, st.Title, "settings")
	s.welcomeView(r, &v, st, i, next)
	s.render(w, http.StatusOK, "welcome", v)
}

// welcomePost keeps a step's answers, each checked by the settings' rules,
// and goes on to the next step; "skip" goes on keeping nothing.
func (s *Server) welcomePost(w http.ResponseWriter, r *request) {
	if s.o.API.Settings == nil {
		s.unserved(w, r, "Welcome", "settings")
		return
	}
	st, i, next, ok := s.stepOf(r)
	if !ok {
		http.NotFound(w, r.Request)
		return
	}
	if r.PostFormValue("skip") != "" {
		http.Redirect(w, r.Request, next, http.StatusSeeOther)
		return
	}
	v := s.page(r, st.Title, "settings")
	switch st.Name {
	case "model":
		s.welcomeModel(w, r, v, st, i, next)
		return
	case "home":
		s.welcomeHome(w, r, v, st, i, next)
		return
	case "done":
		s.welcomeDone(w, r)
		return
	}
	values := stepValues(st, r)
	for _, k := range st.keys {
		v.Form[k] = values[k]
	}
	if s.keepAll(r.Context(), &v, st.keys, values) {
		s.back(w, r, next, "Kept.")
		return
	}
	s.welcomeView(r, &v, st, i, next)
	s.render(w, http.StatusBadRequest, "welcome", v)
}

// stepValues are the settings a step's form gives: one field for the
// place (the model's and the weather's), the voice from the language.
func stepValues(st step, r *request) map[string]string {
	out := map[string]string{}
	for _, k := range st.keys {
		out[k] = strings.TrimSpace(r.PostFormValue(k))
	}
	switch st.Name {
	case "place":
		out["weather.location"] = out["assistant.place"]
	case "language":
		if l := out["whisper.language"]; l != "auto" && l != "" {
			out["tts.voice"] = l
		} else {
			delete(out, "tts.voice")
		}
	}
	return out
}

// keepAll keeps each of keys' values, reporting whether all were kept; a
// refused one is set by its field.
func (s *Server) keepAll(ctx context.Context, v *view, keys []string, values map[string]string) bool {
	ok := true
	for _, k := range keys {
		val, given := values[k]
		if !given {
			continue
		}
		if err := s.o.API.Settings.Set(ctx, k, val); err != nil {
			v.Field[k] = sentence(err)
			ok = false
		}
	}
	return ok
}

// welcomeModel asks the server at the address typed for its models; with
// a model chosen, asks it the test question and keeps both once it
// answered.
func (s *Server) welcomeModel(w http.ResponseWriter, r *request, v view, st step, i int, next string) {
	host, model := strings.TrimSpace(r.PostFormValue("host")), strings.TrimSpace(r.PostFormValue("model"))
	v.Form["ollama.host"], v.Form["ollama.model"] = host, model
	wv := s.welcomeView(r, &v, st, i, next)
	if s.o.API.Probe == nil {
		v.Error = "This box cannot check a model server."
		s.render(w, http.StatusNotFound, "welcome", v)
		return
	}
	ms, err := s.o.API.Probe.Models(r.Context(), host)
	switch {
	case errors.Is(err, control.ErrInvalid):
		v.Field["ollama.host"] = sentence(err)
		s.render(w, http.StatusBadRequest, "welcome", v)
		return
	case err != nil:
		v.Field["ollama.host"] = sentence(err)
		s.render(w, http.StatusOK, "welcome", v)
		return
	}
	wv.Models = &ms
	if model == "" {
		if len(ms.Models) == 0 {
			v.Field["ollama.host"] = fmt.Sprintf("The server at %s has no models yet: pull one there (ollama pull llama3.2:3b), then look again.", ms.Host)
		}
		s.render(w, http.StatusOK, "welcome", v)
		return
	}
	tr, err := s.o.API.Probe.Try(r.Context(), host, model)
	if err != nil {
		v.Field["ollama.model"] = sentence(err)
		s.render(w, http.StatusOK, "welcome", v)
		return
	}
	wv.Trial = &tr
	if !s.keepAll(r.Context(), &v, st.keys, map[string]string{"ollama.host": host, "ollama.model": model}) {
		s.render(w, http.StatusBadRequest, "welcome", v)
		return
	}
	s.log.Info("model server chosen in the welcome", "host", ms.Host, "model", model)
	v.Flash = fmt.Sprintf("Kept: %s at %s answered.", model, ms.Host)
	s.render(w, http.StatusOK, "welcome", v)
}

// welcomeHome sets up Home Assistant through the command's own setup,
// which checks the address and token with the server before keeping them.
func (s *Server) welcomeHome(w http.ResponseWriter, r *request, v view, st step, i int, next string) {
	wv := s.welcomeView(r, &v, st, i, next)
	addr := strings.TrimSpace(r.PostFormValue("address"))
	v.Form["address"] = addr // never the token
	if s.o.API.Commands == nil {
		v.Error = "This box has no Home Assistant commands."
		s.render(w, http.StatusNotFound, "welcome", v)
		return
	}
	io := &scripted{answers: []string{addr, r.PostFormValue("token")}}
	err := s.o.API.Commands.Setup(r.Context(), "home_control", io)
	wv.Lines = io.said
	if err != nil {
		v.Field["address"] = sentence(err)
		s.render(w, http.StatusBadRequest, "welcome", v)
		return
	}
	s.back(w, r, next, "Home Assistant answered; its address and token are kept.")
}

// welcomeDone ends the welcome: settings that wait for the next start
// apply now.
func (s *Server) welcomeDone(w http.ResponseWriter, r *request) {
	s.restart(w, r, "/", "Hark is starting again with what you told it; this page comes back in a few seconds.")
}

// scripted answers a command's setup from a form: its answers in order.
type scripted struct {
	answers []string
	said    []string
}

var _ control.SetupIO = (*scripted)(nil)

func (s *scripted) Ask(q string) (string, error) {
	if len(s.answers) == 0 {
		return "", fmt.Errorf("the setup asked more than the form says: %s", q)
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a, nil
}

func (s *scripted) Say(line string) { s.said = append(s.said, line) }
