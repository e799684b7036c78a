package box

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A model this program loaded after its probe passed is not probed again;
// a load that never reported back (the process died in it), a model or a
// program replaced, and a record that cannot be written all probe again.
func TestProbeRecord(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.bin")
	program := filepath.Join(dir, "hark")
	for _, f := range []string{model, program} {
		if err := os.WriteFile(f, []byte("v1"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	probes := 0
	r := probeRecord{path: filepath.Join(dir, "probed.json"), program: program, args: []string{"probe-model"},
		probe: func(context.Context, string) error { probes++; return nil }}
	step := func(name string, r probeRecord, loaded bool, want int) {
		t.Helper()
		if err := r.Probe(t.Context(), model); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if loaded {
			r.Loaded(model)
		}
		if probes != want {
			t.Fatalf("%s: %d probes so far, want %d", name, probes, want)
		}
	}
	step("first start", r, false, 1)
	step("the load died: probed again", r, true, 2)
	step("loaded before: trusted", r, true, 2)
	step("trusted again", r, false, 2)
	step("the trusted load died: probed again", r, true, 3)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(model, later, later); err != nil {
		t.Fatal(err)
	}
	step("the model changed", r, true, 4)
	step("same model", r, true, 4)
	if err := os.WriteFile(program, []byte("v2, longer"), 0o755); err != nil {
		t.Fatal(err)
	}
	step("the program changed", r, true, 5)
	other := r
	other.args = []string{"probe-model", "--threads", "1"}
	step("other arguments", other, true, 6)

	nowhere := r
	nowhere.path = filepath.Join(dir, "missing", "probed.json")
	step("no record can be written", nowhere, true, 7)
	step("still none", nowhere, true, 8)

	failing := r
	failing.path = filepath.Join(dir, "failing.json")
	failing.probe = func(context.Context, string) error { return errors.New("whisper: model m.bin is corrupt") }
	if err := failing.Probe(t.Context(), model); err == nil {
		t.Fatal("a failing probe passed")
	}
	failing.Loaded(model)
	if _, err := os.Stat(failing.path); err == nil {
		t.Error("a model whose probe failed was recorded")
	}
}
