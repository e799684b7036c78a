package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/network"
	"golang.org/x/crypto/bcrypt"
)

// The daemon's resources, as plain fakes: the page must only call them.

type box struct {
	state string
	full  bool
	clock *control.Clock
}

func (b *box) Status(context.Context) control.Status {
	return control.Status{State: b.state, Ready: true, Version: "v-test", Checks: []control.Check{{Name: "storage", OK: true, Detail: "open"}},
		Started: time.Now().Add(-90 * time.Minute), Storage: &control.Storage{Free: 512 << 20, Total: 2048 << 20, Full: b.full},
		Links: []control.Check{{Name: "model server", OK: true, Detail: "http://gpu.lan:11434, Ollama 0.17.4, round trip 3ms"}}, Clock: b.clock,
		Model: &control.ModelStatus{Name: "llama3.2:3b", State: "loading", Detail: "loading for 12 s"},
		Queue: &control.QueueStatus{Parallel: 1, Learned: true, InFlight: 1, Waiting: 2}}
}
func (b *box) WaitIdle(context.Context) error { return nil }
func (b *box) SetUpdating(bool, int)          {}

type house struct {
	mu      sync.Mutex
	alerts  []control.Alert
	secrets map[string]string
	facts   []control.Fact
	convs   []control.Conversation
	next    int
}

func (h *house) List(context.Context, bool) ([]control.Alert, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.alerts), nil
}

func (h *house) Add(_ context.Context, na control.NewAlert) (control.Alert, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if na.Kind == "timer" && na.In > 24*time.Hour {
		return control.Alert{}, fmt.Errorf("%w: a timer runs for more than no time and up to 24 hours", control.ErrInvalid)
	}
	h.next++
	a := control.Alert{ID: fmt.Sprintf("a%d", h.next), Kind: na.Kind, Name: na.Name, Due: time.Now().Add(na.In)}
	if !na.At.IsZero() {
		a.Due = na.At
	}
	h.alerts = append(h.alerts, a)
	return a, nil
}

func (h *house) Stop(context.Context) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(h.alerts)
	h.alerts = slices.DeleteFunc(h.alerts, func(a control.Alert) bool { return a.Ringing })
	return len(h.alerts) < n, nil
}

// ring makes the alert of id ring.
func (h *house) ring(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for i := range h.alerts {
		if h.alerts[i].ID == id {
			h.alerts[i].Ringing = true
		}
	}
}

func (h *house) Cancel(_ context.Context, id string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := slices.IndexFunc(h.alerts, func(a control.Alert) bool { return a.ID == id || strings.EqualFold(a.Name, id) })
	if i < 0 {
		return fmt.Errorf("%w: no timer, alarm or reminder %q", control.ErrNotFound, id)
	}
	h.alerts = slices.Delete(h.alerts, i, i+1)
	return nil
}

type secretStore struct{ h *house }

func (s secretStore) Names(context.Context) ([]string, error) {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	var n []string
	for k := range s.h.secrets {
		n = append(n, k)
	}
	slices.Sort(n)
	return n, nil
}

func (s secretStore) Set(_ context.Context, name, value string) error {
	if strings.ContainsAny(name, " /") || name == "" {
		return fmt.Errorf("%w: %q is not a secret's name (letters, digits and _ only)", control.ErrInvalid, name)
	}
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	s.h.secrets[name] = value
	return nil
}

func (s secretStore) Unset(_ context.Context, name string) error {
	s.h.mu.Lock()
	defer s.h.mu.Unlock()
	delete(s.h.secrets, name)
	return nil
}

type commands struct{}

func (commands) List(context.Context) ([]control.CommandInfo, error) {
	return []control.CommandInfo{{Name: "home_control", Setup: true, Secrets: []control.SecretState{{Key: "HA_TOKEN", Required: true, State: "not set"}}}, {Name: "set_timer"}}, nil
}

// Setup asks as the Home Assistant setup does, and checks the token.
func (commands) Setup(_ context.Context, name string, io control.SetupIO) error {
	if name != "home_control" {
		return fmt.Errorf("%w: no command called %q", control.ErrNotFound, name)
	}
	io.Say("Home Assistant: its address and a long-lived access token.")
	addr, err := io.Ask("Home Assistant's address")
	if err != nil {
		return err
	}
	tok, err := io.Ask("A long-lived access token")
	if err != nil {
		return err
	}
	if tok != "good-token" {
		return fmt.Errorf("%w: Home Assistant at %s refused the token (401)", control.ErrInvalid, addr)
	}
	io.Say("Found 14 entities: 5 lights, 2 locks.")
	return nil
}

type memory struct{ h *house }

func (m memory) Facts(context.Context) ([]control.Fact, error) {
	m.h.mu.Lock()
	defer m.h.mu.Unlock()
	return slices.Clone(m.h.facts), nil
}

func (m memory) Forget(_ context.Context, id string) error {
	m.h.mu.Lock()
	defer m.h.mu.Unlock()
	i := slices.IndexFunc(m.h.facts, func(f control.Fact) bool { return f.ID == id })
	if i < 0 {
		return fmt.Errorf("%w: no fact %q", control.ErrNotFound, id)
	}
	m.h.facts = slices.Delete(m.h.facts, i, i+1)
	return nil
}

func (m memory) Conversations(context.Context) ([]control.Conversation, error) {
	m.h.mu.Lock()
	defer m.h.mu.Unlock()
	return slices.Clone(m.h.convs), nil
}

func (m memory) DeleteConversation(_ context.Context, id string) error {
	m.h.mu.Lock()
	defer m.h.mu.Unlock()
	m.h.convs = slices.DeleteFunc(m.h.convs, func(c control.Conversation) bool { return c.ID == id })
	return nil
}

// settings keep values as the daemon does: checked, kept for the next
// start.
type settings struct {
	mu       sync.Mutex
	running  map[string]string
	saved    map[string]string
	restarts int
}

func (st *settings) List(context.Context) ([]control.Setting, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []control.Setting
	for _, k := range []string{"assistant.name", "audio.volume", "listen.mode", "ollama.host", "assistant.room", "assistant.time_zone", "assistant.place",
		"weather.location", "whisper.language", "tts.voice", "ollama.model"} {
		s := control.Setting{Key: k, Value: st.running[k], Help: "Help for " + k + ".", Source: "default"}
		if k == "listen.mode" {
			s.Choices = []string{"tap", "hold"}
		}
		if k == "ollama.host" {
			s.Locked = "set by env OLLAMA_HOST"
		}
		if v, ok := st.saved[k]; ok && v != s.Value {
			s.Saved = v
		}
		out = append(out, s)
	}
	return out, nil
}

