package bundletest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// ServiceOptions configure StartService. The zero value is valid.
type ServiceOptions struct {
	Compatible string // system.conf compatible; DefaultCompatible if empty
	Booted     string // bootname of the slot the service takes as running: "A" (default) or "B"
}

// Service is a real rauc service on a private D-Bus bus, made by
// StartService. Its system.conf has two raw slots of class rootfs, A
// (rootfs.0) and B (rootfs.1), which are regular files, and a custom
// bootloader backend, a shell script that keeps the primary slot and the
// slots' boot states in files.
type Service struct {
	// Bus is the private bus's address. The service owns
	// de.pengutronix.rauc there and serves de.pengutronix.rauc.Installer
	// at /; a D-Bus client in Go connects to it directly.
	Bus string
	// Env makes rauc's command line talk to this service: append it to
	// os.Environ() for rauc install, rauc status and the like. It sets
	// DBUS_SESSION_BUS_ADDRESS to Bus and DBUS_STARTER_BUS_TYPE=session,
	// which rauc reads to pick the session bus over the system bus.
	Env []string
	// Conf is the service's system.conf.
	Conf string
	// Slots maps bootnames, "A" and "B", to the slot files. They start
	// empty; a raw slot receives the image's bytes and nothing more.
	Slots map[string]string

	state string // where the bootloader backend keeps its files
}

// StartService starts dbus-daemon on a private bus and rauc service on it,
// trusting ca, with its files in dir, and stops both when the test ends.
// It returns once the service owns its bus name, and skips the test when
// rauc or dbus-daemon is not installed. When the test fails, the service's
// log is in the test's output.
//
// The service itself needs no privileges; installing does (the service
// mounts the bundle): call RequireInstall first.
func StartService(t testing.TB, dir string, ca *CA, o ServiceOptions) *Service {
	t.Helper()
	requireTools(t, "rauc", "dbus-daemon")
	if o.Compatible == "" {
		o.Compatible = DefaultCompatible
	}
	if o.Booted == "" {
		o.Booted = "A"
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	s := &Service{
		Conf:  filepath.Join(dir, "system.conf"),
		Slots: map[string]string{"A": filepath.Join(dir, "slot-a.img"), "B": filepath.Join(dir, "slot-b.img")},
		state: filepath.Join(dir, "bootloader"),
	}
	keyring, err := filepath.Abs(ca.Keyring)
	if err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	backend := filepath.Join(dir, "bootloader.sh")
	mounts := filepath.Join(dir, "mnt")
	data := filepath.Join(dir, "data")
	for _, d := range []string{s.state, mounts, data} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatalf("bundletest: %v", err)
		}
	}
	for _, p := range s.Slots {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatalf("bundletest: %v", err)
		}
	}
	if err := os.WriteFile(filepath.Join(s.state, "booted"), []byte(o.Booted+"\n"), 0o644); err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	script := fmt.Sprintf(bootloaderScript, shellQuote(s.state))
	if err := os.WriteFile(backend, []byte(script), 0o755); err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	conf := fmt.Sprintf(systemConf, o.Compatible, mounts, data, backend, keyring, s.Slots["A"], s.Slots["B"])
	if err := os.WriteFile(s.Conf, []byte(conf), 0o644); err != nil {
		t.Fatalf("bundletest: %v", err)
	}

	s.Bus = startBus(t, dir)
	s.Env = []string{"DBUS_SESSION_BUS_ADDRESS=" + s.Bus, "DBUS_STARTER_BUS_TYPE=session"}
	startRauc(t, s, o.Booted)
	return s
}

// Primary returns the bootname the bootloader backend was last told to
// boot (set-primary), or the booted slot's if it was never told.
func (s *Service) Primary(t testing.TB) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.state, "primary"))
	if os.IsNotExist(err) {
		b, err = os.ReadFile(filepath.Join(s.state, "booted"))
	}
	if err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	return strings.TrimSpace(string(b))
}

