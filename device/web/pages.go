package web

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/harkbox/hark/device/control"
)

// next is where to go after logging in: a page of this site only.
func next(r *http.Request) string {
	return localPath(r.FormValue("next"))
}

// localPath is n when it is a path on this page, else "/": never another
// site, however a browser might read it ("//host", "/\\host", a scheme,
// control characters).
func localPath(n string) string {
	u, err := url.Parse(n)
	if err != nil || !strings.HasPrefix(n, "/") || u.Scheme != "" || u.Host != "" || u.User != nil ||
		strings.HasPrefix(n, "//") || strings.Contains(n, `\`) || strings.ContainsFunc(n, unicode.IsControl) {
		return "/"
	}
	return n
}

func (s *Server) setupPage(w http.ResponseWriter, r *http.Request) {
	if _, pending := s.access.setupCode(); !pending {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	s.render(w, http.StatusOK, "setup", view{Title: "Set up", Field: map[string]string{}, Data: s.fingerprint()})
}

func (s *Server) setupPost(w http.ResponseWriter, r *http.Request) {
	v := view{Title: "Set up", Field: map[string]string{}, Data: s.fingerprint()}
	password := r.PostFormValue("password")
	if c := r.PostFormValue("confirm"); c != "" && c != password {
		v.Field["confirm"] = "The two passwords differ."
		s.render(w, http.StatusBadRequest, "setup", v)
		return
	}
	t, err := s.access.setup(r.Context(), source(r), strings.TrimSpace(r.PostFormValue("code")), password)
	switch {
	case errors.Is(err, errLocked):
		v.Error = sentence(err)
		s.render(w, http.StatusTooManyRequests, "setup", v)
		return
	case errors.Is(err, errBusy):
		v.Error = sentence(err)
		s.render(w, http.StatusTooManyRequests, "setup", v)
		return
	case errors.Is(err, errWrongCode):
		s.log.Warn("wrong setup code on the web page", "from", r.RemoteAddr)
		v.Field["code"] = sentence(err)
		s.render(w, http.StatusForbidden, "setup", v)
		return
	case errors.Is(err, errSetUp):
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	case errors.Is(err, errPassword):
		v.Field["password"] = sentence(err)
		s.render(w, http.StatusBadRequest, "setup", v)
		return
	case err != nil:
		v.Error = sentence(err)
		s.render(w, http.StatusInternalServerError, "setup", v)
		return
	}
	s.log.Info("web page set up", "from", r.RemoteAddr)
	setSession(w, r, t)
	to := "/"
	if s.o.API.Settings != nil {
		to = "/setup/" + steps[0].Name // the welcome
	}
	http.Redirect(w, r, to, http.StatusSeeOther)
}

func (s *Server) loginPage(w http.ResponseWriter, r *http.Request) {
	if _, pending := s.access.setupCode(); pending {
		to := "/setup"
		if n := next(r); n != "/" {
			to += "?next=" + url.QueryEscape(n)
		}
		http.Redirect(w, r, to, http.StatusSeeOther)
		return
	}
	s.render(w, http.StatusOK, "login", view{Title: "Log in", Field: map[string]string{}, Form: map[string]string{"next": next(r)}})
}

func (s *Server) loginPost(w http.ResponseWriter, r *http.Request) {
	v := view{Title: "Log in", Field: map[string]string{}, Form: map[string]string{"next": next(r)}}
	t, err := s.access.login(r.Context(), source(r), r.PostFormValue("password"))
	switch {
	case errors.Is(err, errLocked), errors.Is(err, errBusy):
		v.Error = sentence(err)
		s.render(w, http.StatusTooManyRequests, "login", v)
		return
	case errors.Is(err, errWrong):
		s.log.Warn("wrong password on the web page", "from", r.RemoteAddr)
		v.Field["password"] = sentence(err)
		s.render(w, http.StatusForbidden, "login", v)
		return
	case err != nil:
		v.Error = sentence(err)
		s.render(w, http.StatusInternalServerError, "login", v)
		return
	}
	setSession(w, r, t)
	http.Redirect(w, r, next(r), http.StatusSeeOther)
}

// routes are the pages behind the login.
func (s *Server) routes(handle func(string, pageHandler)) {
	handle("GET /{$}", s.statusPage)
	handle("GET /status", s.statusPage)
	// any other address: the login for a stranger, "no such page" for a
	// user
	handle("/", func(w http.ResponseWriter, r *request) {
		v := s.page(r, "No such page", "")
		v.Error = "There is no page at " + r.URL.Path + "."
		s.render(w, http.StatusNotFound, "message", v)
	})
	handle("GET /timers", s.timersPage)
	handle("POST /timers", s.timersAdd)
	handle("POST /timers/{id}/cancel", s.timersCancel)
	handle("GET /memory", s.memoryPage)
	handle("POST /memory/{id}/forget", s.memoryForget)
	handle("GET /conversations", s.conversationsPage)
	handle("POST /conversations/{id}/delete", s.conversationsDelete)
	handle("POST /conversations/delete", s.conversationsDeleteAll)
	handle("GET /secrets", s.secretsPage)
	handle("POST /secrets", s.secretsSet)
	handle("POST /secrets/{name}/clear", s.secretsClear)
	handle("GET /commands", s.commandsPage)
	handle("GET /logs", s.logsPage)
	handle("GET /logs/download", s.logsDownload)
	handle("GET /events", s.events)
	s.alertRoutes(handle)
	s.welcomeRoutes(handle)
	s.talkRoutes(handle)
	s.settingsRoutes(handle)
	s.networkRoutes(handle, s.o.Network)
	s.updatesRoutes(handle)
	s.setupRoutes(handle)
	handle("GET /account", s.accountPage)
	handle("POST /account/password", s.accountPassword)
	handle("POST /logout", func(w http.ResponseWriter, r *request) {
		s.access.close(r.token)
		clearSession(w)
		http.Redirect(w, r.Request, "/login", http.StatusSeeOther)
	})
	handle("POST /logout-all", func(w http.ResponseWriter, r *request) {
		s.access.closeAll()
		clearSession(w)
		s.log.Info("every web session logged out", "from", r.RemoteAddr)
		http.Redirect(w, r.Request, "/login", http.StatusSeeOther)
	})
}

// unserved is the page of a resource this daemon does not offer.
func (s *Server) unserved(w http.ResponseWriter, r *request, title, nav string) {
	v := s.page(r, title, nav)
	v.Error = "Hark does not offer that here."
	s.render(w, http.StatusNotFound, "message", v)
}

func (s *Server) statusPage(w http.ResponseWriter, r *request) {
	v := s.page(r, "Status", "status")
	st := s.o.API.Box.Status(r.Context())
	healthy, why := st.Healthy()
	var slots []control.UpdateSlot
	if s.o.API.Updates != nil {
		if u, err := s.o.API.Updates.Status(r.Context()); err == nil {
			slots = u.Slots
		}
	}
	v.Data = struct {
		control.Status
		Answer  control.Answer
		Healthy bool
		Why     string
		Version string
		Slots   []control.UpdateSlot
	}{st, st.CanAnswer(), healthy, why, s.o.Version, slots}
	s.render(w, http.StatusOK, "status", v)
}

func (s *Server) timersPage(w http.ResponseWriter, r *request) {
	if s.o.API.Alerts == nil {
		s.unserved(w, r, "Timers", "timers")
		return
	}
	s.showTimers(w, r, s.page(r, "Timers, alarms and reminders", "timers"), http.StatusOK)
}

func (s *Server) showTimers(w http.ResponseWriter, r *request, v view, code int) {
	list, err := s.o.API.Alerts.List(r.Context(), true)
	if err != nil {
		v.Error = sentence(err)
		code = status(err)
	}
	v.Data = list
	s.render(w, code, "timers", v)
}

func (s *Server) timersAdd(w http.ResponseWriter, r *request) {
	if s.o.API.Alerts == nil {
		s.unserved(w, r, "Timers", "timers")
		return
	}
	v := s.page(r, "Timers, alarms and reminders", "timers")
	kind := r.PostFormValue("kind")
	v.Form = map[string]string{"kind": kind, "name": r.PostFormValue("name"), "minutes": r.PostFormValue("minutes"), "at": r.PostFormValue("at")}
	na := control.NewAlert{Kind: kind, Name: strings.TrimSpace(r.PostFormValue("name"))}
	switch kind {
	case "timer":
		m, err := strconv.ParseFloat(strings.TrimSpace(r.PostFormValue("minutes")), 64)
		if err != nil || m <= 0 {
			v.Field["minutes"] = "Say how many minutes, a number above zero."
			s.showTimers(w, r, v, http.StatusBadRequest)
			return
		}
		na.In = time.Duration(m * float64(time.Minute))
	case "alarm", "reminder":
		at, err := time.ParseInLocation("2006-01-02T15:04", r.PostFormValue("at"), s.o.Location)
		if err != nil {
			v.Field["at"] = "Pick a day and a time."
			s.showTimers(w, r, v, http.StatusBadRequest)
			return
		}
		na.At = at
	default:
		v.Field["kind"] = "Choose a timer, an alarm or a reminder."
		s.showTimers(w, r, v, http.StatusBadRequest)
		return
	}
	a, err := s.o.API.Alerts.Add(r.Context(), na)
	if err != nil {
		field := "name"
		if kind == "timer" {
			field = "minutes"
		} else if strings.Contains(err.Error(), "time") || strings.Contains(err.Error(), "past") {
			field = "at"
		}
		v.Field[field] = sentence(err)
		s.showTimers(w, r, v, status(err))
		return
	}
	if a.Held {
		s.back(w, r, "/timers", fmt.Sprintf("The %s is set for %s, once the box's clock is set.", a.Kind, a.Due.In(s.o.Location).Format("15:04 MST")))
		return
	}
	s.back(w, r, "/timers", fmt.Sprintf("The %s is set for %s.", a.Kind, a.Due.In(s.o.Location).Format("15:04 MST on Mon 2 Jan")))
}

func (s *Server) timersCancel(w http.ResponseWriter, r *request) {
	if s.o.API.Alerts == nil {
		s.unserved(w, r, "Timers", "timers")
		return
	}
	id := r.PathValue("id")
	done := "Cancelled."
	for _, a := range s.ringing(r.Context()) {
		if a.ID == id {
			done = "Stopped."
		}
	}
	if err := s.o.API.Alerts.Cancel(r.Context(), id); err != nil {
		v := s.page(r, "Timers, alarms and reminders", "timers")
		v.Error = sentence(err)
		s.showTimers(w, r, v, status(err))
		return
	}
	s.back(w, r, "/timers", done)
}

func (s *Server) memoryPage(w http.ResponseWriter, r *request) {
	if s.o.API.Memory == nil {
		s.unserved(w, r, "Memory", "memory")
		return
	}
	v := s.page(r, "What I remember", "memory")
	facts, err := s.o.API.Memory.Facts(r.Context())
	code := http.StatusOK
	if err != nil {
		v.Error, code = sentence(err), status(err)
	}
	v.Data = facts
	s.render(w, code, "memory", v)
}

func (s *Server) memoryForget(w http.ResponseWriter, r *request) {
	if s.o.API.Memory == nil {
		s.unserved(w, r, "Memory", "memory")
		return
	}
	if err := s.o.API.Memory.Forget(r.Context(), r.PathValue("id")); err != nil {
		s.back(w, r, "/memory", sentence(err))
		return
	}
	s.back(w, r, "/memory", "Forgotten.")
}

func (s *Server) conversationsPage(w http.ResponseWriter, r *request) {
	if s.o.API.Memory == nil {
		s.unserved(w, r, "Conversations", "conversations")
		return
	}
	v := s.page(r, "Conversations", "conversations")
	cs, err := s.o.API.Memory.Conversations(r.Context())
	code := http.StatusOK
	if err != nil {
		v.Error, code = sentence(err), status(err)
	}
	v.Data = cs
	s.render(w, code, "conversations", v)
}

func (s *Server) conversationsDelete(w http.ResponseWriter, r *request) {
	if s.o.API.Memory == nil {
		s.unserved(w, r, "Conversations", "conversations")
		return
	}
	if err := s.o.API.Memory.DeleteConversation(r.Context(), r.PathValue("id")); err != nil {
		s.back(w, r, "/conversations", sentence(err))
		return
	}
	s.back(w, r, "/conversations", "The conversation is deleted.")
}

func (s *Server) conversationsDeleteAll(w http.ResponseWriter, r *request) {
	if s.o.API.Memory == nil {
		s.unserved(w, r, "Conversations", "conversations")
		return
	}
	cs, err := s.o.API.Memory.Conversations(r.Context())
	if err != nil {
		s.back(w, r, "/conversations", sentence(err))
		return
	}
	if r.PostFormValue("confirm") != "yes" {
		v := s.page(r, "Delete every conversation?", "conversations")
		v.Data = len(cs)
		s.render(w, http.StatusOK, "confirm", v)
		return
	}
	for _, c := range cs {
		if err := s.o.API.Memory.DeleteConversation(r.Context(), c.ID); err != nil && !errors.Is(err, control.ErrNotFound) {
			s.back(w, r, "/conversations", sentence(err))
			return
		}
	}
	s.back(w, r, "/conversations", fmt.Sprintf("All %d conversations are deleted.", len(cs)))
}

func (s *Server) secretsPage(w http.ResponseWriter, r *request) {
	if s.o.API.Secrets == nil {
		s.unserved(w, r, "Secrets", "secrets")
		return
	}
	s.showSecrets(w, r, s.page(r, "Secrets", "secrets"), http.StatusOK)
}

// showSecrets lists the secrets' names and the commands that need them;
// a value is never shown.
func (s *Server) showSecrets(w http.ResponseWriter, r *request, v view, code int) {
	names, err := s.o.API.Secrets.Names(r.Context())
	if err != nil {
		v.Error, code = sentence(err), status(err)
	}
	needed := map[string][]string{}
	if s.o.API.Commands != nil {
		if cmds, err := s.o.API.Commands.List(r.Context()); err == nil {
			for _, c := range cmds {
				for _, sec := range c.Secrets {
					needed[sec.Key] = append(needed[sec.Key], c.Name)
				}
			}
		}
	}
	type row struct {
		Name     string
		Set      bool
		Commands string
	}
	var rows []row
	seen := map[string]bool{}
	for _, n := range names {
		rows = append(rows, row{n, true, strings.Join(needed[n], ", ")})
		seen[n] = true
	}
	for k, cmds := range needed {
		if !seen[k] {
			rows = append(rows, row{k, false, strings.Join(cmds, ", ")})
		}
	}
	v.Data = rows
	s.render(w, code, "secrets", v)
}

func (s *Server) secretsSet(w http.ResponseWriter, r *request) {
	if s.o.API.Secrets == nil {
		s.unserved(w, r, "Secrets", "secrets")
		return
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	v := s.page(r, "Secrets", "secrets")
	v.Form["name"] = name // never the value
	if r.PostFormValue("value") == "" {
		v.Field["value"] = "Type the value to keep."
		s.showSecrets(w, r, v, http.StatusBadRequest)
		return
	}
	if err := s.o.API.Secrets.Set(r.Context(), name, r.PostFormValue("value")); err != nil {
		v.Field["name"] = sentence(err)
		s.showSecrets(w, r, v, status(err))
		return
	}
	s.back(w, r, "/secrets", name+" is set.")
}

func (s *Server) secretsClear(w http.ResponseWriter, r *request) {
	if s.o.API.Secrets == nil {
		s.unserved(w, r, "Secrets", "secrets")
		return
	}
	if err := s.o.API.Secrets.Unset(r.Context(), r.PathValue("name")); err != nil {
		s.back(w, r, "/secrets", sentence(err))
		return
	}
	s.back(w, r, "/secrets", r.PathValue("name")+" is cleared.")
}

func (s *Server) commandsPage(w http.ResponseWriter, r *request) {
	if s.o.API.Commands == nil {
		s.unserved(w, r, "Commands", "commands")
		return
	}
	v := s.page(r, "Commands", "commands")
	cmds, err := s.o.API.Commands.List(r.Context())
	code := http.StatusOK
	if err != nil {
		v.Error, code = sentence(err), status(err)
	}
	v.Data = cmds
	s.render(w, code, "commands", v)
}

// levels are the log levels the log page filters by, lowest first.
var levels = []string{"DEBUG", "INFO", "WARN", "ERROR"}

// logLines are the last lines at level or above.
func (s *Server) logLines(level string, n int) []string {
	if s.o.API.Logs == nil {
		return nil
	}
	min := 0
	for i, l := range levels {
		if strings.EqualFold(l, level) {
			min = i
		}
	}
	var out []string
	for _, line := range s.o.API.Logs.Tail(n) {
		at := 1 // a line without a level counts as info
		for i, l := range levels {
			if strings.Contains(line, "level="+l) {
				at = i
			}
		}
		if at >= min {
			out = append(out, line)
		}
	}
	return out
}

func (s *Server) logsPage(w http.ResponseWriter, r *request) {
	if s.o.API.Logs == nil {
		s.unserved(w, r, "Logs", "logs")
		return
	}
	v := s.page(r, "Logs", "logs")
	level := r.FormValue("level")
	if level == "" {
		level = "INFO"
	}
	v.Form["level"] = strings.ToUpper(level)
	v.Data = struct {
		Levels []string
		Lines  []string
	}{levels, s.logLines(level, 200)}
	s.render(w, http.StatusOK, "logs", v)
}

func (s *Server) logsDownload(w http.ResponseWriter, r *request) {
	if s.o.API.Logs == nil {
		s.unserved(w, r, "Logs", "logs")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="hark-`+time.Now().Format("20060102-150405")+`.log"`)
	for _, l := range s.logLines(r.FormValue("level"), 10000) {
		fmt.Fprintln(w, l)
	}
}

func (s *Server) accountPage(w http.ResponseWriter, r *request) {
	s.render(w, http.StatusOK, "account", s.page(r, "Account", "account"))
}

func (s *Server) accountPassword(w http.ResponseWriter, r *request) {
	v := s.page(r, "Account", "account")
	if r.PostFormValue("confirm") != r.PostFormValue("password") {
		v.Field["confirm"] = "The two new passwords differ."
		s.render(w, http.StatusBadRequest, "account", v)
		return
	}
	err := s.access.changePassword(r.Context(), source(r.Request), r.token, r.PostFormValue("old"), r.PostFormValue("password"))
	switch {
	case errors.Is(err, errWrong):
		v.Field["old"] = sentence(err)
	case errors.Is(err, errLocked), errors.Is(err, errBusy):
		v.Error = sentence(err)
	case errors.Is(err, errPassword):
		v.Field["password"] = sentence(err)
	case err != nil:
		v.Error = sentence(err)
	default:
		s.back(w, r, "/account", "The password is changed; every other browser is logged out.")
		return
	}
	s.render(w, http.StatusBadRequest, "account", v)
}