func (st *settings) Set(_ context.Context, key, value string) error {
	if key == "audio.volume" {
		var n int
		if _, err := fmt.Sscan(value, &n); err != nil || n < 0 || n > 100 {
			return fmt.Errorf("%w: %q is outside 0..100", control.ErrInvalid, value)
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.saved[key] = value
	if key == "audio.volume" { // applied at once, as the daemon does
		st.running[key] = value
	}
	return nil
}

func (st *settings) Restart(context.Context) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.restarts++
	for k, v := range st.saved {
		st.running[k] = v
	}
	return nil
}

// updates install in steps of 25 %, one every 20 ms, as the daemon's agent
// reports them.
type updates struct {
	mu       sync.Mutex
	st       control.UpdateStatus
	uploaded []byte
	rollback int
}

func (u *updates) Status(context.Context) (control.UpdateStatus, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.st, nil
}

func (u *updates) Check(context.Context) (control.UpdateStatus, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.st.Offered, u.st.Newer = "1.4.0", true
	return u.st, nil
}

func (u *updates) Install(_ context.Context, source string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.st.Job.Running {
		return fmt.Errorf("%w: an update is being installed already", control.ErrConflict)
	}
	u.st.Job = control.UpdateJob{Running: true, Phase: "downloading"}
	go func() {
		for p := 25; p <= 100; p += 25 {
			time.Sleep(20 * time.Millisecond)
			u.mu.Lock()
			u.st.Job.Percent, u.st.Job.Phase = p, "installing"
			if p == 100 {
				u.st.Job = control.UpdateJob{Phase: "installed", Percent: 100, Version: "1.4.0"}
			}
			u.mu.Unlock()
		}
	}()
	return nil
}

func (u *updates) Upload(ctx context.Context, r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	u.mu.Lock()
	u.uploaded = b
	u.mu.Unlock()
	return u.Install(ctx, "uploaded.raucb")
}

func (u *updates) Rollback(context.Context) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.rollback++
	return nil
}

type logs []string

func (l logs) Tail(n int) []string { return l[max(0, len(l)-n):] }

type store struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *store) Get(_ context.Context, k string, v any) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[k]
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(b, v)
}

func (s *store) Set(_ context.Context, k string, v any) error {
	b, err := json.Marshal(v)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[k] = b
	return err
}

// rig is the page over fakes, with a clock the test moves.
type rig struct {
	t        testing.TB
	settings *settings
	updates  *updates
	srv      *Server
	h        http.Handler
	house    *house
	mu       sync.Mutex
	now      time.Time
}

func newRig(t testing.TB) *rig { return newRigIn(t, nil) }

// newRigIn is a rig whose page shows times in loc.
func newRigIn(t testing.TB, loc *time.Location) *rig {
	h := &house{secrets: map[string]string{}, facts: []control.Fact{{ID: "f1", Text: "the cat is called Miso", At: time.Now()}},
		convs: []control.Conversation{{ID: "c1", Exchanges: []control.Exchange{{At: time.Now(), User: "hello", Assistant: "Hi there."}}},
			{ID: "c2", Exchanges: []control.Exchange{{At: time.Now(), User: "what time is it", Assistant: "Ten past nine."}}}}}
	r := &rig{t: t, house: h, now: time.Date(2026, 11, 25, 9, 0, 0, 0, time.UTC),
		updates:  &updates{st: control.UpdateStatus{Running: "1.3.2", Other: "B", Skipped: "2 Mar 04:10: 1.3.3 was not installed: the download failed", Slots: []control.UpdateSlot{{Name: "A", State: "booted", Version: "1.3.2", Good: "good"}, {Name: "B", State: "inactive", Version: "1.3.1"}}}},
		settings: &settings{running: map[string]string{"assistant.name": "Jarvis", "audio.volume": "70", "listen.mode": "tap", "ollama.host": "gpu.lan", "whisper.language": "auto"}, saved: map[string]string{}}}
	api := control.API{Box: &box{state: "idle"}, Alerts: h, Secrets: secretStore{h}, Commands: commands{}, Memory: memory{h},
		Settings: r.settings, Updates: r.updates, Logs: logs{"time=1 level=INFO msg=started", "time=2 level=WARN msg=\"model slow\"", "time=3 level=DEBUG msg=detail"}}
	s, err := New(t.Context(), Options{API: api, Store: &store{m: map[string][]byte{}}, Network: network.Simulated(t.TempDir(), false), Version: "v-test", Location: loc, Now: r.clock,
		Names: []string{"example.com"}}) // httptest's requests name it
	if err != nil {
		t.Fatal(err)
	}
	s.access.cost = bcrypt.MinCost // the real cost is bcrypt's default; tests need not pay it
	r.srv, r.h = s, s.Handler()
	return r
}

func (r *rig) clock() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.now
}

func (r *rig) wait(d time.Duration) {
	r.mu.Lock()
	r.now = r.now.Add(d)
	r.mu.Unlock()
}

// browser is one browser's cookie.
type browser struct {
	r      *rig
	cookie string
	from   string
}

func (r *rig) browser() *browser { return &browser{r: r, from: "192.168.1.20:50000"} }

func (b *browser) do(method, path string, form url.Values) *httptest.ResponseRecorder {
	b.r.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req := httptest.NewRequest(method, path, body)
	req.RemoteAddr = b.from
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if b.cookie != "" {
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: b.cookie})
	}
	w := httptest.NewRecorder()
	b.r.h.ServeHTTP(w, req)
	for _, c := range w.Result().Cookies() {
		if c.Name == sessionCookie {
			b.cookie = c.Value
		}
	}
	return w
}

var csrfRE = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// csrf is the token of the forms on a page.
func (b *browser) csrf(path string) string {
	b.r.t.Helper()
	w := b.do("GET", path, nil)
	m := csrfRE.FindStringSubmatch(w.Body.String())
	if m == nil {
		b.r.t.Fatalf("no form token on %s (%d)", path, w.Code)
	}
	return m[1]
}

// post sends a form with this session's token.
func (b *browser) post(path string, form url.Values) *httptest.ResponseRecorder {
	b.r.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	form.Set("csrf", b.csrf("/account"))
	return b.do("POST", path, form)
}

