package whisper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The probe turns a child that crashes, overruns or fails into an error
// that says so, and a child that loads the model into nil.
func TestProbeCommand(t *testing.T) {
	sh := func(script string, timeout time.Duration) ProbeCommand {
		return ProbeCommand{Path: "/bin/sh", Args: []string{"-c", script, "probe"}, Timeout: timeout}
	}
	tests := []struct {
		name string
		cmd  ProbeCommand
		want string // "" means no error
	}{
		{"loads", sh("exit 0", time.Minute), ""},
		{"aborts", sh(`echo "GGML_ASSERT(n_dims <= 4) failed"; kill -ABRT $$`, time.Minute), "whisper.cpp crashed loading it in a test process (aborted): GGML_ASSERT"},
		{"hangs", sh("sleep 30", 300*time.Millisecond), "did not finish within 300ms"},
		{"says why", sh(`echo "whisper: model $1 is corrupt: tensor x"; exit 1`, time.Minute), "whisper: model m.bin is corrupt: tensor x"},
		{"says nothing", sh("exit 3", time.Minute), "did not load in a test process (exit status 3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cmd.Probe(t.Context(), "m.bin")
			if tt.want == "" {
				if err != nil {
					t.Errorf("err %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err %v, want %q", err, tt.want)
			}
		})
	}
}

// A model this program loaded after its probe passed is not probed again;
// a load that never reported back (the process died in it), a model or a
// program replaced, and a record that cannot be written all probe again.
func TestProbeRecord(t *testing.T) {
	dir := t.TempDir()
	model := filepath.Join(dir, "m.bin")
	if err := os.WriteFile(model, []byte("model"), 0o644); err != nil {
		t.Fatal(err)
	}
	count := filepath.Join(dir, "probes")
	script := filepath.Join(dir, "probe.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho x >>"+count+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p := ProbeCommand{Path: script, Timeout: time.Minute, Record: filepath.Join(dir, "probed.json")}
	probes := func() int {
		b, _ := os.ReadFile(count)
		return strings.Count(string(b), "x")
	}
	step := func(name string, p ProbeCommand, loaded bool, want int) {
		t.Helper()
		if err := p.Probe(t.Context(), model); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if loaded {
			p.Loaded(model)
		}
		if got := probes(); got != want {
			t.Fatalf("%s: %d probes so far, want %d", name, got, want)
		}
	}
	step("first start", p, false, 1)
	step("the load died: probed again", p, true, 2)
	step("loaded before: trusted", p, true, 2)
	step("trusted again", p, false, 2)
	step("the trusted load died: probed again", p, true, 3)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(model, later, later); err != nil {
		t.Fatal(err)
	}
	step("the model changed", p, true, 4)
	step("same model", p, true, 4)
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho x >>"+count+"\n# a new version\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	step("the program changed", p, true, 5)
	other := p
	other.Args = []string{"probe-model"}
	step("other arguments", other, true, 6)

	nowhere := p
	nowhere.Record = filepath.Join(dir, "missing", "probed.json")
	step("no record can be written", nowhere, true, 7)
	step("still none", nowhere, true, 8)

	failing := ProbeCommand{Path: "/bin/sh", Args: []string{"-c", "exit 3", "probe"}, Timeout: time.Minute, Record: filepath.Join(dir, "failing.json")}
	if err := failing.Probe(t.Context(), model); err == nil {
		t.Fatal("a failing probe passed")
	}
	failing.Loaded(model)
	if _, err := os.Stat(failing.Record); err == nil {
		t.Error("a model whose probe failed was recorded")
	}
}
