// Package web is the box's own web page: set it up and look after it from
// a phone. The page is rendered on the server with html/template from
// files embedded in the binary, works without JavaScript (a little keeps
// the state and the log live, over server-sent events), and acts only
// through the daemon's API resources (control.API): the same code, and the
// same rules, as the hark command over the socket.
//
// Access: the first visit asks for the one-time setup code the speaker
// says (and `hark web code` prints) and a password, kept as a bcrypt hash.
// Sessions are HttpOnly, SameSite=Strict cookies that expire when idle;
// every form carries a CSRF token; wrong guesses lock the address out for
// a while; only loopback, private and link-local addresses are served
// unless the configuration says otherwise.
package web

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/internal/ratelog"
)

//go:embed templates/*.html static/*
var files embed.FS

// Options configure the page.
type Options struct {
	// API is the daemon's resources; Box is required, a nil resource's
	// page says the daemon does not offer it.
	API control.API
	// Store keeps the password's hash.
	Store Store
	// Network is the box's network, for its page; nil for none.
	Network Network
	// Hotspot is the box's own access point, for the Wi-Fi page a phone
	// joined to it sees; nil for none.
	Hotspot Hotspot
	// Sessions, when set, keeps the logged-in browsers across pages made
	// one after another (the daemon's restart after a setting); nil for
	// this page's own.
	Sessions *Sessions
	// Version is shown on the status page.
	Version string
	// AnyAddress serves every source address, not only the local ones.
	AnyAddress bool
	// Fingerprint is the page's certificate's, when it is served over
	// HTTPS with the box's own: the setup page shows it, for the person
	// whose browser warns to compare.
	Fingerprint string
	// Names are host names the page answers to besides the machine's own
	// name, name.local, localhost and its addresses (a name given to the
	// box in the router's DNS, say).
	Names []string
	// IdleExpiry ends a session unused this long; default 30 min.
	IdleExpiry time.Duration
	// Location is the household's time zone ([assistant] time_zone): the
	// page shows every time in it, labelled, and reads the times typed in
	// it. Default time.Local.
	Location *time.Location
	Now      func() time.Time
	Log      *slog.Logger
}

// Server is the page.
type Server struct {
	o   Options
	log *slog.Logger
	// refusals holds back the lines of requests refused again and again.
	refusals *ratelog.Limiter
	access   *access
	names    *names
	pages    map[string]*template.Template

	flowsMu sync.Mutex
	flows   map[string]*flow // a command's setup under way, by session

	// zone is the household's time zone: Options.Location until
	// SetLocation.
	zone atomic.Pointer[time.Location]
	// fp is the certificate's fingerprint: Options.Fingerprint until
	// SetFingerprint.
	fp atomic.Pointer[string]

	// uploadIdle is how long an update's upload may send nothing before
	// it is cut off: the const uploadIdle, shorter in tests.
	uploadIdle time.Duration
}

// SetLocation changes the zone the page shows and reads times in, from
// the next request on (the household set another); nil changes nothing.
func (s *Server) SetLocation(loc *time.Location) {
	if loc != nil {
		s.zone.Store(loc)
	}
}

// SetFingerprint changes the fingerprint the page shows and the box says,
// from the next request on: the certificate was issued again, for a name
// the old one did not cover.
func (s *Server) SetFingerprint(fp string) { s.fp.Store(&fp) }

// AddName makes the page answer to name too, from the next request on:
// the name mDNS claimed for the box ("hark-2.local") when another machine
// in the house has the machine's own.
func (s *Server) AddName(name string) { s.names.add(name) }

// location is the household's time zone now.
func (s *Server) location() *time.Location { return s.zone.Load() }