// setUp does the first visit: the code and a password.
func (r *rig) setUp() *browser {
	r.t.Helper()
	code, pending := r.srv.SetupCode()
	if !pending || len(code) != 8 {
		r.t.Fatalf("setup code %q, pending %v", code, pending)
	}
	b := r.browser()
	w := b.do("POST", "/setup", url.Values{"code": {code}, "password": {"correct horse"}, "confirm": {"correct horse"}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/setup/name" || b.cookie == "" {
		r.t.Fatalf("setup: %d %q", w.Code, w.Body.String())
	}
	return b
}

var pages = []string{"/", "/timers", "/conversations", "/memory", "/settings", "/commands", "/secrets", "/logs", "/network", "/updates", "/account", "/talk"}

func TestAnonymousRequestsGoToSetupThenLogin(t *testing.T) {
	r := newRig(t)
	anon := r.browser()
	for _, p := range append(pages, "/logs/download", "/events", "/status", "/no/such/page") {
		w := anon.do("GET", p, nil)
		if w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/login") {
			t.Errorf("GET %s before setup: %d %s", p, w.Code, w.Header().Get("Location"))
		}
	}
	if w := anon.do("GET", "/login", nil); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/setup" {
		t.Errorf("login before setup: %d %s", w.Code, w.Header().Get("Location"))
	}
	r.setUp()
	for _, p := range append(pages, "/logs/download", "/events") {
		w := anon.do("GET", p, nil)
		if w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/login") {
			t.Errorf("GET %s after setup: %d %s", p, w.Code, w.Header().Get("Location"))
		}
	}
	for _, p := range []string{"/timers", "/secrets", "/logout-all", "/memory/f1/forget"} {
		if w := anon.do("POST", p, url.Values{"x": {"1"}}); w.Code != http.StatusSeeOther || !strings.HasPrefix(w.Header().Get("Location"), "/login") {
			t.Errorf("POST %s: %d", p, w.Code)
		}
	}
	if w := anon.do("GET", "/setup", nil); w.Code != http.StatusSeeOther {
		t.Errorf("the setup page after setup: %d", w.Code)
	}
}

func TestSetup(t *testing.T) {
	r := newRig(t)
	code, _ := r.srv.SetupCode()
	b := r.browser()
	w := b.do("POST", "/setup", url.Values{"code": {"00000000"}, "password": {"correct horse"}})
	if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "not the code the speaker said") || b.cookie != "" {
		t.Errorf("wrong code: %d %s", w.Code, w.Body.String())
	}
	w = b.do("POST", "/setup", url.Values{"code": {code}, "password": {"short"}})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "at least 8 characters") {
		t.Errorf("short password: %d", w.Code)
	}
	w = b.do("POST", "/setup", url.Values{"code": {code}, "password": {"correct horse"}, "confirm": {"correct hose"}})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "The two passwords differ.") {
		t.Errorf("mismatch: %d", w.Code)
	}
	w = b.do("POST", "/setup", url.Values{"code": {code}, "password": {"correct horse"}})
	c := w.Result().Cookies()
	if w.Code != http.StatusSeeOther || len(c) != 1 || !c[0].HttpOnly || c[0].SameSite != http.SameSiteStrictMode || c[0].Path != "/" {
		t.Fatalf("setup: %d %+v", w.Code, c)
	}
	if _, pending := r.srv.SetupCode(); pending {
		t.Error("the code is still pending after setup")
	}
	// the code works once
	if w := r.browser().do("POST", "/setup", url.Values{"code": {code}, "password": {"another one"}}); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/login" {
		t.Errorf("setup again: %d", w.Code)
	}
	// the password logs in; next stays on this site
	l := r.browser()
	if w := l.do("POST", "/login", url.Values{"password": {"correct horse"}, "next": {"/timers"}}); w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/timers" {
		t.Errorf("login: %d %s", w.Code, w.Header().Get("Location"))
	}
	if w := r.browser().do("POST", "/login", url.Values{"password": {"correct horse"}, "next": {"//evil.example/"}}); w.Header().Get("Location") != "/" {
		t.Errorf("login to another site: %s", w.Header().Get("Location"))
	}
}

func TestEveryPageRenders(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	want := map[string]string{"/": "v-test", "/timers": "Nothing is set.", "/conversations": "Ten past nine.", "/memory": "the cat is called Miso",
		"/commands": "home_control", "/settings": "How loud it speaks and rings.", "/network": "simulation", "/updates": "Roll back to slot B", "/secrets": "HA_TOKEN", "/logs": "model slow", "/account": "Log out everywhere", "/talk": "Ask it something"}
	for _, p := range pages {
		w := b.do("GET", p, nil)
		body := w.Body.String()
		if w.Code != http.StatusOK || !strings.Contains(body, want[p]) || !strings.Contains(body, `<meta name="viewport"`) {
			t.Errorf("GET %s: %d, want %q in it", p, w.Code, want[p])
		}
		if w.Header().Get("Content-Security-Policy") == "" || w.Header().Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: headers %v", p, w.Header())
		}
	}
	if w := b.do("GET", "/updates", nil); !strings.Contains(w.Body.String(), "2 Mar 04:10: 1.3.3 was not installed: the download failed") {
		t.Error("the updates page does not say why the update timer left a version alone")
	}
	if w := b.do("GET", "/no/such/page", nil); w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), "There is no page at /no/such/page.") {
		t.Errorf("an unknown page: %d", w.Code)
	}
	if w := b.do("GET", "/status", nil); w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "v-test") {
		t.Errorf("/status: %d", w.Code)
	}
	if body := b.do("GET", "/logs?level=WARN", nil).Body.String(); strings.Contains(body, "msg=started") || !strings.Contains(body, "model slow") {
		t.Error("the WARN filter shows info lines or hides warnings")
	}
	w := b.do("GET", "/logs/download?level=DEBUG", nil)
	if !strings.Contains(w.Header().Get("Content-Disposition"), "attachment") || strings.Count(w.Body.String(), "\n") != 3 {
		t.Errorf("download: %v %q", w.Header(), w.Body.String())
	}
}

func TestFormsNeedTheSessionsToken(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	for _, p := range []string{"/timers", "/timers/a1/cancel", "/memory/f1/forget", "/conversations/delete", "/secrets", "/secrets/X/clear", "/logout", "/logout-all", "/account/password"} {
		for _, token := range []string{"", "forged"} {
			if w := b.do("POST", p, url.Values{"csrf": {token}, "kind": {"timer"}, "minutes": {"5"}}); w.Code != http.StatusForbidden {
				t.Errorf("POST %s with token %q: %d", p, token, w.Code)
			}
		}
	}
	// another browser's token is not this one's
	other := r.browser()
	other.do("POST", "/login", url.Values{"password": {"correct horse"}})
	if w := b.do("POST", "/memory/f1/forget", url.Values{"csrf": {other.csrf("/memory")}}); w.Code != http.StatusForbidden {
		t.Errorf("another session's token: %d", w.Code)
	}
	if len(r.house.facts) != 1 || len(r.house.convs) != 2 {
		t.Error("a forged form changed something")
	}
}

