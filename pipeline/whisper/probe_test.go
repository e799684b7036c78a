package whisper

import (
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
