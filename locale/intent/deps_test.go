package intent_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestNoYAMLInTheBinary: the YAML reader is the generator's; the package
// the binary links reads the compact form only, and imports nothing of
// reply.
func TestNoYAMLInTheBinary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.Contains(dep, "yaml") || strings.HasPrefix(dep, "github.com/harkbox/hark/reply") {
			t.Errorf("locale/intent links %s", dep)
		}
	}
}