func TestTimers(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	w := b.post("/timers", url.Values{"kind": {"timer"}, "name": {"tea"}, "minutes": {"4"}})
	if w.Code != http.StatusSeeOther {
		t.Fatalf("add: %d %s", w.Code, w.Body.String())
	}
	body := b.do("GET", "/timers", nil).Body.String()
	if !strings.Contains(body, "The timer is set for") || !strings.Contains(body, "“tea”") {
		t.Errorf("after adding:\n%s", body)
	}
	for _, tc := range []struct {
		form url.Values
		want string
	}{
		{url.Values{"kind": {"timer"}, "minutes": {"soon"}}, "Say how many minutes, a number above zero."},
		{url.Values{"kind": {"timer"}, "minutes": {"2000"}}, "A timer runs for more than no time and up to 24 hours."},
		{url.Values{"kind": {"reminder"}, "name": {"bins"}, "at": {"tomorrow"}}, "Pick a day and a time."},
		{url.Values{"kind": {"pet"}}, "Choose a timer, an alarm or a reminder."},
	} {
		w := b.post("/timers", tc.form)
		if w.Code < 400 || !strings.Contains(w.Body.String(), tc.want) || !strings.Contains(w.Body.String(), `aria-invalid="true"`) && tc.form.Get("kind") != "pet" {
			t.Errorf("%v: %d, want %q next to its field", tc.form, w.Code, tc.want)
		}
	}
	if w := b.post("/timers/a1/cancel", nil); w.Code != http.StatusSeeOther || len(r.house.alerts) != 0 {
		t.Errorf("cancel: %d, %v left", w.Code, r.house.alerts)
	}
	if w := b.post("/timers/nope/cancel", nil); w.Code != http.StatusNotFound || !strings.Contains(w.Body.String(), `No timer, alarm or reminder &#34;nope&#34;.`) {
		t.Errorf("cancel unknown: %d %s", w.Code, w.Body.String())
	}
}

// TestTimesInTheHouseholdsZone: the page reads the times typed in the
// box's zone and shows every time in it, labelled; a held alarm shows its
// time of day and that it waits for the clock; the status says whether
// the clock is set. Before, the page read and showed times in the system's
// zone (UTC on the image) while the box spoke in [assistant] time_zone:
// "set for 07:00" on the page was 8:00 AM to the box.
func TestTimesInTheHouseholdsZone(t *testing.T) {
	berlin, _ := time.LoadLocation("Europe/Berlin")
	r := newRigIn(t, berlin)
	b := r.setUp()
	if w := b.post("/timers", url.Values{"kind": {"alarm"}, "at": {"2026-11-26T07:00"}}); w.Code != http.StatusSeeOther {
		t.Fatalf("add: %d %s", w.Code, w.Body.String())
	}
	if due := r.house.alerts[0].Due; !due.Equal(time.Date(2026, 11, 26, 6, 0, 0, 0, time.UTC)) {
		t.Errorf("the box got %v, want 07:00 in Berlin", due)
	}
	r.house.alerts = append(r.house.alerts, control.Alert{ID: "h", Kind: "alarm", Due: time.Date(1970, 1, 2, 6, 30, 0, 0, time.UTC), Held: true})
	body := b.do("GET", "/timers", nil).Body.String()
	for _, want := range []string{"The alarm is set for 07:00 CET on Thu 26 Nov.", "Thu 26 Nov 07:00 CET", "Times are in Europe/Berlin.",
		"when, in Europe/Berlin", "07:30 CET, once the box's clock is set"} {
		if !strings.Contains(body, want) {
			t.Errorf("the timers page lacks %q:\n%s", want, body)
		}
	}
	r.srv.o.API.Box.(*box).clock = &control.Clock{Now: time.Date(1970, 1, 1, 1, 0, 5, 0, berlin), Zone: "Europe/Berlin"}
	if body := b.do("GET", "/", nil).Body.String(); !strings.Contains(body, "Thu 1 Jan 1970 01:00 CET (Europe/Berlin), not synchronised yet") {
		t.Errorf("the status page does not say the clock is not set:\n%s", body)
	}
	// The household picks another zone while the page runs: the next
	// request reads and shows times in it, no restart.
	tokyo, _ := time.LoadLocation("Asia/Tokyo")
	r.srv.SetLocation(tokyo)
	if w := b.post("/timers", url.Values{"kind": {"alarm"}, "at": {"2026-11-26T07:00"}}); w.Code != http.StatusSeeOther {
		t.Fatalf("add in Tokyo: %d %s", w.Code, w.Body.String())
	}
	if due := r.house.alerts[len(r.house.alerts)-1].Due; !due.Equal(time.Date(2026, 11, 25, 22, 0, 0, 0, time.UTC)) {
		t.Errorf("after SetLocation the box got %v, want 07:00 in Tokyo", due)
	}
	if body := b.do("GET", "/timers", nil).Body.String(); !strings.Contains(body, "Times are in Asia/Tokyo.") || !strings.Contains(body, "Thu 26 Nov 15:00 JST") {
		t.Errorf("after SetLocation the timers page is not in Tokyo's zone:\n%s", body)
	}
}

func TestSecretsAreNeverShown(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	const value = "s3cr3t-VALUE-9f2"
	if w := b.post("/secrets", url.Values{"name": {"HA_TOKEN"}, "value": {value}}); w.Code != http.StatusSeeOther {
		t.Fatalf("set: %d", w.Code)
	}
	w := b.post("/secrets", url.Values{"name": {"BAD NAME"}, "value": {value}})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "is not a secret&#39;s name") {
		t.Errorf("a bad name: %d", w.Code)
	}
	for _, body := range []string{w.Body.String(), b.do("GET", "/secrets", nil).Body.String(), b.do("GET", "/commands", nil).Body.String()} {
		if strings.Contains(body, value) {
			t.Fatal("a secret's value was rendered")
		}
	}
	if body := b.do("GET", "/secrets", nil).Body.String(); !strings.Contains(body, "<strong>HA_TOKEN</strong>: set") {
		t.Errorf("the secret's state is not shown:\n%s", body)
	}
	if w := b.post("/secrets", url.Values{"name": {"X"}}); w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "Type the value to keep.") {
		t.Errorf("no value: %d", w.Code)
	}
	if b.post("/secrets/HA_TOKEN/clear", nil); r.house.secrets["HA_TOKEN"] != "" {
		t.Error("clear did not clear")
	}
}