// New returns the page; it reads whether a password is set.
func New(ctx context.Context, o Options) (*Server, error) {
	if o.API.Box == nil || o.Store == nil {
		return nil, errors.New("web: needs the box's API and a store")
	}
	if o.IdleExpiry <= 0 {
		o.IdleExpiry = 30 * time.Minute
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	var a *access
	if o.Sessions != nil && o.Sessions.a != nil {
		a = o.Sessions.a
		a.mu.Lock()
		a.store = o.Store // the new page's store: the old one is closed
		a.mu.Unlock()
	} else {
		var err error
		if a, err = newAccess(ctx, o.Store, o.Now, o.IdleExpiry); err != nil {
			return nil, err
		}
		if o.Sessions != nil {
			o.Sessions.a = a
		}
	}
	s := &Server{o: o, log: o.Log.With("pkg", "web"), refusals: ratelog.New(refusalEvery), access: a, names: newNames(o.Names, o.Now), pages: map[string]*template.Template{}, flows: map[string]*flow{}, uploadIdle: uploadIdle}
	s.zone.Store(o.Location)
	names, err := fs.Glob(files, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if strings.HasSuffix(n, "/layout.html") {
			continue
		}
		t, err := template.New("layout.html").Funcs(funcs).Funcs(s.zoned()).ParseFS(files, "templates/layout.html", n)
		if err != nil {
			return nil, fmt.Errorf("web: template %s: %w", n, err)
		}
		s.pages[strings.TrimSuffix(strings.TrimPrefix(n, "templates/"), ".html")] = t
	}
	return s, nil
}

// Sessions are the logged-in browsers, kept by the caller across pages.
// The zero value is ready for use.
type Sessions struct{ a *access }

// fingerprint is the certificate's fingerprint as browsers show it
// (colon-separated pairs of hex digits), or nil when the page is plain.
func (s *Server) fingerprint() any {
	fp := s.Fingerprint()
	if fp == "" {
		return nil
	}
	return Pairs(fp)
}

// Pairs is a "sha256:..." fingerprint as browsers show it: upper-case
// pairs of hex digits joined by colons.
func Pairs(fingerprint string) string {
	hex := strings.ToUpper(strings.TrimPrefix(fingerprint, "sha256:"))
	var pairs []string
	for i := 0; i+2 <= len(hex); i += 2 {
		pairs = append(pairs, hex[i:i+2])
	}
	return strings.Join(pairs, ":")
}

// Fingerprint is the page's certificate's fingerprint ("sha256:..."); ""
// when it is served over plain HTTP.
func (s *Server) Fingerprint() string {
	if fp := s.fp.Load(); fp != nil {
		return *fp
	}
	return s.o.Fingerprint
}

// SetupCode is the one-time code the first visit asks for, while no
// password is set.
func (s *Server) SetupCode() (string, bool) { return s.access.setupCode() }

// Reset forgets the page's password, logs every browser out and returns
// a new setup code, which the page then asks for with a new password;
// nothing else is forgotten.
func (s *Server) Reset(ctx context.Context) (string, error) {
	code, err := s.access.reset(ctx)
	if err == nil {
		s.log.Warn("the web page's password was reset: its next visit asks for a new setup code")
	}
	return code, err
}

// language is one the box listens and answers in.
type language struct{ Code, Name string }

var languages = []language{{"auto", "Whatever language it hears"}, {"en", "English"}, {"de", "German (Deutsch)"},
	{"fr", "French (Français)"}, {"es", "Spanish (Español)"}}

// navItem is one page in the navigation.
type navItem struct{ Name, Path, Label string }

var nav = []navItem{{"status", "/", "Status"}, {"talk", "/talk", "Talk"}, {"timers", "/timers", "Timers"}, {"conversations", "/conversations", "Conversations"},
	{"memory", "/memory", "Memory"}, {"settings", "/settings", "Settings"}, {"commands", "/commands", "Commands"}, {"secrets", "/secrets", "Secrets"},
	{"updates", "/updates", "Updates"}, {"logs", "/logs", "Logs"}, {"network", "/network", "Network"}, {"account", "/account", "Account"}}

// zoned are the functions that show times, in the household's zone and
// labelled with it: when (a date and time), clock (a time of day) and zone
// (the zone's name).
func (s *Server) zoned() template.FuncMap {
	return template.FuncMap{
		"when": func(t time.Time) string {
			if t.IsZero() {
				return ""
			}
			return t.In(s.location()).Format("Mon 2 Jan 15:04 MST")
		},
		"clock": func(t time.Time) string { return t.In(s.location()).Format("15:04 MST") },
		"zone":  func() string { return s.location().String() },
	}
}

var funcs = template.FuncMap{
	"navItems": func() []navItem { return nav },
	"when":     func(t time.Time) string { return t.Local().Format("Mon 2 Jan 15:04") }, // replaced by zoned's
	"clock":    func(t time.Time) string { return t.Local().Format("15:04") },           // replaced by zoned's
	"zone":     func() string { return time.Local.String() },                            // replaced by zoned's
	"uptime": func(t time.Time) string {
		if t.IsZero() {
			return "not running"
		}
		d := time.Since(t).Round(time.Minute)
		if d < time.Minute {
			return "under a minute"
		}
		return strings.TrimSuffix(d.String(), "0s")
	},
	"mib": func(n int64) string { return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20)) },
	"percent": func(part, whole int64) int64 {
		if whole <= 0 {
			return 0
		}
		return 100 * part / whole
	},
	"left":      func(t time.Time) string { return left(t, time.Now()) },
	"rfc3339":   func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"ringing":   ringingSentence,
	"secs":      func(d time.Duration) string { return fmt.Sprintf("%.1f s", d.Seconds()) },
	"languages": func() []language { return languages },
	"reverseTurns": func(ts []control.Turn) []control.Turn {
		out := slices.Clone(ts)
		slices.Reverse(out)
		return out
	},
	"stagesText": stagesText,
	"bars":       func(n int) string { return strings.Repeat("▮", n) + strings.Repeat("▯", 4-n) },
	"in": func(t time.Time) string {
		d := time.Until(t).Round(time.Second)
		if d < 0 {
			return "now"
		}
		return d.String()
	},
}

