package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// fakeHouse is an in-memory implementation of every resource.
type fakeHouse struct {
	mu      sync.Mutex
	alerts  []Alert
	secrets map[string]string
	facts   []Fact
	convs   []Conversation
	logs    []string
	full    bool
	ringing bool
}

func newHouse() *fakeHouse {
	return &fakeHouse{
		alerts:  []Alert{{ID: "t1", Kind: "timer", Name: "pasta", Due: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}, {ID: "a1", Kind: "alarm", Due: time.Date(2026, 1, 3, 7, 0, 0, 0, time.UTC), Repeats: true}},
		secrets: map[string]string{},
		facts:   []Fact{{ID: "f1", Text: "the spare key is under the mat"}},
		convs:   []Conversation{{ID: "c1", Exchanges: []Exchange{{User: "hi", Assistant: "hello"}}}},
		logs:    []string{"one", "two", "three"},
	}
}

func (h *fakeHouse) List(_ context.Context, all bool) ([]Alert, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []Alert
	for _, a := range h.alerts {
		if all || a.Kind == "timer" {
			out = append(out, a)
		}
	}
	return out, nil
}

func (h *fakeHouse) Add(_ context.Context, na NewAlert) (Alert, error) {
	if na.Kind != "timer" || na.In <= 0 {
		return Alert{}, fmt.Errorf("%w: only timers of some length here", ErrInvalid)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	a := Alert{ID: fmt.Sprintf("t%d", len(h.alerts)+1), Kind: na.Kind, Name: na.Name, Due: time.Now().Add(na.In)}
	h.alerts = append(h.alerts, a)
	return a, nil
}

func (h *fakeHouse) Cancel(_ context.Context, id string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	i := slices.IndexFunc(h.alerts, func(a Alert) bool { return a.ID == id })
	if i < 0 {
		return fmt.Errorf("%w: no timer, alarm or reminder %q", ErrNotFound, id)
	}
	h.alerts = slices.Delete(h.alerts, i, i+1)
	return nil
}

// Stop silences what rings: the pasta timer rings in these tests.
func (h *fakeHouse) Stop(context.Context) (bool, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	was := h.ringing
	h.ringing = false
	return was, nil
}

type houseSecrets struct{ *fakeHouse }

func (h houseSecrets) Names(context.Context) ([]string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	var n []string
	for k := range h.secrets {
		n = append(n, k)
	}
	slices.Sort(n)
	return n, nil
}

func (h houseSecrets) Set(_ context.Context, name, value string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.full {
		return fmt.Errorf("%w: 3 MiB free, below the 16 MiB floor", ErrFull)
	}
	h.secrets[name] = value
	return nil
}

func (h houseSecrets) Unset(_ context.Context, name string) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.secrets, name)
	return nil
}

func (h *fakeHouse) Facts(context.Context) ([]Fact, error) { return h.facts, nil }
func (h *fakeHouse) Forget(_ context.Context, id string) error {
	if len(h.facts) == 0 || h.facts[0].ID != id {
		return fmt.Errorf("%w: no fact %q", ErrNotFound, id)
	}
	h.facts = nil
	return nil
}
func (h *fakeHouse) Conversations(context.Context) ([]Conversation, error) { return h.convs, nil }
func (h *fakeHouse) DeleteConversation(_ context.Context, id string) error {
	h.convs = nil
	return nil
}
func (h *fakeHouse) Tail(n int) []string { return h.logs[max(len(h.logs)-n, 0):] }

type fakeCommands struct{}

func (fakeCommands) List(context.Context) ([]CommandInfo, error) {
	return []CommandInfo{{Name: "get_weather", Parameters: []Param{{Name: "place", Type: "string"}}, Setup: true}}, nil
}