func TestMemoryAndConversations(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	if w := b.post("/memory/f1/forget", nil); w.Code != http.StatusSeeOther || len(r.house.facts) != 0 {
		t.Errorf("forget: %d", w.Code)
	}
	if body := b.do("GET", "/memory", nil).Body.String(); !strings.Contains(body, "Forgotten.") {
		t.Error("no word that the fact was forgotten")
	}
	if b.post("/conversations/c1/delete", nil); len(r.house.convs) != 1 {
		t.Errorf("delete one: %v", r.house.convs)
	}
	if w := b.post("/conversations/delete", nil); w.Code != http.StatusOK || len(r.house.convs) != 1 || !strings.Contains(w.Body.String(), "Yes, delete all 1") {
		t.Errorf("delete all, unconfirmed: %d, %v left\n%s", w.Code, r.house.convs, w.Body.String())
	}
	if b.post("/conversations/delete", url.Values{"confirm": {"yes"}}); len(r.house.convs) != 0 {
		t.Errorf("delete all, confirmed: %v", r.house.convs)
	}
}

// TestBruteForceLocksOut: five wrong passwords from an address lock it out,
// even for the right one, for a quarter of an hour; other addresses can
// still log in.
func TestBruteForceLocksOut(t *testing.T) {
	r := newRig(t)
	r.setUp()
	b := r.browser()
	for i := range 5 {
		if w := b.do("POST", "/login", url.Values{"password": {fmt.Sprintf("guess %d!", i)}}); w.Code != http.StatusForbidden {
			t.Fatalf("guess %d: %d", i, w.Code)
		}
	}
	w := b.do("POST", "/login", url.Values{"password": {"correct horse"}})
	if w.Code != http.StatusTooManyRequests || !strings.Contains(w.Body.String(), "too many wrong tries") && !strings.Contains(w.Body.String(), "Too many wrong tries") || b.cookie != "" {
		t.Fatalf("the right password while locked out: %d", w.Code)
	}
	other := r.browser()
	other.from = "192.168.1.21:40000"
	if w := other.do("POST", "/login", url.Values{"password": {"correct horse"}}); w.Code != http.StatusSeeOther {
		t.Errorf("another address: %d", w.Code)
	}
	r.wait(16 * time.Minute)
	if w := b.do("POST", "/login", url.Values{"password": {"correct horse"}}); w.Code != http.StatusSeeOther {
		t.Errorf("after the lock-out: %d", w.Code)
	}
}

func TestSessionsExpireAndLogOutEverywhere(t *testing.T) {
	r := newRig(t)
	a := r.setUp()
	b := r.browser()
	b.do("POST", "/login", url.Values{"password": {"correct horse"}})
	r.wait(20 * time.Minute)
	if w := a.do("GET", "/", nil); w.Code != http.StatusOK {
		t.Fatalf("after 20 idle minutes: %d", w.Code)
	}
	r.wait(31 * time.Minute)
	if w := b.do("GET", "/", nil); w.Code != http.StatusSeeOther {
		t.Errorf("after 51 idle minutes: %d, want the login page", w.Code)
	}
	if w := a.do("GET", "/", nil); w.Code != http.StatusSeeOther {
		t.Errorf("31 minutes after its last use: %d", w.Code)
	}
	a.do("POST", "/login", url.Values{"password": {"correct horse"}})
	b.do("POST", "/login", url.Values{"password": {"correct horse"}})
	a.post("/logout-all", nil)
	for _, br := range []*browser{a, b} {
		if w := br.do("GET", "/", nil); w.Code != http.StatusSeeOther {
			t.Errorf("after log out everywhere: %d", w.Code)
		}
	}
	// a changed password logs the others out and keeps this one
	c := r.browser()
	c.do("POST", "/login", url.Values{"password": {"correct horse"}})
	d := r.browser()
	d.do("POST", "/login", url.Values{"password": {"correct horse"}})
	if w := c.post("/account/password", url.Values{"old": {"wrong one!"}, "password": {"battery staple"}, "confirm": {"battery staple"}}); !strings.Contains(w.Body.String(), "That is not the right password.") {
		t.Errorf("a wrong old password: %d", w.Code)
	}
	if w := c.post("/account/password", url.Values{"old": {"correct horse"}, "password": {"battery staple"}, "confirm": {"battery stapel"}}); w.Code != http.StatusBadRequest ||
		!strings.Contains(w.Body.String(), "The two new passwords differ.") {
		t.Errorf("a confirmation that differs: %d", w.Code)
	}
	if w := c.post("/account/password", url.Values{"old": {"correct horse"}, "password": {"battery staple"}, "confirm": {"battery staple"}}); w.Code != http.StatusSeeOther {
		t.Fatalf("change: %d %s", w.Code, w.Body.String())
	}
	if c.do("GET", "/", nil).Code != http.StatusOK || d.do("GET", "/", nil).Code != http.StatusSeeOther {
		t.Error("after a password change: this browser must stay in and the other be out")
	}
}

func TestOnlyTheLocalNetwork(t *testing.T) {
	r := newRig(t)
	for _, from := range []string{"8.8.8.8:1234", "[2001:db8::1]:80"} {
		b := r.browser()
		b.from = from
		if w := b.do("GET", "/login", nil); w.Code != http.StatusForbidden {
			t.Errorf("from %s: %d", from, w.Code)
		}
	}
	for _, from := range []string{"127.0.0.1:1", "10.0.0.7:1", "[fe80::1]:1", "[fd00::5]:1", "172.16.3.3:1"} {
		b := r.browser()
		b.from = from
		if w := b.do("GET", "/setup", nil); w.Code != http.StatusOK {
			t.Errorf("from %s: %d", from, w.Code)
		}
	}
}

func TestEventsStreamTheState(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	srv := httptest.NewServer(r.h)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/events?logs=INFO", nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: b.cookie})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	var lines []string
	for sc.Scan() && len(lines) < 2 {
		if sc.Text() != "" {
			lines = append(lines, sc.Text())
		}
	}
	if len(lines) != 2 || lines[0] != "event: state" || !strings.Contains(lines[1], `"state":"idle"`) {
		t.Errorf("stream %q", lines)
	}
}

