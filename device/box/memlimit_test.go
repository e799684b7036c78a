package box

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestLimitMemory: the configured limit is the runtime's, unless
// GOMEMLIMIT set one; 0 leaves the runtime's own.
func TestLimitMemory(t *testing.T) {
	if os.Getenv("GOMEMLIMIT") != "" {
		t.Skip("GOMEMLIMIT is set for this test process; it wins")
	}
	was := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(was) })
	if got := limitMemory(48); got != 48<<20 {
		t.Errorf("limit %d, want 48 MiB", got)
	}
	if got := limitMemory(0); got != 48<<20 {
		t.Errorf("0 changed the limit to %d", got)
	}
}
