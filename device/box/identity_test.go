package box

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIdentityIsMadeOnceAndKept(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	id, created, err := ensureIdentity(dir)
	if err != nil || !created || len(id) != 32 {
		t.Fatalf("first start: %q created=%v err=%v", id, created, err)
	}
	again, created, err := ensureIdentity(dir)
	if err != nil || created || again != id {
		t.Fatalf("second start: %q created=%v err=%v; want %q kept", again, created, err, id)
	}
	other, _, _ := ensureIdentity(t.TempDir())
	if other == id {
		t.Error("two boxes got the same identity")
	}
	os.WriteFile(filepath.Join(dir, identityFile), []byte("garbage\n"), 0o644)
	if _, _, err := ensureIdentity(dir); err == nil || !strings.Contains(err.Error(), "not 32 hex digits") {
		t.Errorf("a damaged identity: %v; want it named, not silently replaced", err)
	}
}