// Handler serves the page.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /static/", s.staticHandler())
	mux.HandleFunc("GET "+wifiPath, s.wifiPage)
	mux.HandleFunc("POST "+wifiPath, s.wifiJoin)
	mux.HandleFunc("GET /setup", s.setupPage)
	mux.HandleFunc("POST /setup", s.setupPost)
	mux.HandleFunc("GET /login", s.loginPage)
	mux.HandleFunc("POST /login", s.loginPost)
	s.routes(func(pattern string, h pageHandler) { mux.Handle(pattern, s.authed(h)) })
	return s.guard(mux)
}

// staticHandler serves the page's style and scripts.
func (s *Server) staticHandler() http.Handler {
	static, _ := fs.Sub(files, "static")
	return cacheable(noListing(http.StripPrefix("/static/", http.FileServerFS(static))))
}

// noListing answers 404 for a directory instead of listing its files.
func noListing(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/") {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// PlainHandler answers plain HTTP on a page served over HTTPS: a request
// for one of the box's names is sent on to the same address over HTTPS,
// but for the Wi-Fi page while the box's own access point is open (a
// phone joined to it has no way to trust the box's certificate yet).
func (s *Server) PlainHandler() http.Handler {
	wifi := http.NewServeMux()
	s.captiveRoutes(wifi)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.o.AnyAddress && !local(r.RemoteAddr) {
			http.Error(w, "This page is served only on the local network.", http.StatusForbidden)
			return
		}
		if s.wifiShown() && (r.URL.Path == wifiPath || strings.HasPrefix(r.URL.Path, "/static/")) {
			s.guard(wifi).ServeHTTP(w, r)
			return
		}
		if !s.names.ours(r.Host) {
			http.Error(w, "This is the speaker's page: open it by the speaker's own name or address.", http.StatusMisdirectedRequest)
			return
		}
		code := http.StatusMovedPermanently
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			code = http.StatusPermanentRedirect
		}
		http.Redirect(w, r, "https://"+r.Host+r.URL.RequestURI(), code)
	})
}

func cacheable(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		h.ServeHTTP(w, r)
	})
}

// uploadPath is the one address a multipart body may be sent to (a
// logged-in browser's update bundle, streamed); formLimit bounds every
// other body, read before anything is checked.
const (
	uploadPath = "/updates/upload"
	formLimit  = 64 << 10
)

// refusalEvery is how often each kind of refused request is logged: a
// machine sending request after request the page refuses must not fill
// the log on the SD card and push the household's own lines off the
// logs page.
const refusalEvery = 10 * time.Second

// refused logs a refused request, once per refusalEvery for each kind
// (msg), saying how many were held back since the last line.
func (s *Server) refused(msg string, args ...any) {
	ok, held := s.refusals.Allow(msg)
	if !ok {
		return
	}
	if held > 0 {
		args = append(args, "held_back", held)
	}
	s.log.Warn(msg, args...)
}

// guard refuses addresses outside the local network, names and origins
// that are not the box's (a page elsewhere driving this one through DNS
// rebinding), and bodies no form needs, and sets the headers every answer
// carries.
func (s *Server) guard(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.o.AnyAddress && !local(r.RemoteAddr) {
			s.refused("refused a request from outside the local network", "from", r.RemoteAddr)
			http.Error(w, "This page is served only on the local network.", http.StatusForbidden)
			return
		}
		if !s.names.ours(r.Host) {
			s.refused("refused a request for another site's name", "host", r.Host, "from", r.RemoteAddr)
			http.Error(w, "This is the speaker's page: open it by the speaker's own name or address.", http.StatusMisdirectedRequest)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead && !s.sameOrigin(r) {
			s.refused("refused a form from another site", "origin", r.Header.Get("Origin"), "from", r.RemoteAddr)
			http.Error(w, "This form came from another site.", http.StatusForbidden)
			return
		}
		if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") && r.URL.Path != uploadPath {
			http.Error(w, "This page takes no files here.", http.StatusUnsupportedMediaType)
			return
		}
		if r.URL.Path != uploadPath {
			r.Body = http.MaxBytesReader(w, r.Body, formLimit)
		}
		s.headers(w)
		h.ServeHTTP(w, r)
	})
}