func TestNewLines(t *testing.T) {
	for _, tc := range []struct{ before, now, want []string }{
		{[]string{"a", "b"}, []string{"a", "b", "c"}, []string{"c"}},
		{[]string{"a", "b", "c"}, []string{"b", "c", "d", "e"}, []string{"d", "e"}},
		{[]string{"a"}, []string{"a"}, []string{}},
		{nil, []string{"x"}, []string{"x"}},
	} {
		if got := newLines(tc.before, tc.now); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("newLines(%q, %q) = %q, want %q", tc.before, tc.now, got, tc.want)
		}
	}
}

func TestSettings(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	body := b.do("GET", "/settings", nil).Body.String()
	if !strings.Contains(body, `value="Jarvis"`) || !strings.Contains(body, "set by env OLLAMA_HOST, which wins over this page") || strings.Contains(body, "Restart Hark now") {
		t.Fatalf("settings page:\n%s", body)
	}
	// a bad value is shown by its field; the good one is still kept
	w := b.post("/settings", url.Values{"assistant.name": {"Friday"}, "audio.volume": {"140"}, "listen.mode": {"tap"}})
	if w.Code != http.StatusBadRequest || !strings.Contains(w.Body.String(), "&#34;140&#34; is outside 0..100.") || !strings.Contains(w.Body.String(), `id="e-audio.volume"`) ||
		!strings.Contains(w.Body.String(), `value="140"`) || !strings.Contains(w.Body.String(), "Kept: its name.") {
		t.Errorf("a refused value: %d\n%s", w.Code, w.Body.String())
	}
	// a locked key is not changed by a forged field
	b.post("/settings", url.Values{"ollama.host": {"evil.lan"}})
	if _, ok := r.settings.saved["ollama.host"]; ok {
		t.Error("a locked key was kept")
	}
	body = b.do("GET", "/settings", nil).Body.String()
	if !strings.Contains(body, "Kept for the next start.") || !strings.Contains(body, "Restart Hark now") || !strings.Contains(body, `value="Friday"`) {
		t.Errorf("after saving:\n%s", body)
	}
	if w := b.post("/settings/restart", nil); w.Code != http.StatusOK || r.settings.restarts != 1 || r.settings.running["assistant.name"] != "Friday" {
		t.Errorf("restart: %d, %d restarts", w.Code, r.settings.restarts)
	}
	if w := b.post("/settings", url.Values{"assistant.name": {"Friday"}}); w.Code != http.StatusSeeOther {
		t.Errorf("saving nothing new: %d", w.Code)
	}
	if body := b.do("GET", "/settings", nil).Body.String(); !strings.Contains(body, "Nothing changed.") {
		t.Error("no word that nothing changed")
	}
	b.post("/settings", url.Values{"audio.volume": {"35"}, "listen.mode": {"hold"}})
	if body := b.do("GET", "/settings", nil).Body.String(); !strings.Contains(body, "In use now: volume. Kept for when Hark starts again: how you talk to it.") {
		t.Errorf("a setting applied at once and one kept:\n%s", body)
	}
	// a volume said aloud meanwhile is not overwritten by a page that
	// showed the old one and saved something else
	r.settings.mu.Lock()
	r.settings.running["audio.volume"] = "60"
	r.settings.mu.Unlock()
	b.post("/settings", url.Values{"audio.volume": {"35"}, "was.audio.volume": {"35"}, "assistant.name": {"Ada"}, "was.assistant.name": {"Friday"}})
	if got := r.settings.running["audio.volume"]; got != "60" {
		t.Errorf("a stale page set the volume to %s, over the 60 said aloud", got)
	}
}

// TestSettingsInPlainWords: the settings are grouped under headings, with
// labels and help written for people, not the configuration's keys; a
// volume is a slider, a fixed few a list of words, an on/off a switch that
// saves off when unticked.
func TestSettingsInPlainWords(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	body := b.do("GET", "/settings", nil).Body.String()
	for _, want := range []string{"<legend>Its name and where it is</legend>", `<label for="s-assistant.name">Its name</label>`,
		`type="range" id="s-audio.volume" name="audio.volume" min="0" max="100" value="70"`, `<option value="tap" selected>Press once, then talk`,
		"What it calls itself when it answers."} {
		if !strings.Contains(body, want) {
			t.Errorf("the settings page lacks %s", want)
		}
	}
	if strings.Contains(body, ">assistant.name<") || strings.Contains(body, "Help for assistant.name") {
		t.Errorf("a key or the file's comment shows as a label or help:\n%s", body)
	}
}

func TestStatusPage(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	body := b.do("GET", "/", nil).Body.String()
	for _, want := range []string{"1h30m", "512 MiB free of 2048 MiB (25 % free)", "round trip 3ms", "All checks pass", "<strong>B</strong>: inactive, 1.3.1",
		`<dd id="model">llama3.2:3b loading for 12 s</dd>`, `<dd id="queue">1 at a time (learned); 1 answering, 2 waiting</dd>`} {
		if !strings.Contains(body, want) {
			t.Errorf("status page lacks %q", want)
		}
	}
	if strings.Contains(body, "The storage is full") {
		t.Error("a full-disk warning with room to spare")
	}
	r.srv.o.API.Box.(*box).full = true
	if body := b.do("GET", "/", nil).Body.String(); !strings.Contains(body, "The storage is full: Hark cannot remember anything new.") {
		t.Error("no full-disk warning")
	}
}

