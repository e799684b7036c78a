package storage

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A key that is gone or damaged while secrets exist is an error, never a
// new key made silently over secrets it cannot read.
func TestSecretsKeyMissingOrDamaged(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := t.Context()
	key := filepath.Join(dir, "secrets.key")
	if err := db.Secrets("").Set(ctx, "HA_TOKEN", "abc"); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(key); err != nil || st.Size() != 32 || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st, err)
	}
	for _, tt := range []struct {
		name   string
		damage func()
	}{
		{"missing", func() { os.Remove(key) }},
		{"empty", func() { os.WriteFile(key, nil, 0o600) }},
		{"short", func() { os.WriteFile(key, []byte("0123456789"), 0o600) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.damage()
			s := db.Secrets("")
			if _, err := s.Get(ctx, "HA_TOKEN"); !errors.Is(err, ErrKeyMissing) {
				t.Errorf("Get: %v, want ErrKeyMissing", err)
			}
			if err := s.Set(ctx, "OTHER", "x"); !errors.Is(err, ErrKeyMissing) {
				t.Errorf("Set: %v, want ErrKeyMissing", err)
			}
			if tt.name == "missing" {
				if _, err := os.Stat(key); !os.IsNotExist(err) {
					t.Error("a new key was made over stored secrets")
				}
			}
		})
	}
	// With no secrets stored, a missing key is simply made.
	fresh := t.TempDir()
	db2, err := Open(fresh, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if err := db2.Secrets("").Set(ctx, "A", "b"); err != nil {
		t.Errorf("first secret: %v", err)
	}
}
