package web

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
)

func (s *Server) settingsRoutes(handle func(string, pageHandler)) {
	handle("GET /settings", s.settingsPage)
	handle("POST /settings", s.settingsSave)
	handle("POST /settings/restart", s.settingsRestart)
}

func (s *Server) settingsPage(w http.ResponseWriter, r *request) {
	if s.o.API.Settings == nil {
		s.unserved(w, r, "Settings", "settings")
		return
	}
	s.showSettings(w, r, s.page(r, "Settings", "settings"), http.StatusOK)
}

func (s *Server) showSettings(w http.ResponseWriter, r *request, v view, code int) {
	list, err := s.o.API.Settings.List(r.Context())
	if err != nil {
		v.Error, code = sentence(err), status(err)
	}
	pending := false
	for _, st := range list {
		pending = pending || st.Saved != ""
	}
	v.Data = struct {
		Sections []section
		Pending  bool
		Zones    []string
	}{sectionsOf(list, v.Form, v.Field), pending, zones()}
	s.render(w, code, "settings", v)
}

// settingsSave keeps every setting the form changed, each checked by the
// configuration's rules; a refused one is shown by its field, and the
// others are still kept. A field is changed when it differs from what the
// page showed (was.KEY): a value that changed meanwhile (a volume said
// aloud) is not overwritten by a page loaded before it.
func (s *Server) settingsSave(w http.ResponseWriter, r *request) {
	if s.o.API.Settings == nil {
		s.unserved(w, r, "Settings", "settings")
		return
	}
	list, err := s.o.API.Settings.List(r.Context())
	if err != nil {
		s.back(w, r, "/settings", sentence(err))
		return
	}
	v := s.page(r, "Settings", "settings")
	var saved []string
	for _, st := range list {
		typed, ok := r.PostForm[st.Key]
		if !ok || len(typed) == 0 || st.Locked != "" {
			continue
		}
		value := strings.TrimSpace(typed[len(typed)-1]) // a switch sends "false", then "true" when on
		shown := st.Value
		if st.Saved != "" {
			shown = st.Saved
		}
		if was, ok := r.PostForm["was."+st.Key]; ok && len(was) > 0 {
			shown = was[0]
		}
		if value == shown {
			continue
		}
		if err := s.o.API.Settings.Set(r.Context(), st.Key, value); err != nil {
			v.Field[st.Key] = sentence(err)
			v.Form[st.Key] = value
			continue
		}
		saved = append(saved, st.Key)
	}
	if len(v.Field) > 0 {
		if len(saved) > 0 {
			v.Flash = fmt.Sprintf("Kept: %s. The others below need a look.", labels(saved))
		}
		s.showSettings(w, r, v, http.StatusBadRequest)
		return
	}
	if len(saved) == 0 {
		s.back(w, r, "/settings", "Nothing changed.")
		return
	}
	s.log.Info("settings kept", "keys", saved, "from", r.RemoteAddr)
	var now, later []string // in use at once, or after a restart
	after, err := s.o.API.Settings.List(r.Context())
	for _, st := range after {
		if slices.Contains(saved, st.Key) {
			if st.Saved != "" || err != nil {
				later = append(later, st.Key)
			} else {
				now = append(now, st.Key)
			}
		}
	}
	var msg []string
	if len(now) > 0 {
		msg = append(msg, fmt.Sprintf("In use now: %s.", labels(now)))
	}
	if len(later) > 0 {
		msg = append(msg, fmt.Sprintf("Kept for when Hark starts again: %s. Restart it below.", labels(later)))
	}
	s.back(w, r, "/settings", strings.Join(msg, " "))
}

// labels names settings in words, joined.
func labels(keys []string) string {
	var out []string
	for _, k := range keys {
		out = append(out, strings.ToLower(label(k)[:1])+label(k)[1:])
	}
	return strings.Join(out, ", ")
}

func (s *Server) settingsRestart(w http.ResponseWriter, r *request) {
	if s.o.API.Settings == nil {
		s.unserved(w, r, "Settings", "settings")
		return
	}
	s.restart(w, r, "/settings", "Hark is starting again with the settings kept; this page comes back in a few seconds.")
}

// restart starts the daemon again, applying the settings kept, and says
// so on a page that goes back to then after a few seconds.
func (s *Server) restart(w http.ResponseWriter, r *request, then, said string) {
	if err := s.o.API.Settings.Restart(r.Context()); err != nil {
		s.back(w, r, then, sentence(err))
		return
	}
	v := s.page(r, "Restarting", "settings")
	v.Flash = said
	w.Header().Set("Refresh", "5; url="+then)
	s.render(w, http.StatusOK, "message", v)
}
