package center

import (
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/harkbox/hark/storage"
)

// startIn starts conversation conv as the node of cred, and returns the
// answer's status code.
func startIn(t *testing.T, h http.Handler, cred, conv string) int {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, PathStart, strings.NewReader(`{"conversation_id":"`+conv+`","node_context":{"timezone":"UTC"}}`))
	req.Header.Set("X-API-Key", cred)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code
}

// stored is every key the center keeps in dir's store, read back from
// the disk.
func stored(t *testing.T, dir string) []string {
	t.Helper()
	db, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	keys, err := db.Settings().Keys(t.Context(), "center/")
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// TestRevokedNodeLeavesNoRecords: a node revoked (unpaired) leaves nothing
// of its conversations in the store; the other nodes' stay theirs.
func TestRevokedNodeLeavesNoRecords(t *testing.T) {
	dir := t.TempDir()
	c := newCenter(t, dir, Options{})
	kitchen := addNode(t, c.keys, "kitchen")
	hall := addNode(t, c.keys, "hall")
	h := c.srv.Handler()
	for _, s := range []struct{ cred, conv string }{{kitchen, "kitchen-1"}, {kitchen, "kitchen/2"}, {hall, "hall-1"}} {
		if code := startIn(t, h, s.cred, s.conv); code != http.StatusOK {
			t.Fatalf("start of %s: %d", s.conv, code)
		}
	}
	c.srv.closeAll()
	if err := c.keys.Revoke(t.Context(), "kitchen"); err != nil {
		t.Fatal(err)
	}
	c.stop()
	want := []string{ownerKey("hall-1"), keysSetting}
	if got := stored(t, dir); !slices.Equal(got, want) {
		t.Errorf("the store after the kitchen was revoked holds %q; want only %q", got, want)
	}
}
