package storage

import (
	"slices"
	"testing"
)

// TestSettingsDeleteAndKeys: a deleted setting is gone, after a reopen
// too, and Keys lists those under a prefix only, in key order.
func TestSettingsDeleteAndKeys(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	s := db.Settings()
	for _, k := range []string{"center/conversation/b", "center/conversation/a", "center/nodes", "volume"} {
		if err := s.Set(t.Context(), k, k); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Delete(t.Context(), "center/conversation/b"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(t.Context(), "never/set"); err != nil {
		t.Errorf("Delete of a setting never set = %v, want nil", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open(t, dir)
	defer db.Close()
	s = db.Settings()
	var v string
	if ok, err := s.Get(t.Context(), "center/conversation/b", &v); ok || err != nil {
		t.Errorf("Get of a deleted setting = %v, %v; want it gone", ok, err)
	}
	keys, err := s.Keys(t.Context(), "center/")
	if want := []string{"center/conversation/a", "center/nodes"}; err != nil || !slices.Equal(keys, want) {
		t.Errorf("Keys(center/) = %q, %v; want %q", keys, err, want)
	}
}
