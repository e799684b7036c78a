package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/internal/ext4test"
	"github.com/harkbox/hark/storage"
)

// A command without the daemon, on a card that turned read-only: what it
// changed cannot be kept past its exit, so it says so and fails, rather
// than answer "OK" and lose it; what was stored before is still read.
func TestOneShotOnAReadOnlyCardSaysWhatIsLost(t *testing.T) {
	if !ext4test.InNamespace(t) {
		return
	}
	card := ext4test.Mount(t, ext4test.Make(t, 128<<20), filepath.Join(t.TempDir(), "card"))
	dir := filepath.Join(card.Dir, "hark")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	getenv := vars(map[string]string{"OLLAMA_HOST": "http://" + deadPort(t), "HOME": t.TempDir()})
	if code, out, errOut := ask(t, getenv, "ask", "--data", dir, "remember that the spare key is under the blue pot"); code != 0 {
		t.Fatalf("remember on a sound card: code %d, stdout %q, stderr %q", code, out, errOut)
	}

	card.Break(t)
	for _, said := range []string{"remember that the dog is called Rex", "set a timer for 5 minutes"} {
		code, out, errOut := ask(t, getenv, "ask", "--data", dir, said)
		if code != 1 || !strings.Contains(errOut, "not saved") || !strings.Contains(errOut, "read-only") {
			t.Errorf("ask %q on a read-only card: code %d, stdout %q, stderr %q; want code 1 and stderr saying it was not saved, the card being read-only", said, code, out, errOut)
		}
	}
	// A question changes nothing the household told: only the record of
	// the talk is lost, which the command says without failing.
	if code, out, errOut := ask(t, getenv, "ask", "--data", dir, "what time is it"); code != 0 || out == "" || !strings.Contains(errOut, "not kept") {
		t.Errorf("a question on a read-only card: code %d, stdout %q, stderr %q; want code 0, the answer, and stderr saying the conversation was not kept", code, out, errOut)
	}
	code, out, errOut := ask(t, getenv, "memory", "--data", dir)
	if code != 0 || !strings.Contains(out, "the spare key is under the blue pot") {
		t.Errorf("hark memory on the read-only card: code %d, stdout %q, stderr %q; want the fact stored before", code, out, errOut)
	}
}

// A command without the daemon reads every table whole as it opens the
// store: a table that rotted since the last run, trusted as checked
// before, is set aside at once (every byte kept) rather than read with
// records missing, since the re-read a minute after opening never comes
// in a command that exits.
func TestOneShotChecksEveryTableAtOpen(t *testing.T) {
	dir := t.TempDir()
	getenv := vars(map[string]string{"OLLAMA_HOST": "http://" + deadPort(t), "HOME": t.TempDir()})
	// Enough facts for a table of many blocks, the store opened twice:
	// its tables are checked, and trusted from then on.
	for range 2 {
		db, err := storage.Open(dir, storage.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 50 {
			if _, err := db.Facts().Add(t.Context(), fmt.Sprintf("fact number %d: the spare key is under the blue pot", i), time.Now()); err != nil {
				t.Fatal(err)
			}
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	tables, _ := filepath.Glob(filepath.Join(dir, "*.sst"))
	if len(tables) == 0 {
		t.Fatal("no table written")
	}
	// One byte of the first table turned, its size and time kept: a
	// card's bit rot.
	info, err := os.Stat(tables[0])
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(tables[0])
	if err != nil {
		t.Fatal(err)
	}
	b[100] ^= 0xff
	if err := os.WriteFile(tables[0], b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tables[0], info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := ask(t, getenv, "memory", "--data", dir)
	set, _ := filepath.Glob(filepath.Join(dir, "recovered-*", filepath.Base(tables[0])))
	if len(set) != 1 {
		t.Errorf("hark memory after a table rotted: code %d, stdout %q, stderr %q; want the table set aside under recovered-*", code, out, errOut)
	}
}

// A command without the daemon whose store found damaged files as it
// opened says so in a line of its own, whatever its log level: hark ask
// logs only errors, and the recovery is a warning.
func TestOneShotSaysTheStoreWasRecovered(t *testing.T) {
	dir := t.TempDir()
	getenv := vars(map[string]string{"OLLAMA_HOST": "http://" + deadPort(t), "HOME": t.TempDir()})
	if code, out, errOut := ask(t, getenv, "ask", "--data", dir, "remember that the spare key is under the blue pot"); code != 0 {
		t.Fatalf("remember: code %d, stdout %q, stderr %q", code, out, errOut)
	}
	if err := os.Remove(filepath.Join(dir, "MANIFEST")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := ask(t, getenv, "ask", "--data", dir, "what time is it")
	if !strings.Contains(errOut, "hark: warning: ") || !strings.Contains(errOut, "MANIFEST is missing") || !strings.Contains(errOut, "recovered-") {
		t.Errorf("hark ask after the MANIFEST was lost: code %d, stdout %q, stderr %q; want a warning saying what was found and where it was moved", code, out, errOut)
	}
}

// A command while another process holds the data directory (here: a
// store this test keeps open, as a hark command still running does) is
// told that another hark holds it, not only that `hark run` might.
func TestOneShotWhileAnotherHoldsTheStore(t *testing.T) {
	dir := t.TempDir()
	held, err := storage.Open(dir, storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	getenv := vars(map[string]string{"OLLAMA_HOST": "http://" + deadPort(t), "HOME": t.TempDir()})
	code, out, errOut := ask(t, getenv, "memory", "--data", dir)
	if code != 1 || !strings.Contains(errOut, "a hark command still running") || !strings.Contains(errOut, dir) {
		t.Errorf("hark memory while another holds the store: code %d, stdout %q, stderr %q; want code 1 and a message naming the directory and a command still running", code, out, errOut)
	}
}

// An interrupt (Ctrl-C) while a command waits on a silent model server
// says the command was interrupted, not the inner call it cut short
// ("control: POST /api/v1/ask: Post \"http://hark/api/v1/ask\": interrupt
// signal received").
func TestInterruptedCommandSaysSo(t *testing.T) {
	getenv := vars(map[string]string{"OLLAMA_HOST": "http://" + silentHost(t), "HOME": t.TempDir()})
	ctx, cancel := context.WithCancelCause(t.Context())
	defer cancel(nil)
	time.AfterFunc(500*time.Millisecond, func() { cancel(errors.New("interrupt signal received")) })
	var out, errOut output
	code := run(ctx, []string{"ask", "--data", t.TempDir(), "tell me a long story about a dragon"}, env{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: getenv})
	if code != 1 || errOut.String() != "hark ask: interrupted\n" {
		t.Errorf("ask interrupted: code %d, stdout %q, stderr %q; want code 1 and \"hark ask: interrupted\"", code, out.String(), errOut.String())
	}
}
