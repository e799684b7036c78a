package ci

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCgoCheckNamesTheMissingLibrary runs .ci/cgocheck with an armv7
// compiler that fails the way gcc-arm-linux-gnueabihf does without
// libc6-dev-armhf-cross, and expects the package named.
func TestCgoCheckNamesTheMissingLibrary(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("the go command is not on PATH")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no host C compiler (gcc): .ci/deps installs it")
	}
	fake := filepath.Join(t.TempDir(), "arm-linux-gnueabihf-gcc")
	script := "#!/bin/sh\necho '/usr/arm-linux-gnueabihf/include/features.h:392:12: fatal error: bits/libc-header-start.h: No such file or directory' >&2\nexit 1\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		env, want string
	}{
		{"CC_ARMV7", "armv7: install gcc-arm-linux-gnueabihf libc6-dev-armhf-cross"},
		{"CC_ARM64", "arm64: install gcc-aarch64-linux-gnu libc6-dev-arm64-cross"},
	} {
		t.Run(tt.env, func(t *testing.T) {
			cmd := exec.Command("../../.ci/cgocheck")
			cmd.Env = append(os.Environ(), tt.env+"="+fake)
			out, err := cmd.CombinedOutput()
			if err == nil {
				t.Fatalf("cgocheck passed with a compiler that fails:\n%s", out)
			}
			if !strings.Contains(string(out), tt.want) || !strings.Contains(string(out), "bits/libc-header-start.h") {
				t.Errorf("cgocheck said:\n%s\nwant %q and the compiler's complaint", out, tt.want)
			}
		})
	}
}