func (fakeCommands) Setup(ctx context.Context, name string, io SetupIO) error {
	if name != "get_weather" {
		return fmt.Errorf("%w: no command called %q", ErrNotFound, name)
	}
	io.Say("Let's find your home.")
	place, err := io.Ask("Where do you live?")
	if err != nil {
		return err
	}
	units, err := io.Ask("Celsius or Fahrenheit?")
	if err != nil {
		return err
	}
	if units != "celsius" {
		return errors.New("weather: unknown units " + units)
	}
	io.Say("Home is " + place + ".")
	return nil
}

type fakeAsker struct{}

func (fakeAsker) Ask(ctx context.Context, q Question, say func(string)) (any, error) {
	if q.Text == "fail" {
		say("I can't reach my language model.")
		return map[string]string{"reply": "I can't reach my language model."}, WithHint(errors.New("llm: connection refused"), "start Ollama")
	}
	say("Two plus two is four.")
	say("Anything else?")
	return map[string]any{"reply": "Two plus two is four. Anything else?", "tools": []string{"calculate"}}, nil
}

func houseAPI(h *fakeHouse) API {
	return API{Box: &fakeBox{idle: make(chan struct{}), waiting: make(chan struct{}, 1)}, Alerts: h, Secrets: houseSecrets{h},
		Commands: fakeCommands{}, Memory: h, Asker: fakeAsker{}, Logs: h}
}

// Both transports serve the same handlers: the daemon's socket and the
// in-process client a command uses without a daemon.
func clients(t *testing.T, a API) map[string]*Client {
	sock := Dial(serveAPI(t, a))
	local := Local(Handler(a))
	t.Cleanup(func() { sock.Close(); local.Close() })
	return map[string]*Client{"socket": sock, "in process": local}
}

func TestResources(t *testing.T) {
	h := newHouse()
	for name, c := range clients(t, houseAPI(h)) {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			timers, err := c.Alerts(ctx, false)
			if err != nil || len(timers) != 1 || timers[0].Name != "pasta" {
				t.Fatalf("timers: %v %v", timers, err)
			}
			all, err := c.Alerts(ctx, true)
			if err != nil || len(all) != 2 || !all[1].Repeats {
				t.Fatalf("all alerts: %v %v", all, err)
			}
			h.mu.Lock()
			h.ringing = true
			h.mu.Unlock()
			if stopped, err := c.StopAlerts(ctx); err != nil || !stopped {
				t.Errorf("stop while ringing: %v %v", stopped, err)
			}
			if stopped, err := c.StopAlerts(ctx); err != nil || stopped {
				t.Errorf("stop with nothing ringing: %v %v", stopped, err)
			}
			if err := c.CancelAlert(ctx, "nope"); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), `"nope"`) {
				t.Errorf("cancel unknown: %v, want ErrNotFound naming the id", err)
			}
			if _, err := c.AddAlert(ctx, NewAlert{Kind: "timer"}); !errors.Is(err, ErrInvalid) {
				t.Errorf("a timer of no length: %v, want ErrInvalid", err)
			}
			if a, err := c.AddAlert(ctx, NewAlert{Kind: "timer", Name: "tea", In: 4 * time.Minute}); err != nil || a.Name != "tea" || a.ID == "" {
				t.Errorf("add a timer: %+v %v", a, err)
			} else if err := c.CancelAlert(ctx, a.ID); err != nil {
				t.Errorf("cancel the added timer: %v", err)
			}
			if err := c.SetSecret(ctx, "HA_TOKEN", "abc"); err != nil {
				t.Fatal(err)
			}
			if err := c.SetSecret(ctx, "EMPTY", ""); !errors.Is(err, ErrInvalid) {
				t.Errorf("empty secret: %v, want ErrInvalid", err)
			}
			names, err := c.SecretNames(ctx)
			if err != nil || !slices.Equal(names, []string{"HA_TOKEN"}) {
				t.Errorf("names %v %v", names, err)
			}
			if err := c.UnsetSecret(ctx, "HA_TOKEN"); err != nil {
				t.Fatal(err)
			}
			cmds, err := c.Commands(ctx)
			if err != nil || len(cmds) != 1 || !cmds[0].Setup {
				t.Errorf("commands %v %v", cmds, err)
			}
			facts, err := c.Facts(ctx)
			if err != nil || len(facts) != 1 {
				t.Errorf("facts %v %v", facts, err)
			}
			convs, err := c.Conversations(ctx)
			if err != nil || len(convs) != 1 || convs[0].Exchanges[0].User != "hi" {
				t.Errorf("conversations %v %v", convs, err)
			}
			lines, err := c.Logs(ctx, 2)
			if err != nil || !slices.Equal(lines, []string{"two", "three"}) {
				t.Errorf("logs %v %v", lines, err)
			}
		})
	}
}

