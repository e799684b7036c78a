package sandboxtest

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"
)

// families are the address families Restrict knows, by the names systemd
// gives them.
var families = map[string]uint32{
	"AF_UNIX":    unix.AF_UNIX,
	"AF_INET":    unix.AF_INET,
	"AF_INET6":   unix.AF_INET6,
	"AF_NETLINK": unix.AF_NETLINK,
	"AF_PACKET":  unix.AF_PACKET,
}

// Restrict makes socket(2) of any address family but fams fail with
// EAFNOSUPPORT, in every thread of this process and in every process it
// starts from now on, for the rest of its life, as systemd's
// RestrictAddressFamilies= does. Call it only inside Run's body (the
// process is the sandbox's), after any ip(8) the body runs: ip needs
// AF_NETLINK.
func Restrict(t *testing.T, fams []string) {
	t.Helper()
	var arch uint32
	switch runtime.GOARCH {
	case "amd64":
		arch = unix.AUDIT_ARCH_X86_64
	case "arm64":
		arch = unix.AUDIT_ARCH_AARCH64
	default:
		t.Skipf("the socket filter is written for amd64 and arm64, not %s: skipped", runtime.GOARCH)
	}
	if len(fams) > 200 {
		t.Fatalf("%d families: the filter's jumps are one byte long", len(fams))
	}
	allow := unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ALLOW}
	refuse := unix.SockFilter{Code: unix.BPF_RET | unix.BPF_K, K: unix.SECCOMP_RET_ERRNO | uint32(unix.EAFNOSUPPORT)}
	n := uint8(len(fams))
	// struct seccomp_data: nr at 0, arch at 4, args[0] at 16 (its low
	// half first: both architectures are little-endian).
	prog := []unix.SockFilter{
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 4},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: 1, K: arch},
		allow, // another architecture's call: not ours to judge
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 0},
		{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jf: n + 2, K: unix.SYS_SOCKET}, // not socket(2): to the last allow
		{Code: unix.BPF_LD | unix.BPF_W | unix.BPF_ABS, K: 16},
	}
	for i, f := range fams {
		num, ok := families[f]
		if !ok {
			t.Fatalf("the socket filter does not know the family %s", f)
		}
		prog = append(prog, unix.SockFilter{Code: unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K, Jt: n - uint8(i), K: num}) // to the last allow
	}
	prog = append(prog, refuse, allow)

	runtime.LockOSThread() // prctl and seccomp on the same thread; it ends with the test
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		t.Fatalf("no_new_privs: %v", err)
	}
	fp := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fp))); e != 0 {
		t.Fatalf("seccomp: %v", e)
	}
	runtime.KeepAlive(prog)
	allowed := map[string]bool{}
	for _, f := range fams {
		allowed[f] = true
	}
	for f, num := range families { // the filter does what it says
		fd, err := unix.Socket(int(num), unix.SOCK_DGRAM, 0)
		if err == nil {
			unix.Close(fd)
		}
		if refused := err == unix.EAFNOSUPPORT; refused == allowed[f] {
			t.Fatalf("socket(%s) under a filter that allows %s: %v", f, strings.Join(fams, " "), err)
		}
	}
}