func TestUpdates(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	if body := b.do("GET", "/updates", nil).Body.String(); strings.Contains(body, "Install 1.4.0") || !strings.Contains(body, "Nothing is being installed.") {
		t.Errorf("before a check:\n%s", body)
	}
	b.post("/updates/check", nil)
	if body := b.do("GET", "/updates", nil).Body.String(); !strings.Contains(body, "Version 1.4.0 is available.") || !strings.Contains(body, "Install 1.4.0") {
		t.Errorf("after a check:\n%s", body)
	}
	// the progress streams to the page until it is done
	srv := httptest.NewServer(r.h)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/events?update", nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: b.cookie})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if w := b.post("/updates/install", nil); w.Code != http.StatusSeeOther {
		t.Fatalf("install: %d", w.Code)
	}
	sc := bufio.NewScanner(resp.Body)
	var percents []int
	for sc.Scan() {
		if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && strings.Contains(d, "percent") {
			var j control.UpdateJob
			json.Unmarshal([]byte(d), &j)
			percents = append(percents, j.Percent)
			if j.Phase == "installed" {
				break
			}
		}
	}
	if len(percents) < 2 || percents[len(percents)-1] != 100 || !slices.IsSorted(percents) {
		t.Errorf("progress seen %v: want it rising to 100", percents)
	}
	// a bundle from the browser streams to the daemon; its token is in the address
	upload := func(token string) *httptest.ResponseRecorder {
		var body strings.Builder
		mw := multipart.NewWriter(&body)
		fw, _ := mw.CreateFormFile("bundle", "hark-1.4.0.raucb")
		fw.Write([]byte("BUNDLE BYTES"))
		mw.Close()
		req := httptest.NewRequest("POST", "/updates/upload?csrf="+token, strings.NewReader(body.String()))
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.RemoteAddr = b.from
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: b.cookie})
		w := httptest.NewRecorder()
		r.h.ServeHTTP(w, req)
		return w
	}
	if w := upload("forged"); w.Code != http.StatusForbidden || len(r.updates.uploaded) != 0 {
		t.Errorf("an upload without the token: %d", w.Code)
	}
	if w := upload(b.csrf("/updates")); w.Code != http.StatusSeeOther || string(r.updates.uploaded) != "BUNDLE BYTES" {
		t.Errorf("upload: %d %q", w.Code, r.updates.uploaded)
	}
	if b.post("/updates/rollback", nil); r.updates.rollback != 1 {
		t.Error("no rollback")
	}
}

// TestUploadOverSlowWiFi: the box's server bounds the reading of a whole
// request (ReadTimeout, 30 s); a bundle uploaded over a slow Wi-Fi takes
// minutes, and arrives whole as long as it keeps moving. One that stalls
// is cut off once it has sent nothing for uploadIdle. Scaled: a 0.5 s
// ReadTimeout, a 1 s uploadIdle, an upload of 2.4 s.
func TestUploadOverSlowWiFi(t *testing.T) {
	r := newRig(t)
	r.srv.uploadIdle = time.Second
	b := r.setUp()
	token := b.csrf("/updates")
	srv := httptest.NewUnstartedServer(r.h)
	srv.Config.ReadTimeout = 500 * time.Millisecond
	srv.Start()
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	// upload sends chunks of the bundle, every gap apart, then stalls
	// unless whole; it returns what the daemon got, and when the answer
	// came.
	upload := func(chunks int, whole bool, gap time.Duration) (got int, took time.Duration) {
		pr, pw := io.Pipe()
		defer pw.Close()
		giveUp := time.AfterFunc(10*time.Second, func() { pw.CloseWithError(errors.New("the test gave up")) })
		defer giveUp.Stop()
		mw := multipart.NewWriter(pw)
		go func() {
			fw, _ := mw.CreateFormFile("bundle", "hark-1.4.0.raucb")
			for range chunks {
				if _, err := fw.Write(bytes.Repeat([]byte("B"), 4096)); err != nil {
					return
				}
				time.Sleep(gap)
			}
			if whole {
				mw.Close()
				pw.Close()
			}
		}()
		req, _ := http.NewRequest("POST", srv.URL+"/updates/upload?csrf="+token, pr)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.AddCookie(&http.Cookie{Name: sessionCookie, Value: b.cookie})
		began := time.Now()
		resp, err := client.Do(req)
		took = time.Since(began)
		if err == nil {
			resp.Body.Close()
		}
		r.updates.mu.Lock()
		defer r.updates.mu.Unlock()
		got, r.updates.uploaded = len(r.updates.uploaded), nil
		return got, took
	}

	if got, took := upload(12, true, 200*time.Millisecond); got != 12*4096 {
		t.Errorf("an upload of %v under a 0.5 s ReadTimeout: the daemon got %d bytes of %d", took.Round(time.Millisecond), got, 12*4096)
	}
	if got, took := upload(1, false, 0); got != 0 || took > 5*time.Second {
		t.Errorf("an upload stalled after 4 KiB: the daemon got %d bytes, the answer came after %v; want none, after about 1 s", got, took.Round(time.Millisecond))
	}
}

// TestAnOpenPageDoesNotKeepItsSessionAlive: the event stream of a page
// left open ends when the session expires; it does not count as a use.
func TestAnOpenPageDoesNotKeepItsSessionAlive(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	srv := httptest.NewServer(r.h)
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/events", nil)
	req.AddCookie(&http.Cookie{Name: sessionCookie, Value: b.cookie})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r.wait(31 * time.Minute)
	done := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, resp.Body); done <- err }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the stream of an expired session did not end")
	}
	if w := b.do("GET", "/", nil); w.Code != http.StatusSeeOther {
		t.Errorf("after 31 minutes with only the stream open: %d, want the login page", w.Code)
	}
}

