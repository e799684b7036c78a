// Package sandboxtest runs a test inside the sandbox hark.service gives
// the daemon, as far as the network goes: a network namespace of its own
// (unshare -rn, so the test may set up interfaces there as root of a user
// namespace) and a seccomp filter that refuses socket(2) of every address
// family the unit's RestrictAddressFamilies= does not allow, as systemd
// does. It catches a daemon that works on a developer's machine and not
// under its unit. Tests that use it skip, saying why, where unshare or
// user namespaces are not available.
package sandboxtest

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// inside names, in the test binary's environment, the test that runs
// inside the sandbox.
const inside = "HARK_SANDBOXTEST_RUN"

// Families are the address families a systemd unit allows its processes
// (AF_UNIX, AF_INET...): the values of its RestrictAddressFamilies= lines,
// an empty one clearing those before. A unit without one, or with a list
// of families to refuse (~AF_PACKET), fails the test: Restrict takes only
// a list of families to allow.
func Families(tb testing.TB, unit string) []string {
	tb.Helper()
	b, err := os.ReadFile(unit)
	if err != nil {
		tb.Fatal(err)
	}
	var fams []string
	found := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "RestrictAddressFamilies=")
		if !ok {
			continue
		}
		found = true
		if strings.HasPrefix(v, "~") {
			tb.Fatalf("%s refuses families (%s): only a list to allow is supported", unit, v)
		}
		if strings.TrimSpace(v) == "" {
			fams = nil
		}
		fams = append(fams, strings.Fields(v)...)
	}
	if !found {
		tb.Fatalf("%s has no RestrictAddressFamilies=", unit)
	}
	return fams
}

// Run runs body in a network namespace of its own, with only a loopback
// interface, which is down: the test binary runs again, for this test
// alone, under `unshare -rn`, and there calls body. This test passes,
// fails or skips as that run did, and shows its output. body may set up
// interfaces with ip(8) before it calls Restrict. It skips where the
// namespace cannot be made.
func Run(t *testing.T, body func(t *testing.T)) {
	t.Helper()
	if os.Getenv(inside) == t.Name() {
		body(t)
		return
	}
	// Under user-mode emulation (make qemu) the sandbox cannot stand for
	// the unit's: qemu makes the host's system calls, which an arm64
	// seccomp filter does not see, and starting the binary again can fail
	// (no binfmt) or hang in the emulated fork, which once held a whole
	// package until its 10-minute limit. Nothing is started.
	if os.Getenv("HARK_EMULATED") != "" {
		t.Skip("under user-mode emulation (HARK_EMULATED) the sandboxed run is not made: qemu's system calls are the host's, and its fork can hang")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is not installed, so the test cannot have a network namespace of its own: skipped")
	}
	if out, err := exec.Command("unshare", "-rn", "true").CombinedOutput(); err != nil {
		t.Skipf("this machine does not let the test make a user and network namespace (unshare -rn: %v %s): skipped", err, bytes.TrimSpace(out))
	}
	// Emulated without HARK_EMULATED: the kernel cannot run the binary
	// itself, and unshare would hand it to the shell.
	if err := exec.Command(os.Args[0], "-test.run=^$", "-test.count=1").Run(); err != nil && strings.Contains(err.Error(), "exec format error") {
		t.Skipf("cannot run this test binary again as a child under emulation: %v", err)
	}
	args := []string{"-rn", os.Args[0], "-test.run=" + pattern(t.Name()), "-test.count=1", "-test.v"}
	if d, ok := t.Deadline(); ok {
		args = append(args, "-test.timeout="+time.Until(d).String())
	}
	cmd := exec.Command("unshare", args...)
	cmd.Env = append(os.Environ(), inside+"="+t.Name())
	out, err := cmd.CombinedOutput()
	switch {
	case bytes.Contains(out, []byte("--- SKIP: "+t.Name())):
		t.Skipf("skipped in its own network namespace:\n%s", out)
	case err != nil:
		t.Errorf("in its own network namespace: %v\n%s", err, out)
	case !bytes.Contains(out, []byte("--- PASS: "+t.Name())):
		t.Errorf("the test did not run in its own network namespace:\n%s", out)
	}
}

// pattern is a -test.run pattern for the test named name alone.
func pattern(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}
