package control

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// handlerFunc serves one endpoint; its error is written as JSON.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// routes registers endpoints, each behind the administrator check.
type routes func(pattern string, f handlerFunc)

// Handler is the API's handler: every /api/v1 endpoint of the package
// documentation, each refused unless the request's identity is the local
// administrator. A resource the API does not have answers 404 saying so.
func Handler(a API) http.Handler {
	mux := http.NewServeMux()
	h := routes(func(pattern string, f handlerFunc) { mux.Handle(pattern, admin(f)) })
	boxRoutes(h, a.Box)
	alertRoutes(h.of("alerts", a.Alerts != nil), a.Alerts)
	secretRoutes(h.of("secrets", a.Secrets != nil), a.Secrets)
	commandRoutes(h.of("commands", a.Commands != nil), a.Commands)
	mcpRoutes(h.of("mcp", a.MCP != nil), a.MCP)
	settingRoutes(h.of("settings", a.Settings != nil), a.Settings)
	updateRoutes(h.of("updates", a.Updates != nil), a.Updates)
	webRoutes(h, a.Web)
	memoryRoutes(h.of("memory", a.Memory != nil), a.Memory)
	askRoutes(h.of("ask", a.Asker != nil), a.Asker)
	logRoutes(h.of("logs", a.Logs != nil), a.Logs)
	probeRoutes(h.of("model checks", a.Probe != nil), a.Probe)
	h.of("voice", a.Voice != nil)("POST /api/v1/voice", func(w http.ResponseWriter, r *http.Request) error {
		var q Question
		if err := readJSON(w, r, &q); err != nil {
			return err
		}
		if strings.TrimSpace(q.Text) == "" {
			return fmt.Errorf("%w: no text to say", ErrInvalid)
		}
		wav, err := a.Voice.WAV(r.Context(), q.Text, q.Language)
		if err != nil {
			return err
		}
		w.Header().Set("Content-Type", "audio/wav")
		_, err = w.Write(wav)
		return err
	})
	h.of("turns", a.Turns != nil)("GET /api/v1/turns", func(w http.ResponseWriter, r *http.Request) error {
		l, err := a.Turns.Turns(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, nonNil(l))
	})
	mux.Handle("/", admin(func(w http.ResponseWriter, r *http.Request) error {
		return fmt.Errorf("%w: no endpoint %s %s", ErrNotFound, r.Method, r.URL.Path)
	}))
	return mux
}

// of is h for the resource what: its endpoints, when served, else each
// answering that this daemon does not serve it.
func (h routes) of(what string, served bool) routes {
	if served {
		return h
	}
	return func(pattern string, _ handlerFunc) {
		h(pattern, func(http.ResponseWriter, *http.Request) error { return notServed(what) })
	}
}

func boxRoutes(h routes, b Box) {
	h("GET /api/v1/status", func(w http.ResponseWriter, r *http.Request) error {
		return writeJSON(w, b.Status(r.Context()))
	})
	h("GET /api/v1/idle", func(w http.ResponseWriter, r *http.Request) error {
		if err := b.WaitIdle(r.Context()); err != nil {
			return fmt.Errorf("%w: %w", ErrUnavailable, err)
		}
		return writeJSON(w, map[string]string{"state": "idle"})
	})
	h("POST /api/v1/updating", func(w http.ResponseWriter, r *http.Request) error {
		var u Update
		if err := readJSON(w, r, &u); err != nil {
			return err
		}
		b.SetUpdating(u.Active, u.Percent)
		w.WriteHeader(http.StatusNoContent)
		return nil
	})
}

func alertRoutes(h routes, a Alerts) {
	h("GET /api/v1/alerts", func(w http.ResponseWriter, r *http.Request) error {
		all, _ := strconv.ParseBool(r.URL.Query().Get("all"))
		l, err := a.List(r.Context(), all)
		if err != nil {
			return err
		}
		return writeJSON(w, nonNil(l))
	})
	h("POST /api/v1/alerts", func(w http.ResponseWriter, r *http.Request) error {
		var na NewAlert
		if err := readJSON(w, r, &na); err != nil {
			return err
		}
		al, err := a.Add(r.Context(), na)
		if err != nil {
			return err
		}
		w.WriteHeader(http.StatusCreated)
		return writeJSON(w, al)
	})
	h("DELETE /api/v1/alerts/{id}", func(w http.ResponseWriter, r *http.Request) error {
		return noContent(w, a.Cancel(r.Context(), r.PathValue("id")))
	})
	h("POST /api/v1/alerts/stop", func(w http.ResponseWriter, r *http.Request) error {
		stopped, err := a.Stop(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, Stopped{Stopped: stopped})
	})
}

func secretRoutes(h routes, s Secrets) {
	h("GET /api/v1/secrets", func(w http.ResponseWriter, r *http.Request) error {
		names, err := s.Names(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, nonNil(names))
	})
	h("PUT /api/v1/secrets/{name}", func(w http.ResponseWriter, r *http.Request) error {
		var v SecretValue
		if err := readJSON(w, r, &v); err != nil {
			return err
		}
		if v.Value == "" {
			return fmt.Errorf("%w: the value of %s is empty (DELETE removes a secret)", ErrInvalid, r.PathValue("name"))
		}
		return noContent(w, s.Set(r.Context(), r.PathValue("name"), v.Value))
	})
	h("DELETE /api/v1/secrets/{name}", func(w http.ResponseWriter, r *http.Request) error {
		return noContent(w, s.Unset(r.Context(), r.PathValue("name")))
	})
}

