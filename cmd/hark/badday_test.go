package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkbox/hark/internal/ext4test"
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
	code, out, errOut := ask(t, getenv, "memory", "--data", dir)
	if code != 0 || !strings.Contains(out, "the spare key is under the blue pot") {
		t.Errorf("hark memory on the read-only card: code %d, stdout %q, stderr %q; want the fact stored before", code, out, errOut)
	}
}
