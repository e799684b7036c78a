package box

import (
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/storage"
)

// TestFactsKeptInClearAreSealedAtStart: a secret told to an older
// version in words it did not read as one ("la contraseña del wifi es
// hunter2") was kept in clear; the box seals it when it opens the store,
// keeping when it was said, and the other facts as they are.
func TestFactsKeptInClearAreSealedAtStart(t *testing.T) {
	for _, role := range []string{"box", "center"} {
		t.Run(role, func(t *testing.T) { factsSealedAtStart(t, role) })
	}
}

func factsSealedAtStart(t *testing.T, role string) {
	srv, _ := modelServer(t)
	cfg, res := configure(t, "[reply]\nplanner = false\n", map[string]string{"OLLAMA_HOST": srv.URL})
	db, err := storage.Open(cfg.DataDir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	said := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for _, text := range []string{"la contraseña del wifi es hunter2", "the spare key is under the blue pot"} {
		if _, err := db.Facts().Add(t.Context(), text, said); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	var opened *storage.DB
	if role == "box" {
		b, err := Open(cfg, res, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		opened = b.db
	} else {
		c, err := OpenCenter(cfg, res, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		opened = c.db
	}
	facts := opened.SealedFacts(opened.Secrets(cfg.Commands.SecretsKey))
	all, err := facts.All(t.Context())
	if err != nil || len(all) != 2 {
		t.Fatalf("facts after the start: %+v, %v; want the two", all, err)
	}
	for _, f := range all {
		switch {
		case strings.Contains(f.Text, "spare key"):
			if len(f.Sealed) > 0 || f.Text != "the spare key is under the blue pot" {
				t.Errorf("a fact without a secret was changed: %+v", f)
			}
		case strings.Contains(f.Text, "hunter2") || len(f.Sealed) == 0:
			t.Errorf("the secret is still kept in clear: %+v", f)
		default:
			if was, err := facts.Reveal(t.Context(), f); err != nil || was != "la contraseña del wifi es hunter2" || !f.At.Equal(said) {
				t.Errorf("the sealed fact reads %q (%v) at %v; want it as said, at %v", was, err, f.At, said)
			}
		}
	}
}
