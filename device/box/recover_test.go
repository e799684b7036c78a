package box

import (
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/storage"
)

// TestRecoverForgetsThePasswordAndSaysTheCode: the button's long double
// press on a box whose page has a password makes the page ask for a new
// setup code, says that code digit by digit, and leaves everything else
// the store holds alone; with no page running it says so.
func TestRecoverForgetsThePasswordAndSaysTheCode(t *testing.T) {
	ctx := t.Context()
	db, err := storage.Open(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	store := db.Settings()
	if err := store.Set(ctx, "web/password", map[string]string{"hash": "$2a$10$somethingthatisahash"}); err != nil {
		t.Fatal(err)
	}
	if err := store.Set(ctx, "other/fact", "the spare key is under the mat"); err != nil {
		t.Fatal(err)
	}
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
	var fact string
	if ok, err := store.Get(ctx, "other/fact", &fact); !ok || err != nil || fact != "the spare key is under the mat" {
		t.Errorf("the rest of the store changed: %q %v %v", fact, ok, err)
	}
	said = nil
	(&page{}).recover(ctx, locale.English, say, slog.New(slog.DiscardHandler))
	if len(said) != 1 || !strings.Contains(said[0], "web page is off") {
		t.Errorf("with no page: said %q, want that the page is off", said)
	}
}