// bootloaderScript is RAUC's custom bootloader backend: get-primary,
// set-primary NAME, get-state NAME, set-state NAME good|bad, with its
// state in files: booted (written by StartService), primary, state.NAME.
// Like the U-Boot and barebox backends, which reset the boot attempts of
// the slot they make primary, set-primary also marks the slot good:
// installing first marks the target slot bad, then makes it primary.
// Argument: the state directory, quoted for the shell.
const bootloaderScript = `#!/bin/sh
# RAUC custom bootloader backend written by bundletest.
d=%s
case "$1" in
get-primary) cat "$d/primary" 2>/dev/null || cat "$d/booted" ;;
set-primary) echo "$2" > "$d/primary" && echo good > "$d/state.$2" ;;
get-state) cat "$d/state.$2" 2>/dev/null || echo good ;;
set-state) echo "$3" > "$d/state.$2" ;;
get-current) cat "$d/booted" ;;
*) echo "bootloader.sh: unknown command $1" >&2; exit 1 ;;
esac
`

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// systemConf is the service's system.conf. Arguments: compatible, mount
// prefix, data directory, backend script, keyring, slot A, slot B.
const systemConf = `[system]
compatible=%s
bootloader=custom
mountprefix=%s
data-directory=%s

[handlers]
bootloader-custom-backend=%s

[keyring]
path=%s

[slot.rootfs.0]
device=%s
type=raw
bootname=A

[slot.rootfs.1]
device=%s
type=raw
bootname=B
`

// busConf is a session bus that lets its clients do anything, listening
// on a socket path. Argument: the listen address.
const busConf = `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>%s</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
`

// startTimeout bounds how long dbus-daemon and rauc service may take to
// come up.
const startTimeout = 10 * time.Second

// Bus runs a private dbus-daemon until the test ends and returns its
// address; it skips the test when dbus-daemon is not installed.
func Bus(t testing.TB) string {
	t.Helper()
	requireTools(t, "dbus-daemon")
	return startBus(t, t.TempDir())
}

// startBus runs dbus-daemon until the test ends and returns its address.
func startBus(t testing.TB, dir string) string {
	t.Helper()
	// A socket path has a limit of about 100 bytes; test directories can
	// be longer, so the socket lives in a short directory of its own.
	sock, err := os.MkdirTemp("", "bundletest-bus-")
	if err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(sock) })
	conf := filepath.Join(dir, "bus.conf")
	listen := "unix:path=" + filepath.Join(sock, "bus")
	if err := os.WriteFile(conf, []byte(fmt.Sprintf(busConf, listen)), 0o644); err != nil {
		t.Fatalf("bundletest: %v", err)
	}

	var log logBuffer
	cmd := exec.Command("dbus-daemon", "--config-file="+conf, "--nofork", "--nopidfile", "--print-address=1")
	cmd.Stderr = &log
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("bundletest: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("bundletest: start dbus-daemon: %v", err)
	}
	addr := make(chan string, 1)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		r := bufio.NewReader(out)
		line, _ := r.ReadString('\n')
		addr <- strings.TrimSpace(line)
		r.WriteTo(&log)
		cmd.Wait()
	}()
	t.Cleanup(func() { stop(cmd, exited) })

	select {
	case a := <-addr:
		if a == "" {
			<-exited
			t.Fatalf("bundletest: dbus-daemon exited without an address: %s", log.String())
		}
		return a
	case <-time.After(startTimeout):
		t.Fatalf("bundletest: dbus-daemon printed no address in %v: %s", startTimeout, log.String())
	}
	return ""
}

