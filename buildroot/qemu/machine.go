// Package qemu runs Hark's emulated board: the card image that
// `make image-qemu` builds (image.sh), booted by Debian's U-Boot for
// qemu_arm64 in qemu-system-aarch64 -M virt, headless. A Machine is one
// running board: its serial console (which it keeps, and waits on), a
// root shell on that console to run commands in, the web port forwarded
// to 127.0.0.1, and a power cut (Kill). `make boot-test` drives it
// (boot_test.go, behind the boottest build tag).
package qemu

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options describe a board to start.
type Options struct {
	// Disk is the card image (raw), written to as the board runs.
	Disk string
	// Firmware is U-Boot (u-boot.bin), which qemu starts.
	Firmware string
	// WebPort is the port on 127.0.0.1 forwarded to the board's web page
	// (8080); 0 forwards none.
	WebPort int
	// MemoryMiB is the board's memory (default 1024).
	MemoryMiB int
	// Console, when set, gets a copy of the serial console.
	Console io.Writer
}

// Machine is a running emulated board.
type Machine struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	start time.Time

	mu      sync.Mutex
	out     []byte        // the console since the start
	changed chan struct{} // closed and replaced on new output
	exited  chan struct{}
	err     error // how qemu ended, once exited is closed

	seq int // the shell's command count
}

// Start starts qemu. The board boots from U-Boot; the caller waits for
// what it needs on the console. ctx ends the machine as Kill does.
func Start(ctx context.Context, o Options) (*Machine, error) {
	if o.MemoryMiB == 0 {
		o.MemoryMiB = 1024
	}
	netdev := "user,id=n0"
	if o.WebPort != 0 {
		netdev += fmt.Sprintf(",hostfwd=tcp:127.0.0.1:%d-:8080", o.WebPort)
	}
	// acpi=off: with firmware and ACPI qemu leaves out the GPIO
	// controller (pl061), whose lines are the HAT's button and LEDs.
	args := []string{
		"-M", "virt,acpi=off", "-cpu", "cortex-a72", "-smp", "2", "-m", strconv.Itoa(o.MemoryMiB),
		"-nographic", "-monitor", "none", "-serial", "stdio",
		"-bios", o.Firmware,
		"-drive", "file=" + o.Disk + ",format=raw,if=virtio,cache=unsafe",
		"-netdev", netdev, "-device", "virtio-net-pci,netdev=n0,romfile=",
		"-device", "virtio-rng-pci",
		// The board's hardware watchdog, which systemd keeps fed
		// (RuntimeWatchdogSec); a Pi has its SoC's.
		"-device", "i6300esb",
	}
	cmd := exec.CommandContext(ctx, "qemu-system-aarch64", args...)
	cmd.Cancel = func() error { return cmd.Process.Kill() }
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("qemu: %w", err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("qemu: %w", err)
	}
	cmd.Stdout, cmd.Stderr = pw, pw
	m := &Machine{cmd: cmd, stdin: stdin, start: time.Now(), changed: make(chan struct{}), exited: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return nil, fmt.Errorf("qemu: start: %w", err)
	}
	pw.Close()
	copyTo := o.Console
	if copyTo == nil {
		copyTo = io.Discard
	}
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := pr.Read(buf)
			if n > 0 {
				copyTo.Write(buf[:n])
				m.mu.Lock()
				m.out = append(m.out, buf[:n]...)
				close(m.changed)
				m.changed = make(chan struct{})
				m.mu.Unlock()
			}
			if err != nil {
				return
			}
		}
	}()
	go func() {
		err := cmd.Wait()
		<-read
		pr.Close()
		m.mu.Lock()
		m.err = err
		close(m.changed)
		m.changed = make(chan struct{})
		m.mu.Unlock()
		close(m.exited)
	}()
	return m, nil
}

// Since is how long ago qemu started.
func (m *Machine) Since() time.Duration { return time.Since(m.start) }

// Mark is the console's length now: Expect after it sees only what comes
// later.
func (m *Machine) Mark() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.out)
}

// Console is the console's output from mark on.
func (m *Machine) Console(mark int) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return string(m.out[min(mark, len(m.out)):])
}

// ErrExited is returned when qemu ends while something is awaited.
var ErrExited = errors.New("qemu: the machine stopped")

