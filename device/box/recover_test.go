package box

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/locale"
)

// mapStore is a web.Store in memory, as JSON like the real one.
type mapStore struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (s *mapStore) Get(_ context.Context, key string, v any) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.m[key]
	if !ok {
		return false, nil
	}
	return true, json.Unmarshal(b, v)
}

func (s *mapStore) Set(_ context.Context, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m[key] = b
	return nil
}

// TestRecoverForgetsThePasswordAndSaysTheCode: the button's long double
// press on a box whose page has a password makes the page ask for a new
// setup code, says that code digit by digit, and leaves everything else
// the store holds alone; with no page running it says so.
func TestRecoverForgetsThePasswordAndSaysTheCode(t *testing.T) {
	ctx := t.Context()
	store := &mapStore{m: map[string][]byte{
		"web/password": []byte(`{"hash":"$2a$10$somethingthatisahash"}`),
		"other/fact":   []byte(`"the spare key is under the mat"`),
	}}
	status := health.New(health.Options{Version: "test", State: "running", Log: slog.New(slog.DiscardHandler)})
	srv, err := web.New(ctx, web.Options{API: control.API{Box: status}, Store: store})
	if err != nil {
		t.Fatal(err)
	}
	if _, pending := srv.SetupCode(); pending {
		t.Fatal("a page with a password asks for a setup code before the reset")
	}
	pg := &page{}
	pg.srv.Store(srv)
	var said []string
	say := func(_ context.Context, s string) { said = append(said, s) }
	pg.recover(ctx, locale.English, say, slog.New(slog.DiscardHandler))
	code, pending := srv.SetupCode()
	if !pending || len(code) != 8 {
		t.Fatalf("after the recovery: code %q pending %v, want a new eight-digit code", code, pending)
	}
	want := []string{"The web page's password is forgotten; it asks for a new setup code.",
		"The web page's setup code is " + strings.Join(strings.Split(code, ""), " ") + "."}
	if strings.Join(said, "|") != strings.Join(want, "|") {
		t.Errorf("said %q, want %q", said, want)
	}
	if string(store.m["other/fact"]) != `"the spare key is under the mat"` {
		t.Errorf("the rest of the store changed: %q", store.m["other/fact"])
	}
	said = nil
	(&page{}).recover(ctx, locale.English, say, slog.New(slog.DiscardHandler))
	if len(said) != 1 || !strings.Contains(said[0], "web page is off") {
		t.Errorf("with no page: said %q, want that the page is off", said)
	}
}