// headers are those every answer carries.
func (s *Server) headers(w http.ResponseWriter) {
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "same-origin")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'")
}

// request is one authenticated request as a page handler sees it.
type request struct {
	*http.Request
	token string
	sess  *session
}

type pageHandler func(w http.ResponseWriter, r *request)

// authed sends an anonymous request to the login page (which sends it on
// to the setup page before a password is set) and checks the CSRF token
// of every form.
func (s *Server) authed(h pageHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie(sessionCookie)
		var sess *session
		ok := err == nil
		if ok {
			sess, ok = s.access.session(c.Value)
		}
		if !ok {
			to := "/login" // which sends a first visit on to /setup
			if n := localPath(r.URL.Path); r.Method == http.MethodGet && n != "/" {
				to += "?next=" + url.QueryEscape(n)
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			// A file upload streams: its token is in the address, and
			// its handler reads the body.
			token := r.URL.Query().Get("csrf")
			if !strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/form-data") {
				if err := r.ParseForm(); err != nil {
					http.Error(w, "The form could not be read: "+err.Error(), http.StatusBadRequest)
					return
				}
				token = r.PostFormValue("csrf")
			}
			if subtleEqual(token, sess.csrf) != 1 {
				s.refused("refused a form without this session's token", "path", r.URL.Path, "from", r.RemoteAddr)
				http.Error(w, "This form is out of date or came from another site: reload the page and try again.", http.StatusForbidden)
				return
			}
		}
		h(w, &request{Request: r, token: c.Value, sess: sess})
	})
}

func setSession(w http.ResponseWriter, r *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: token, Path: "/", HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
}

func clearSession(w http.ResponseWriter) {
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, SameSite: http.SameSiteStrictMode})
}

// view is what a page template gets.
type view struct {
	Title string
	Nav   string // the page's name in the navigation
	CSRF  string
	// Flash is the sentence saying what the last action did; Error what
	// went wrong with the page as a whole; Field errors stand by their
	// fields.
	Flash, Error string
	Field        map[string]string
	Form         map[string]string // what the user typed, kept after an error
	Data         any
	// Path is the page's own address, where a form on every page (the
	// Stop of what rings) comes back to.
	Path string
	// Ringing is what rings now, shown on every page with a Stop.
	Ringing []control.Alert
}

// render writes a page.
func (s *Server) render(w http.ResponseWriter, status int, page string, v view) {
	t, ok := s.pages[page]
	if !ok {
		http.Error(w, "no page "+page, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	var b strings.Builder
	if err := t.Execute(&b, v); err != nil {
		s.log.Error("page not rendered", "page", page, "err", err)
		http.Error(w, "The page could not be shown: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.WriteHeader(status)
	fmt.Fprint(w, b.String())
}

// sentence is an API error as the page shows it: the daemon's words,
// without the package's prefix.
func sentence(err error) string {
	msg := err.Error()
	for _, prefix := range []error{control.ErrInvalid, control.ErrNotFound, control.ErrConflict, control.ErrFull, control.ErrUnavailable, control.ErrForbidden} {
		if errors.Is(err, prefix) {
			msg = strings.TrimPrefix(msg, prefix.Error()+": ")
		}
	}
	msg = strings.TrimPrefix(msg, "web: ")
	if msg == "" {
		return msg
	}
	msg = strings.ToUpper(msg[:1]) + msg[1:]
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

// status is the HTTP status of an API error.
func status(err error) int {
	switch {
	case errors.Is(err, control.ErrInvalid):
		return http.StatusBadRequest
	case errors.Is(err, control.ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, control.ErrConflict):
		return http.StatusConflict
	case errors.Is(err, control.ErrFull):
		return http.StatusInsufficientStorage
	}
	return http.StatusInternalServerError
}

// back redirects to the page after a form; the page then says what was
// done.
func (s *Server) back(w http.ResponseWriter, r *request, path, flash string) {
	s.access.setFlash(r.token, flash)
	http.Redirect(w, r.Request, path, http.StatusSeeOther)
}

// page is a view for an authenticated page, with the flash of the last
// action taken.
func (s *Server) page(r *request, title, nav string) view {
	path := r.URL.Path
	if r.Method != http.MethodGet {
		path = "/" + nav
	}
	return view{Title: title, Nav: nav, CSRF: r.sess.csrf, Flash: s.access.takeFlash(r.token), Field: map[string]string{}, Form: map[string]string{},
		Path: localPath(path), Ringing: s.ringing(r.Context())}
}
