package box

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/storage"
)

// TestMemoryNotReadIsNoEmptyMemory: a store of which nothing could be
// opened (here a file where its directory should be; on a board an I/O
// error) is not a store that remembers nothing: the API says it cannot
// read, and why, rather than an empty list that `hark memory` and the
// page show as "nothing remembered".
func TestMemoryNotReadIsNoEmptyMemory(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(path, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := storage.Open(path, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	m := newMemoryResource(db)
	facts, err := m.Facts(t.Context())
	if !errors.Is(err, control.ErrUnavailable) || !strings.Contains(err.Error(), "can be read") {
		t.Errorf("Facts with nothing open = %v, %v; want ErrUnavailable saying nothing can be read", facts, err)
	}
	convs, err := m.Conversations(t.Context())
	if !errors.Is(err, control.ErrUnavailable) {
		t.Errorf("Conversations with nothing open = %v, %v; want ErrUnavailable", convs, err)
	}
}
