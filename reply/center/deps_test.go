package center

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoPipeline: the center reaches the box's speech engines through its
// own interfaces, never by importing the pipeline.
func TestNoPipeline(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasPrefix(dep, "github.com/harkbox/hark/pipeline") {
			t.Errorf("reply/center links %s", dep)
		}
	}
}