func TestSecretValuesNeverComeBack(t *testing.T) {
	h := newHouse()
	path := serveAPI(t, houseAPI(h))
	c := Dial(path)
	defer c.Close()
	if err := c.SetSecret(t.Context(), "WIFI", "Tr0ub4dor3x"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/api/v1/secrets", "/api/v1/secrets/WIFI"} {
		resp, err := c.send(t.Context(), "GET", p, nil)
		if err != nil {
			if p == "/api/v1/secrets/WIFI" && errors.Is(err, ErrNotFound) {
				continue // there is no endpoint that reads a value
			}
			t.Fatalf("GET %s: %v", p, err)
		}
		var body strings.Builder
		buf := make([]byte, 4096)
		n, _ := resp.Body.Read(buf)
		body.Write(buf[:n])
		resp.Body.Close()
		if strings.Contains(body.String(), "Tr0ub4dor3x") {
			t.Errorf("GET %s returned the value: %s", p, body.String())
		}
	}
}

func TestErrorsAreJSONAndNamed(t *testing.T) {
	h := newHouse()
	h.full = true
	c := Local(Handler(houseAPI(h)))
	defer c.Close()
	err := c.SetSecret(t.Context(), "X", "y")
	var ae *Error
	if !errors.As(err, &ae) || ae.Status != 507 || ae.Code != "storage_full" || !errors.Is(err, ErrFull) || !strings.Contains(err.Error(), "16 MiB floor") {
		t.Errorf("full disk: %#v, want 507 storage_full with the reason", err)
	}
	err = c.do(t.Context(), "GET", "/api/v1/nothing", nil, nil)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "/api/v1/nothing") {
		t.Errorf("unknown path: %v", err)
	}
	err = c.do(t.Context(), "PUT", "/api/v1/secrets/X", map[string]any{"value": "v", "extra": 1}, nil)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "extra") {
		t.Errorf("unknown field: %v, want ErrInvalid naming it", err)
	}
	// Resources a daemon does not serve say so.
	bare := Local(Handler(API{Box: &fakeBox{}}))
	defer bare.Close()
	if _, err := bare.Facts(t.Context()); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "does not serve memory") {
		t.Errorf("no memory: %v", err)
	}
}

func TestAskStreamsSentences(t *testing.T) {
	for name, c := range clients(t, houseAPI(newHouse())) {
		t.Run(name, func(t *testing.T) {
			var said []string
			res, err := c.Ask(t.Context(), Question{Text: "what's 2 plus 2"}, func(s string) { said = append(said, s) })
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(said, []string{"Two plus two is four.", "Anything else?"}) {
				t.Errorf("said %q", said)
			}
			var r struct{ Tools []string }
			if err := json.Unmarshal(res, &r); err != nil || !slices.Equal(r.Tools, []string{"calculate"}) {
				t.Errorf("result %s %v", res, err)
			}
			said = nil
			_, err = c.Ask(t.Context(), Question{Text: "fail"}, func(s string) { said = append(said, s) })
			var h *HintError
			if !errors.As(err, &h) || err.Error() != "llm: connection refused" || h.Hint != "start Ollama" || len(said) != 1 {
				t.Errorf("failed reply: %v after %q, want the error and its hint", err, said)
			}
			if _, err := c.Ask(t.Context(), Question{Text: "  "}, func(string) {}); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "empty") {
				t.Errorf("empty question: %v", err)
			}
		})
	}
}

