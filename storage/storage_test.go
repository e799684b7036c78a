package storage

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"
)

func open(t *testing.T, dir string) *DB {
	t.Helper()
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

func TestDialogueSurvivesReopen(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	base := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	d := db.Dialogue()
	for i := range 5 {
		e := Exchange{At: base.Add(time.Duration(i) * time.Minute), Conversation: "c1", User: fmt.Sprintf("q%d", i), Assistant: fmt.Sprintf("a%d", i)}
		if err := d.Append(t.Context(), e); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = open(t, dir)
	defer db.Close()
	got, err := db.Dialogue().Recent(t.Context(), base.Add(2*time.Minute), 10)
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, e := range got {
		users = append(users, e.User)
	}
	if want := "q2 q3 q4"; strings.Join(users, " ") != want {
		t.Errorf("Recent since minute 2 = %v, want %s (oldest first)", users, want)
	}
	got, _ = db.Dialogue().Recent(t.Context(), base, 2)
	if len(got) != 2 || got[0].User != "q3" || got[1].User != "q4" {
		t.Errorf("Recent limit 2 = %+v, want the newest two, q3 then q4", got)
	}
}

func TestSameInstantExchangesKeptApart(t *testing.T) {
	db := open(t, t.TempDir())
	defer db.Close()
	at := time.Now()
	for _, u := range []string{"one", "two"} {
		if err := db.Dialogue().Append(t.Context(), Exchange{At: at, User: u}); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := db.Dialogue().Recent(t.Context(), at, 10)
	if len(got) != 2 {
		t.Errorf("got %d exchanges at one instant, want 2", len(got))
	}
}

func TestSecondOpenIsLocked(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	defer db.Close()
	_, err := Open(dir, Options{})
	if !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
}

func TestNewerSchemaRefused(t *testing.T) {
	dir := t.TempDir()
	db := open(t, dir)
	if err := db.bdb.Update(func(txn *badger.Txn) error { return txn.Set(schemaKey, []byte("99")) }); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err := Open(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), "schema 99") {
		t.Fatalf("Open of a newer schema = %v, want a refusal naming it", err)
	}
}

func TestProfilesRespectBadgerLimits(t *testing.T) {
	for p := range budgets {
		dir := t.TempDir()
		db, err := Open(dir, Options{Profile: p})
		if err != nil {
			t.Errorf("profile %s: %v", p, err)
			continue
		}
		db.Close()
	}
	if _, err := Open(t.TempDir(), Options{Profile: "huge"}); err == nil || !strings.Contains(err.Error(), `"huge"`) {
		t.Errorf("unknown profile error = %v, want it named", err)
	}
}

func TestOpenUnwritableDirSaysWhere(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: permissions do not stop writes")
	}
	dir := filepath.Join(t.TempDir(), "ro")
	os.Mkdir(dir, 0o500)
	_, err := Open(dir, Options{})
	if err == nil || !strings.Contains(err.Error(), dir) {
		t.Errorf("Open of a read-only dir = %v, want an error naming it", err)
	}
}

func TestExists(t *testing.T) {
	dir := t.TempDir()
	if Exists(dir) {
		t.Error("an empty directory holds a store")
	}
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if !Exists(dir) {
		t.Error("the directory Open made a store in holds none")
	}
	// A store whose MANIFEST was lost is still one: Open sets its files
	// aside and reads them back.
	if err := os.Remove(filepath.Join(dir, "MANIFEST")); err != nil {
		t.Fatal(err)
	}
	if !Exists(dir) {
		t.Error("a store without its MANIFEST is taken for no store")
	}
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	if Exists(other) || Exists(filepath.Join(other, "missing")) {
		t.Error("a directory of other files, or a missing one, holds a store")
	}
}