// startRauc runs rauc service on s.Bus until the test ends and returns once
// it owns its name.
func startRauc(t testing.TB, s *Service, booted string) {
	t.Helper()
	log := &logBuffer{ready: make(chan struct{}), marker: []byte("name 'de.pengutronix.rauc' acquired")}
	// -d makes rauc log the debug line that says the name is owned.
	cmd := exec.Command("rauc", "-d", "service", "--conf="+s.Conf, "--override-boot-slot="+booted)
	cmd.Env = append(os.Environ(), s.Env...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("bundletest: start rauc service: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		cmd.Wait()
	}()
	t.Cleanup(func() {
		stop(cmd, exited)
		if t.Failed() {
			t.Logf("rauc service log:\n%s", log.String())
		}
	})

	select {
	case <-log.ready:
	case <-exited:
		t.Fatalf("bundletest: rauc service exited: %v\n%s", cmd.ProcessState, log.String())
	case <-time.After(startTimeout):
		t.Fatalf("bundletest: rauc service did not take its bus name in %v:\n%s", startTimeout, log.String())
	}
}

// stop ends a process started by this package: SIGTERM, then SIGKILL if it
// has not exited a few seconds later. exited is closed once it is waited
// for.
func stop(cmd *exec.Cmd, exited <-chan struct{}) {
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		<-exited
	}
}

// logBuffer collects a process's output. If marker is set, ready is closed
// once the output contains it.
type logBuffer struct {
	mu     sync.Mutex
	b      bytes.Buffer
	marker []byte
	ready  chan struct{}
	seen   bool
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	if l.marker != nil && !l.seen && bytes.Contains(l.b.Bytes(), l.marker) {
		l.seen = true
		close(l.ready)
	}
	return len(p), nil
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// RequireInstall skips the test unless this machine can install a bundle
// of the given format (Options.Format; "" is the default, verity) through
// rauc: rauc and mksquashfs installed, CAP_SYS_ADMIN (root) to mount, a
// loop device, squashfs in the kernel, and for verity and crypt bundles
// device-mapper (/dev/mapper/control). A kernel with device-mapper but
// without its verity target is not detected: the install then fails.
func RequireInstall(t testing.TB, format string) {
	t.Helper()
	if err := canInstall(format); err != nil {
		t.Skipf("bundletest: cannot install %s bundles here: %v", Options{Format: format}.withDefaults().Format, err)
	}
	requireTools(t, "rauc", "mksquashfs")
}

func canInstall(format string) error {
	if !hasCapSysAdmin() {
		return fmt.Errorf("rauc mounts the bundle, which needs CAP_SYS_ADMIN (run as root)")
	}
	if err := loopDevice(); err != nil {
		return fmt.Errorf("no loop device, which rauc mounts the bundle through: %w", err)
	}
	fs, err := os.ReadFile("/proc/filesystems")
	if err != nil {
		return err
	}
	if !strings.Contains(string(fs), "squashfs") {
		return fmt.Errorf("the kernel has no squashfs (/proc/filesystems)")
	}
	if f := (Options{Format: format}).withDefaults().Format; f != "plain" {
		if err := openRW("/dev/mapper/control"); err != nil {
			return fmt.Errorf("no device-mapper, which rauc mounts %s bundles through (dm-verity): %w; plain bundles need none", f, err)
		}
	}
	return nil
}

// loopDevice asks the kernel for a free loop device, as rauc does, and
// checks that it can be opened: in a container /dev/loop-control may be
// there while the device it hands out is not.
func loopDevice() error {
	const loopCtlGetFree = 0x4c82
	f, err := os.OpenFile("/dev/loop-control", os.O_RDWR, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	n, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), loopCtlGetFree, 0)
	if errno != 0 {
		return fmt.Errorf("/dev/loop-control: LOOP_CTL_GET_FREE: %w", errno)
	}
	return openRW(fmt.Sprintf("/dev/loop%d", n))
}

func openRW(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return f.Close()
}

// hasCapSysAdmin reports whether CAP_SYS_ADMIN is in this process's
// effective capabilities, which the rauc it starts inherits.
func hasCapSysAdmin() bool {
	const capSysAdmin = 21
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "CapEff:"); ok {
			caps, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64)
			return err == nil && caps&(1<<capSysAdmin) != 0
		}
	}
	return false
}