// answers is a scripted user at the terminal of a setup.
type answers struct {
	replies []string
	said    []string
}

func (a *answers) Ask(q string) (string, error) {
	a.said = append(a.said, "? "+q)
	if len(a.replies) == 0 {
		return "", errors.New("no more answers")
	}
	r := a.replies[0]
	a.replies = a.replies[1:]
	return r, nil
}

func (a *answers) Say(line string) { a.said = append(a.said, line) }

func TestSetupIsAConversation(t *testing.T) {
	for name, c := range clients(t, houseAPI(newHouse())) {
		t.Run(name, func(t *testing.T) {
			u := &answers{replies: []string{"Lyon", "celsius"}}
			if err := c.Setup(t.Context(), "get_weather", u); err != nil {
				t.Fatal(err)
			}
			want := []string{"Let's find your home.", "? Where do you live?", "? Celsius or Fahrenheit?", "Home is Lyon."}
			if !slices.Equal(u.said, want) {
				t.Errorf("conversation %q, want %q", u.said, want)
			}
			u = &answers{replies: []string{"Lyon", "kelvin"}}
			if err := c.Setup(t.Context(), "get_weather", u); err == nil || !strings.Contains(err.Error(), "unknown units kelvin") {
				t.Errorf("failed setup: %v", err)
			}
			if err := c.Setup(t.Context(), "nope", &answers{}); !errors.Is(err, ErrNotFound) {
				t.Errorf("unknown command: %v", err)
			}
		})
	}
}

// TestPeerCredentials connects to the socket as another user: the socket
// file lets it in (mode 0666 here), the peer-credential check does not.
func TestPeerCredentials(t *testing.T) {
	if os.Getenv("HARK_CONTROL_PEER_CHILD") != "" {
		c := Dial(os.Getenv("HARK_CONTROL_PEER_CHILD"))
		_, err := c.Status(context.Background())
		var ae *Error
		if errors.As(err, &ae) {
			fmt.Printf("%d %s\n", ae.Status, ae.Message)
		} else {
			fmt.Printf("other %v\n", err)
		}
		os.Exit(0)
	}
	if os.Getuid() != 0 {
		t.Skip("needs root to connect as another user (runs in CI as root)")
	}
	// A directory every user may enter, holding the socket (mode 0666) and
	// a copy of this test binary.
	dir, err := os.MkdirTemp("", "hark-peer")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	os.Chmod(dir, 0o755)
	path := serveAt(t, filepath.Join(dir, "control.sock"), API{Box: &fakeBox{}})
	os.Chmod(path, 0o666)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "control.test")
	if err := os.WriteFile(exe, b, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run", "^TestPeerCredentials$")
	cmd.Env = append(os.Environ(), "HARK_CONTROL_PEER_CHILD="+path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("could not run the test binary as nobody: %v %s", err, out)
	}
	got := strings.TrimSpace(string(out))
	if !strings.HasPrefix(got, "403 ") || !strings.Contains(got, "uid 65534") {
		t.Errorf("as uid 65534: %q, want 403 naming the uid", got)
	}
	// And root (this process) is the administrator.
	if _, err := Dial(path).Status(t.Context()); err != nil {
		t.Errorf("as root: %v", err)
	}
}

func TestNoIdentityIsRefused(t *testing.T) {
	h := Handler(API{Box: &fakeBox{}})
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/api/v1/status", nil)
	h.ServeHTTP(rec, req)
	if rec.Code != 401 || !strings.Contains(rec.Body.String(), "no identity") {
		t.Errorf("no identity: %d %s", rec.Code, rec.Body.String())
	}
	rec = httptest.NewRecorder()
	req = req.WithContext(WithIdentity(req.Context(), Identity{Role: Nobody, Via: "peer credentials", UID: 1000}))
	h.ServeHTTP(rec, req)
	if rec.Code != 403 || !strings.Contains(rec.Body.String(), "uid 1000") {
		t.Errorf("another user: %d %s", rec.Code, rec.Body.String())
	}
}