func commandRoutes(h routes, c Commands) {
	h("GET /api/v1/commands", func(w http.ResponseWriter, r *http.Request) error {
		l, err := c.List(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, nonNil(l))
	})
	h("POST /api/v1/commands/{name}/setup", func(w http.ResponseWriter, r *http.Request) error {
		return serveSetup(w, r, c)
	})
}

func mcpRoutes(h routes, m MCP) {
	h("GET /api/v1/mcp", func(w http.ResponseWriter, r *http.Request) error {
		l, err := m.Servers(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, nonNil(l))
	})
}

func settingRoutes(h routes, s Settings) {
	h("GET /api/v1/settings", func(w http.ResponseWriter, r *http.Request) error {
		l, err := s.List(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, nonNil(l))
	})
	h("PUT /api/v1/settings/{key}", func(w http.ResponseWriter, r *http.Request) error {
		var v SettingValue
		if err := readJSON(w, r, &v); err != nil {
			return err
		}
		return noContent(w, s.Set(r.Context(), r.PathValue("key"), v.Value))
	})
	h("POST /api/v1/restart", func(w http.ResponseWriter, r *http.Request) error {
		return noContent(w, s.Restart(r.Context()))
	})
}

func updateRoutes(h routes, u Updates) {
	h("GET /api/v1/updates", func(w http.ResponseWriter, r *http.Request) error {
		st, err := u.Status(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, st)
	})
	h("POST /api/v1/updates/check", func(w http.ResponseWriter, r *http.Request) error {
		st, err := u.Check(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, st)
	})
	h("POST /api/v1/updates/install", func(w http.ResponseWriter, r *http.Request) error {
		var src UpdateSource
		if err := readJSON(w, r, &src); err != nil {
			return err
		}
		return noContent(w, u.Install(r.Context(), src.Source))
	})
	h("PUT /api/v1/updates/bundle", func(w http.ResponseWriter, r *http.Request) error {
		return noContent(w, u.Upload(r.Context(), r.Body))
	})
	h("POST /api/v1/updates/rollback", func(w http.ResponseWriter, r *http.Request) error {
		return noContent(w, u.Rollback(r.Context()))
	})
}

func webRoutes(h routes, web Web) {
	h("GET /api/v1/web/code", func(w http.ResponseWriter, r *http.Request) error {
		if web == nil {
			return fmt.Errorf("%w: the web page runs with the daemon (hark run), and this one has none ([web] listen is empty)", ErrUnavailable)
		}
		c, err := web.Code(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, c)
	})
	h("POST /api/v1/web/reset", func(w http.ResponseWriter, r *http.Request) error {
		if web == nil {
			return fmt.Errorf("%w: this daemon has no web page", ErrUnavailable)
		}
		c, err := web.Reset(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, c)
	})
}

func memoryRoutes(h routes, m Memory) {
	h("GET /api/v1/facts", func(w http.ResponseWriter, r *http.Request) error {
		l, err := m.Facts(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, nonNil(l))
	})
	h("DELETE /api/v1/facts/{id}", func(w http.ResponseWriter, r *http.Request) error {
		return noContent(w, m.Forget(r.Context(), r.PathValue("id")))
	})
	h("GET /api/v1/conversations", func(w http.ResponseWriter, r *http.Request) error {
		l, err := m.Conversations(r.Context())
		if err != nil {
			return err
		}
		return writeJSON(w, nonNil(l))
	})
	h("DELETE /api/v1/conversations/{id}", func(w http.ResponseWriter, r *http.Request) error {
		return noContent(w, m.DeleteConversation(r.Context(), r.PathValue("id")))
	})
}

func askRoutes(h routes, a Asker) {
	h("POST /api/v1/ask", func(w http.ResponseWriter, r *http.Request) error {
		return serveAsk(w, r, a)
	})
}

func logRoutes(h routes, l Logs) {
	h("GET /api/v1/logs", func(w http.ResponseWriter, r *http.Request) error {
		n := 100
		if s := r.URL.Query().Get("lines"); s != "" {
			v, err := strconv.Atoi(s)
			if err != nil || v < 1 {
				return fmt.Errorf("%w: lines=%q is not a positive number", ErrInvalid, s)
			}
			n = v
		}
		return writeJSON(w, LogLines{Lines: nonNil(l.Tail(n))})
	})
}

func probeRoutes(h routes, p Probe) {
	h("GET /api/v1/models", func(w http.ResponseWriter, r *http.Request) error {
		ms, err := p.Models(r.Context(), r.URL.Query().Get("host"))
		if err != nil {
			return err
		}
		ms.Models = nonNil(ms.Models)
		return writeJSON(w, ms)
	})
	h("POST /api/v1/models/try", func(w http.ResponseWriter, r *http.Request) error {
		var mt ModelTrial
		if err := readJSON(w, r, &mt); err != nil {
			return err
		}
		tr, err := p.Try(r.Context(), mt.Host, mt.Model)
		if err != nil {
			return err
		}
		return writeJSON(w, tr)
	})
}