// TestSessionsOutliveARestart: a page made again with the same Sessions
// (the daemon restarted to apply a setting) keeps its browsers logged in.
func TestSessionsOutliveARestart(t *testing.T) {
	r := newRig(t)
	keep := &Sessions{}
	st := &store{m: map[string][]byte{}}
	first, err := New(t.Context(), Options{API: r.srv.o.API, Store: st, Sessions: keep, Names: []string{"example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	first.access.cost = bcrypt.MinCost
	code, _ := first.SetupCode()
	tok, err := first.access.setup(t.Context(), "10.0.0.2", code, "correct horse")
	if err != nil {
		t.Fatal(err)
	}
	again, err := New(t.Context(), Options{API: r.srv.o.API, Store: &store{m: st.m}, Sessions: keep, Names: []string{"example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := again.access.session(tok); !ok {
		t.Error("the restart logged the browser out")
	}
	if _, pending := again.SetupCode(); pending {
		t.Error("the restart asks for a setup code again")
	}
	if _, err := again.access.login(t.Context(), "10.0.0.2", "correct horse"); err != nil {
		t.Errorf("login after the restart: %v", err)
	}
}

// TestCommandSetupOnThePage: a command's setup runs as a conversation of
// forms; a secret answer is asked in a password field and never shown.
func TestCommandSetupOnThePage(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	if body := b.do("GET", "/commands", nil).Body.String(); !strings.Contains(body, `action="/commands/home_control/setup"`) {
		t.Fatal("no setup button for home_control")
	}
	for _, token := range []string{"bad-token", "good-token"} {
		w := b.post("/commands/home_control/setup", nil)
		if w.Code != http.StatusSeeOther {
			t.Fatalf("start: %d", w.Code)
		}
		body := b.do("GET", "/commands/home_control/setup", nil).Body.String()
		if !strings.Contains(body, "Home Assistant: its address and a long-lived access token.") || !strings.Contains(body, "Home Assistant&#39;s address") {
			t.Fatalf("first question:\n%s", body)
		}
		b.post("/commands/home_control/setup/answer", url.Values{"answer": {"http://ha.lan:8123"}})
		body = b.do("GET", "/commands/home_control/setup", nil).Body.String()
		if !strings.Contains(body, "A long-lived access token") || !strings.Contains(body, `type="password"`) {
			t.Fatalf("second question:\n%s", body)
		}
		b.post("/commands/home_control/setup/answer", url.Values{"answer": {token}})
		body = b.do("GET", "/commands/home_control/setup", nil).Body.String()
		if strings.Contains(body, token) {
			t.Error("the token was shown")
		}
		switch token {
		case "bad-token":
			if !strings.Contains(body, "refused the token (401)") {
				t.Errorf("a refused token:\n%s", body)
			}
		default:
			if !strings.Contains(body, "Found 14 entities") || !strings.Contains(body, "The setup of home_control is done.") {
				t.Errorf("a good token:\n%s", body)
			}
		}
	}
	if w := b.do("GET", "/commands/set_timer/setup", nil); w.Code != http.StatusSeeOther {
		t.Errorf("the page of a setup not running: %d", w.Code)
	}
}

// TestRingingHasAStopOnEveryPage: what rings is named on every page with
// a Stop that silences it and comes back to the same page; the timers
// page lists it as ringing with its own Stop, and counts the others down.
func TestRingingHasAStopOnEveryPage(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	b.post("/timers", url.Values{"kind": {"timer"}, "name": {"tea"}, "minutes": {"4"}})
	b.post("/timers", url.Values{"kind": {"timer"}, "name": {"eggs"}, "minutes": {"9"}})
	if body := b.do("GET", "/memory", nil).Body.String(); !strings.Contains(body, `id="ringing" aria-live="assertive" hidden`) {
		t.Errorf("the Stop banner shows with nothing ringing:\n%s", body)
	}
	r.house.ring("a1")
	for _, p := range []string{"/", "/memory", "/settings", "/timers"} {
		body := b.do("GET", p, nil).Body.String()
		if !strings.Contains(body, "The tea timer is ringing.") || strings.Contains(body, `aria-live="assertive" hidden`) ||
			!strings.Contains(body, `<input type="hidden" name="back" value="`+p+`">`) {
			t.Errorf("%s does not show the ringing tea timer with its Stop:\n%s", p, body)
		}
	}
	timers := b.do("GET", "/timers", nil).Body.String()
	if !strings.Contains(timers, `aria-label="Stop the timer tea">Stop</button>`) || !strings.Contains(timers, `<time class="countdown"`) {
		t.Errorf("the timers page does not list tea as ringing and eggs counting down:\n%s", timers)
	}
	w := b.post("/alerts/stop", url.Values{"back": {"/memory"}})
	if w.Code != http.StatusSeeOther || w.Header().Get("Location") != "/memory" {
		t.Fatalf("stop: %d %s", w.Code, w.Header().Get("Location"))
	}
	if body := b.do("GET", "/memory", nil).Body.String(); !strings.Contains(body, "Stopped.") || strings.Contains(body, "The tea timer is ringing.") {
		t.Errorf("after the Stop:\n%s", body)
	}
	if w := b.post("/alerts/stop", url.Values{"back": {"//evil.example/"}}); w.Header().Get("Location") != "/" {
		t.Errorf("a Stop sent back to another site: %s", w.Header().Get("Location"))
	}
}

func TestLeft(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{-time.Second, "now"}, {4*time.Minute + 59*time.Second, "4:59"}, {time.Hour + 2*time.Minute + 3*time.Second, "1:02:03"}, {51 * time.Hour, "2 days 3 h"}} {
		if got := left(now.Add(tc.d), now); got != tc.want {
			t.Errorf("left(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

// TestResetPassword: Reset logs every browser out, forgets the password
// and asks for a new code; a page started later over the same store asks
// for the same code, as does one after Reset on the store alone.
func TestResetPassword(t *testing.T) {
	r := newRig(t)
	b := r.setUp()
	code, err := r.srv.Reset(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, pending := r.srv.SetupCode(); !pending || got != code {
		t.Fatalf("after Reset the page asks for %q (pending %v), want %q", got, pending, code)
	}
	if w := b.do("GET", "/memory", nil); w.Code != http.StatusSeeOther {
		t.Errorf("the browser is still logged in after the reset: %d", w.Code)
	}
	if w := r.browser().do("POST", "/login", url.Values{"password": {"correct horse"}}); w.Code == http.StatusSeeOther {
		t.Error("the old password logs in after the reset")
	}
	st := r.srv.access.keep()
	later, err := New(t.Context(), Options{API: r.srv.o.API, Store: st})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := later.SetupCode(); got != code {
		t.Errorf("a page started after the reset asks for %q, want %q", got, code)
	}
	offline, err := Reset(t.Context(), st)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := New(t.Context(), Options{API: r.srv.o.API, Store: st}); again == nil {
		t.Fatal("no page")
	} else if got, _ := again.SetupCode(); got != offline {
		t.Errorf("after Reset on the store the page asks for %q, want %q", got, offline)
	}
}

// downBox is a box whose model server does not answer.
type downBox struct{ box }

func (d *downBox) Status(ctx context.Context) control.Status {
	st := d.box.Status(ctx)
	st.Links = []control.Check{{Name: "model server", Detail: "http://gpu.lan:11434, unreachable: llm: version: dial tcp 10.0.0.9:11434: connect: connection refused"}}
	return st
}

// TestStatusLeadsWithTheAnswer: with the model server down the status page
// says first, in one plain sentence, that it answers only simple things
// and what to do; the raw error is only in the details fold.
func TestStatusLeadsWithTheAnswer(t *testing.T) {
	r := newRig(t)
	r.srv.o.API.Box = &downBox{box{state: "idle"}}
	b := r.setUp()
	body := b.do("GET", "/", nil).Body.String()
	answer := strings.Index(body, "Only simple things: it cannot reach its model server (http://gpu.lan:11434)")
	details := strings.Index(body, "<details")
	raw := strings.Index(body, "connection refused")
	if answer < 0 || details < 0 || raw < details || answer > details {
		t.Errorf("the answer at %d, the details fold at %d, the raw error at %d:\n%s", answer, details, raw, body)
	}
	if !strings.Contains(body, `<a href="/setup/model">Put it right</a>`) || strings.Contains(body, "All checks pass</span>") && !strings.Contains(body, "<details") {
		t.Errorf("no way to put it right:\n%s", body)
	}
}