// Expect waits until the console after mark matches re, and returns the
// match and the console's length after it.
func (m *Machine) Expect(ctx context.Context, mark int, re *regexp.Regexp) ([]string, int, error) {
	for {
		m.mu.Lock()
		out, changed := m.out[min(mark, len(m.out)):], m.changed
		ended := m.isExited()
		if loc := re.FindSubmatchIndex(out); loc != nil {
			sub := make([]string, len(loc)/2)
			for i := range sub {
				if loc[2*i] >= 0 {
					sub[i] = string(out[loc[2*i]:loc[2*i+1]])
				}
			}
			end := mark + loc[1]
			m.mu.Unlock()
			return sub, end, nil
		}
		m.mu.Unlock()
		if ended {
			return nil, 0, fmt.Errorf("waiting for %q: %w (%v)", re, ErrExited, m.err)
		}
		select {
		case <-ctx.Done():
			return nil, 0, fmt.Errorf("waiting for %q: %w", re, ctx.Err())
		case <-changed:
		}
	}
}

func (m *Machine) isExited() bool {
	select {
	case <-m.exited:
		return true
	default:
		return false
	}
}

// Send types s on the console.
func (m *Machine) Send(s string) error {
	_, err := io.WriteString(m.stdin, s)
	return err
}

// shellReady is what the login shell prints once autologin has run.
var shellReady = regexp.MustCompile(`root@hark:[^\n]*# `)

// Login waits (from mark) for the root shell that the emulated board
// starts on its console, and sets it up for Shell: no echo, no prompt,
// and no kernel messages.
func (m *Machine) Login(ctx context.Context, mark int) error {
	if _, _, err := m.Expect(ctx, mark, shellReady); err != nil {
		return fmt.Errorf("qemu: login: %w", err)
	}
	// Without line editing bash reads through the terminal, whose echo
	// stty turns off (readline would echo by itself). The settings are
	// typed as they are (Shell's pipeline would run them in a subshell),
	// then a marker whose echo cannot match it. A line typed while the
	// shell is still starting can be lost, so it is sent until it answers.
	var err error
	for try := 1; try <= 5; try++ {
		mark := m.Mark()
		err = m.Send(fmt.Sprintf("set +o emacs +o vi; stty -echo; PS1=''; PS2=''; export SYSTEMD_PAGER='' SYSTEMD_COLORS=0 TERM=dumb; dmesg -n 1; printf '@@%%s\\n' LOGIN%d\n", try))
		if err != nil {
			break
		}
		tctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		_, _, err = m.Expect(tctx, mark, regexp.MustCompile(fmt.Sprintf(`@@LOGIN%d\r?\n`, try)))
		cancel()
		if err == nil || ctx.Err() != nil {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("qemu: login: %w", err)
	}
	return nil
}

// Shell runs a command line in the console's root shell and returns what
// it printed (standard output and error) and its exit status. Each line
// of output is tagged, so console messages from elsewhere (systemd, the
// kernel) are left out.
func (m *Machine) Shell(ctx context.Context, line string) (string, int, error) {
	m.seq++
	n := m.seq
	mark := m.Mark()
	// The markers are written so that their echo (before stty -echo)
	// cannot match what the command prints: the shell joins the quoted
	// pieces, the echo shows them apart.
	cmd := fmt.Sprintf("{ %s ; } 2>&1 </dev/null | sed 's/^/@@%d''| /'; printf '@@%%s:%%s\\n' E%d \"${PIPESTATUS[0]}\"\n", line, n, n)
	if err := m.Send(cmd); err != nil {
		return "", 0, fmt.Errorf("qemu: shell: %w", err)
	}
	sub, end, err := m.Expect(ctx, mark, regexp.MustCompile(fmt.Sprintf(`@@E%d:(\d+)\r?\n`, n)))
	if err != nil {
		return "", 0, fmt.Errorf("qemu: shell %q: %w", line, err)
	}
	rc, _ := strconv.Atoi(sub[1])
	prefix := []byte(fmt.Sprintf("@@%d| ", n))
	var out strings.Builder
	sc := bufio.NewScanner(strings.NewReader(m.Console(mark)[:end-mark]))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		b := bytes.TrimRight(sc.Bytes(), "\r")
		if i := bytes.Index(b, prefix); i >= 0 {
			out.Write(b[i+len(prefix):])
			out.WriteByte('\n')
		}
	}
	return out.String(), rc, nil
}

// Kill cuts the power: qemu is killed at once, whatever the board was
// writing.
func (m *Machine) Kill() {
	if !m.isExited() {
		m.cmd.Process.Signal(syscall.SIGKILL)
	}
	<-m.exited
}

// Wait waits for qemu to end by itself, up to ctx.
func (m *Machine) Wait(ctx context.Context) error {
	select {
	case <-m.exited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
