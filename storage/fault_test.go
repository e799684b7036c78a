package storage

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/ext4test"
)

// waitHealth waits until the store's health satisfies ok; the deadline
// only keeps a broken test from hanging.
func waitHealth(t *testing.T, db *DB, what string, ok func(Health) bool) time.Duration {
	t.Helper()
	start := time.Now()
	deadline := time.After(30 * time.Second)
	for {
		ch := db.Changed()
		if h := db.Health(); ok(h) {
			return time.Since(start)
		}
		select {
		case <-ch:
		case <-deadline:
			t.Fatalf("waited 30 s for the store to be %s; it is %+v", what, db.Health())
		}
	}
}

func holding(h Health) bool { return h.Condition == Holding }
func saving(h Health) bool  { return h.Condition == Saving }

// A card that the kernel turns read-only while the box runs: the store
// notices without a write, keeps reading, holds what is new, refuses the
// schedule at once, closes without hanging, and comes back on a new card
// with what it held.
func TestCardTurnsReadOnlyWhileRunning(t *testing.T) {
	if !ext4test.InNamespace(t) {
		return
	}
	root := t.TempDir()
	fs := ext4test.Mount(t, ext4test.Make(t, 64<<20), filepath.Join(root, "data"))
	dir := filepath.Join(fs.Dir, "hark")
	var log strings.Builder
	db, err := Open(dir, Options{Check: 20 * time.Millisecond, Retry: 50 * time.Millisecond, Timeout: 2 * time.Second,
		Mount: fs.Dir, Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	timer := Item{ID: "t1", Kind: Timer, State: Pending, Due: time.Now().Add(time.Minute)}
	if err := db.Schedule().Put(ctx, timer); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Facts().Add(ctx, "the spare key is under the mat", time.Now()); err != nil {
		t.Fatal(err)
	}

	fs.Break(t)
	took := waitHealth(t, db, "holding", holding)
	t.Logf("figure: the store noticed the read-only card %v after the kernel's error, without a write", took.Round(time.Millisecond))
	h := db.Health()
	if !h.Data || !h.Reading || !errors.Is(h.Err, syscall.EROFS) {
		t.Errorf("health = %+v; want a data fault, still reading, read-only", h)
	}

	began := time.Now()
	err = db.Schedule().Put(ctx, Item{ID: "t2", Kind: Timer, State: Pending, Due: time.Now().Add(30 * time.Second)})
	if !errors.Is(err, ErrUnavailable) {
		t.Errorf("Schedule.Put on a read-only card = %v, want ErrUnavailable", err)
	}
	if d := time.Since(began); d > time.Second {
		t.Errorf("Schedule.Put took %v to fail; want it at once", d)
	}
	items, err := db.Schedule().List(ctx)
	if err != nil || len(items) != 1 || items[0].ID != "t1" {
		t.Errorf("List on a read-only card = %+v, %v; want the timer set before the fault, and only it", items, err)
	}
	if err := db.Settings().Set(ctx, "volume", 7); err != nil {
		t.Errorf("Settings.Set while holding = %v, want it held", err)
	}
	var vol int
	if ok, err := db.Settings().Get(ctx, "volume", &vol); !ok || err != nil || vol != 7 {
		t.Errorf("the held setting reads %v %v %d, want 7", ok, err, vol)
	}
	if _, err := db.Facts().Add(ctx, "the bins go out on tuesday", time.Now()); err != nil {
		t.Errorf("Facts.Add while holding = %v, want it held", err)
	}
	facts, _ := db.Facts().All(ctx)
	if len(facts) != 2 {
		t.Errorf("facts while holding: %+v; want the stored one and the held one", facts)
	}
	if h := db.Health(); h.Held != 2 || !strings.Contains(h.String(), "read-only") {
		t.Errorf("health %q holds %d; want 2 changes held and the read-only card named", h.String(), h.Held)
	}

	// The card pulled: nothing is written to the directory below the
	// mount point. A new card in the slot: the store comes back by itself
	// and writes what it held.
	fs.Detach(t)
	time.Sleep(200 * time.Millisecond) // several rounds of the store's watch
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("the store made %s on the filesystem below the pulled card", dir)
	}
	ext4test.Mount(t, ext4test.Make(t, 64<<20), fs.Dir)
	took = waitHealth(t, db, "saving again", saving)
	t.Logf("figure: back %v after the new card was mounted", took.Round(time.Millisecond))

	began = time.Now()
	if err := db.Close(); err != nil {
		t.Errorf("Close after coming back: %v", err)
	}
	t.Logf("figure: Close took %v", time.Since(began).Round(time.Millisecond))
	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	vol = 0
	if ok, _ := db.Settings().Get(ctx, "volume", &vol); !ok || vol != 7 {
		t.Errorf("the held setting after coming back: %v %d, want 7 on the new card", ok, vol)
	}
	facts, _ = db.Facts().All(ctx)
	if len(facts) != 1 || facts[0].Text != "the bins go out on tuesday" {
		t.Errorf("facts on the new card: %+v; want the one held", facts)
	}
	if n := strings.Count(log.String(), "storage fault"); n != 1 {
		t.Errorf("the fault was logged %d times, want once:\n%s", n, log.String())
	}
}

// SIGTERM on a read-only card: Close returns at once instead of retrying
// Badger's flush for ever.
func TestCloseOnAReadOnlyCardIsBounded(t *testing.T) {
	if !ext4test.InNamespace(t) {
		return
	}
	fs := ext4test.Mount(t, ext4test.Make(t, 64<<20), filepath.Join(t.TempDir(), "data"))
	db, err := Open(fs.Dir, Options{Check: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		db.Settings().Set(t.Context(), "k", i)
	}
	fs.Break(t)
	// The write finds out (the watch is an hour away).
	if err := db.Settings().Set(t.Context(), "k", -1); err != nil {
		t.Errorf("Set on the broken card = %v, want it held", err)
	}
	began := time.Now()
	done := make(chan error, 1)
	go func() { done <- db.Close() }()
	select {
	case <-done:
		t.Logf("figure: Close on a read-only card took %v", time.Since(began).Round(time.Millisecond))
	case <-time.After(20 * time.Second):
		t.Fatal("Close on a read-only card did not return within 20 s")
	}
}

// A box that starts on a card already read-only reads what it stored (the
// timers above all) and holds the rest.
func TestOpenOnAReadOnlyCard(t *testing.T) {
	if !ext4test.InNamespace(t) {
		return
	}
	fs := ext4test.Mount(t, ext4test.Make(t, 64<<20), filepath.Join(t.TempDir(), "data"))
	db, err := Open(fs.Dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Schedule().Put(t.Context(), Item{ID: "t1", Kind: Timer, State: Pending}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if out, err := exec.Command("mount", "-o", "remount,ro", fs.Dir).CombinedOutput(); err != nil {
		t.Fatalf("remount read-only: %v %s", err, out)
	}
	began := time.Now()
	var log strings.Builder
	db, err = Open(fs.Dir, Options{Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatalf("Open on a read-only card = %v; want a store that holds", err)
	}
	defer db.Close()
	t.Logf("figure: Open on a read-only card took %v", time.Since(began).Round(time.Millisecond))
	// Nothing is written to it, so nothing is left half done by a crash.
	if strings.Contains(log.String(), "may go unnoticed") {
		t.Errorf("a read-only card is warned of as a crash that may go unnoticed:\n%s", log.String())
	}
	h := db.Health()
	if h.Condition != Holding || !h.Reading || !h.Data {
		t.Errorf("health on a read-only card: %+v; want holding, reading, a data fault", h)
	}
	items, err := db.Schedule().List(t.Context())
	if err != nil || len(items) != 1 {
		t.Errorf("List on a read-only card: %+v %v; want the stored timer", items, err)
	}
	if err := db.Schedule().Put(t.Context(), Item{ID: "t2", Kind: Timer}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Put on a read-only card = %v, want ErrUnavailable", err)
	}
	if err := db.Settings().Set(t.Context(), "volume", 3); err != nil {
		t.Errorf("Set on a read-only card = %v, want it held", err)
	}
}

// A directory that cannot be opened at all (here: a file where the
// directory should be) gives a store that holds everything in memory.
func TestOpenWhenNothingOpens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "data")
	if err := os.WriteFile(path, []byte("not a directory"), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("Open = %v; want a store that holds", err)
	}
	defer db.Close()
	h := db.Health()
	if h.Condition != Holding || h.Reading || !h.Data {
		t.Errorf("health = %+v; want holding, nothing readable, a data fault", h)
	}
	if err := db.Settings().Set(t.Context(), "volume", 3); err != nil {
		t.Errorf("Set = %v, want it held", err)
	}
	var v int
	if ok, _ := db.Settings().Get(t.Context(), "volume", &v); !ok || v != 3 {
		t.Errorf("held setting = %v %d, want 3", ok, v)
	}
	// Nothing read is not an empty schedule: the scheduler must try again.
	// Said as a read that failed, with why, not as a save.
	if items, err := db.Schedule().List(t.Context()); !errors.Is(err, ErrUnavailable) || !strings.Contains(fmt.Sprint(err), "nothing stored can be read") ||
		!strings.Contains(fmt.Sprint(err), "not a directory") || strings.Contains(fmt.Sprint(err), "save") {
		t.Errorf("List = %v %v, want ErrUnavailable saying nothing stored can be read, and why", items, err)
	}
	if !strings.Contains(h.String(), "nothing stored can be read") {
		t.Errorf("health line %q does not say nothing reads", h.String())
	}
}

// A card so slow that the store gives up waiting for it to open: the box
// goes on from memory, and the store takes Badger when it opens after all,
// writing what it held (here every open is "too slow").
func TestLateOpenIsTakenWhenItComes(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir, Options{OpenTimeout: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	if h := db.Health(); h.Condition != Holding || !errors.Is(h.Err, errStuck) {
		t.Fatalf("health %+v; want the store holding after an open too slow for its timeout", h)
	}
	if err := db.Settings().Set(t.Context(), "volume", 4); err != nil {
		t.Fatal(err)
	}
	waitHealth(t, db, "saving", saving)
	db.Close()
	db = open(t, dir)
	defer db.Close()
	var v int
	if ok, _ := db.Settings().Get(t.Context(), "volume", &v); !ok || v != 4 {
		t.Errorf("the setting held while the open was late: %v %d, want 4 on the card", ok, v)
	}
}

// In hark.service the data directory is bound onto itself
// (ReadWritePaths= under ProtectSystem=strict) whether the data partition
// is there or not: without the partition the store holds what it is told
// in memory and says so, rather than write it to the tmpfs below, where a
// reboot would lose it unsaid.
func TestNotMountedUnderABindOntoItself(t *testing.T) {
	if !ext4test.InNamespace(t) {
		return
	}
	dir := filepath.Join(t.TempDir(), "hark")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(dir, dir, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("cannot bind a directory here: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(dir, syscall.MNT_DETACH) })
	db, err := Open(dir, Options{Mount: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if h := db.Health(); h.Condition != Holding || !h.Data {
		t.Errorf("health %+v, want Holding on a data fault (not mounted)", h)
	}
	if _, err := db.Facts().Add(t.Context(), "the boat is called Hecate", time.Now()); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("the store wrote below the missing partition: %v", entries)
	}
}

// A store opened after the kernel turned the card read-only on an error
// (errors=remount-ro, its journal aborted) still reads what was stored:
// Badger's own read-only open fails there, as it syncs the directory.
func TestOpenOnACardTheKernelTurnedReadOnly(t *testing.T) {
	if !ext4test.InNamespace(t) {
		return
	}
	fs := ext4test.Mount(t, ext4test.Make(t, 64<<20), filepath.Join(t.TempDir(), "data"))
	dir := filepath.Join(fs.Dir, "hark")
	db, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := db.Schedule().Put(ctx, Item{ID: "t1", Kind: Timer, State: Pending, Due: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Facts().Add(ctx, "the spare key is under the blue pot", time.Now()); err != nil {
		t.Fatal(err)
	}
	db.Close()
	fs.Break(t)

	db, err = Open(dir, Options{})
	if err != nil {
		t.Fatalf("Open on a card turned read-only = %v; want a store that holds", err)
	}
	defer db.Close()
	if h := db.Health(); h.Condition != Holding || !h.Reading || !h.Data {
		t.Errorf("health on a card turned read-only: %+v; want holding, reading, a data fault", h)
	}
	if items, err := db.Schedule().List(ctx); err != nil || len(items) != 1 || items[0].ID != "t1" {
		t.Errorf("List on a card turned read-only: %+v %v; want the stored timer", items, err)
	}
	if facts, err := db.Facts().All(ctx); err != nil || len(facts) != 1 || facts[0].Text != "the spare key is under the blue pot" {
		t.Errorf("facts on a card turned read-only: %+v %v; want the stored fact", facts, err)
	}
	if err := db.Schedule().Put(ctx, Item{ID: "t2", Kind: Timer}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Put on a card turned read-only = %v, want ErrUnavailable", err)
	}
}
