//go:build !linux

package sandboxtest

import "testing"

// Restrict skips: socket families are restricted (by systemd, and here by
// seccomp) only on Linux.
func Restrict(t *testing.T, fams []string) {
	t.Skip("address families are restricted only on Linux: skipped")
}
