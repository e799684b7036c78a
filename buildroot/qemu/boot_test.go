//go:build boottest

package qemu

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The boot test needs what `make boot-test` builds in $QEMU_BOOT_TEST:
//
//	card/     sdcard.img and u-boot.bin for version 1.0.0, keys/ (its CA)
//	update/   rootfs.ext4, hark-qemu-arm64-1.0.1.raucb and manifest.json
//
// Each step prints a PASS or FAIL line (and its time); -short runs only
// the first boot: READY, the self-test, the web page, the watchdog.

// Time limits, under emulation on two cores.
const (
	bootLimit    = 6 * time.Minute  // power on to hark READY
	installLimit = 10 * time.Minute // download and RAUC's write
	healthLimit  = 6 * time.Minute  // READY to the boot check's end, and a reboot
)

var (
	dir     = os.Getenv("QEMU_BOOT_TEST")
	console = os.Getenv("QEMU_CONSOLE") // the boards' consoles go to files named after it: console-main.log, ...
)

// board is one card image and the machine running it.
type board struct {
	t    *testing.T
	disk string
	fw   string
	web  int
	m    *Machine
	log  io.Writer
}

func newBoard(t *testing.T, name string) *board {
	t.Helper()
	if dir == "" {
		t.Skip("QEMU_BOOT_TEST is not set: run make boot-test")
	}
	card := filepath.Join(dir, "card")
	disk := filepath.Join(t.TempDir(), name+".img")
	// A fresh copy of the card, sparse like the image.
	if out, err := exec.Command("cp", "--sparse=always", filepath.Join(card, "sdcard.img"), disk).CombinedOutput(); err != nil {
		t.Fatalf("copying the card: %v\n%s", err, out)
	}
	b := &board{t: t, disk: disk, fw: filepath.Join(card, "u-boot.bin"), web: freePort(t), log: io.Discard}
	if console != "" {
		// One file a board, to read each boot apart.
		path := strings.TrimSuffix(console, ".log") + "-" + name + ".log"
		f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		fmt.Fprintf(f, "\n===== %s: %s =====\n", t.Name(), name)
		b.log = f
	}
	t.Cleanup(func() {
		if b.m != nil {
			b.m.Kill()
		}
	})
	return b
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// power starts the board (after a power cut, or for the first time).
func (b *board) power(ctx context.Context) {
	b.t.Helper()
	m, err := Start(ctx, Options{Disk: b.disk, Firmware: b.fw, WebPort: b.web, Console: b.log})
	if err != nil {
		b.t.Fatal(err)
	}
	b.m = m
}

var slotRE = regexp.MustCompile(`Hark: booting slot ([AB]) \(A (\d+) left, B (\d+) left, order ([AB ]+)\)`)

// uboot is what U-Boot said when it picked a slot.
type uboot struct {
	slot, aLeft, bLeft string
	end                int // the console's length after the line
}

// picked waits, from mark and up to limit, for U-Boot to pick a slot.
func (b *board) picked(ctx context.Context, mark int, limit time.Duration) uboot {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	sub, end, err := b.m.Expect(ctx, mark, slotRE)
	if err != nil {
		b.t.Fatalf("U-Boot picked no slot: %v\n%s", err, tail(b.m.Console(mark)))
	}
	return uboot{slot: sub[1], aLeft: sub[2], bLeft: sub[3], end: end}
}

// boot waits, from mark, for U-Boot to pick a slot and the shell to come
// up; it returns the slot.
func (b *board) boot(ctx context.Context, mark int) string {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, bootLimit)
	defer cancel()
	u := b.picked(ctx, mark, bootLimit)
	if err := b.m.Login(ctx, u.end); err != nil {
		b.t.Fatalf("no shell after U-Boot booted slot %s: %v\n%s", u.slot, err, tail(b.m.Console(u.end)))
	}
	return u.slot
}

// ready waits until systemd has hark.service active: with Type=notify,
// only after hark sent READY=1.
func (b *board) ready(ctx context.Context) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, bootLimit)
	defer cancel()
	var out string
	for ctx.Err() == nil {
		var err error
		out, _, err = b.m.Shell(ctx, "systemctl show -p ActiveState -p SubState -p Result hark.service | tr '\\n' ' '")
		if err == nil && strings.Contains(out, "ActiveState=active") && strings.Contains(out, "SubState=running") {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
	}
	// What hark was doing: its status and its journal, read with a time
	// of their own.
	dctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	st, _, _ := b.m.Shell(dctx, "systemctl status --no-pager -n 0 hark.service; journalctl -b -u hark.service --no-pager -o short-monotonic -n 80")
	b.t.Fatalf("hark.service never got READY: %s\n%s", out, st)
}

// sh runs a command in the board's shell.
func (b *board) sh(ctx context.Context, line string) (string, int) {
	b.t.Helper()
	out, rc, err := b.m.Shell(ctx, line)
	if err != nil {
		b.t.Fatalf("%v\n%s", err, tail(b.m.Console(0)))
	}
	return out, rc
}

// must runs a command that has to succeed.
func (b *board) must(ctx context.Context, line string) string {
	b.t.Helper()
	out, rc := b.sh(ctx, line)
	if rc != 0 {
		b.t.Fatalf("%s: exit %d\n%s", line, rc, out)
	}
	return out
}

// env reads the U-Boot variables as Linux sees them.
func (b *board) env(ctx context.Context) map[string]string {
	b.t.Helper()
	out := b.must(ctx, "fw_printenv BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT")
	vars := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			vars[k] = v
		}
	}
	return vars
}

// healthGood waits for hark-health.service to finish and reports whether
// it marked the slot good.
func (b *board) healthDone(ctx context.Context) (result string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	for {
		out, _ := b.sh(ctx, "systemctl show -p ActiveState -p Result hark-health.service | tr '\\n' ' '")
		switch {
		case strings.Contains(out, "ActiveState=active"):
			return "good"
		case strings.Contains(out, "ActiveState=failed"):
			return "failed"
		}
		select {
		case <-ctx.Done():
			b.t.Fatalf("hark-health.service never finished: %s", out)
		case <-time.After(2 * time.Second):
		}
	}
}

func tail(s string) string {
	lines := strings.Split(s, "\n")
	if len(lines) > 60 {
		lines = lines[len(lines)-60:]
	}
	return strings.Join(lines, "\n")
}

// step runs one checked step as a subtest, with its time.
func step(t *testing.T, name string, f func(t *testing.T)) bool {
	t.Helper()
	start := time.Now()
	ok := t.Run(name, f)
	t.Logf("%s %s (%.0f s)", map[bool]string{true: "PASS", false: "FAIL"}[ok], name, time.Since(start).Seconds())
	return ok
}

// serve serves a directory over HTTP on 127.0.0.1; the board reaches it
// as 10.0.2.2, qemu's address for this machine's loopback.
func serve(t *testing.T, root string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.FileServer(http.Dir(root))}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return fmt.Sprintf("http://10.0.2.2:%d", l.Addr().(*net.TCPAddr).Port)
}

// TestBoot is one card's life: first boot on slot A, READY, the self-test
// marks A good, the web page and its setup code, the watchdog; then the
// box is told a fact and a timer, refuses a bundle signed by another key,
// loses its power while RAUC writes B and boots A again, rolls back from
// a signed update whose self-test fails, and finally takes a good update
// to 1.0.1, which boots on B and is marked good. What it was told
// outlives each of them.
func TestBoot(t *testing.T) {
	ctx := context.Background()
	b := newBoard(t, "main")
	var bootStart time.Time
	ok := step(t, "slot-A", func(t *testing.T) {
		b.t = t
		bootStart = time.Now()
		b.power(ctx)
		if slot := b.boot(ctx, 0); slot != "A" {
			t.Fatalf("U-Boot booted slot %s of a fresh card, want A", slot)
		}
		b.must(ctx, "grep -q 'rauc.slot=A' /proc/cmdline")
	})
	ok = ok && step(t, "ready", func(t *testing.T) {
		b.t = t
		b.ready(ctx)
		up := b.must(ctx, "systemctl show -p ActiveEnterTimestampMonotonic hark.service | cut -d= -f2")
		var us int64
		fmt.Sscan(up, &us)
		t.Logf("hark.service READY %.1f s after the kernel started, %.1f s after power on", float64(us)/1e6, time.Since(bootStart).Seconds())
		// Where a boot's time goes, for the figures.
		out, _ := b.sh(ctx, "journalctl -b -o short-monotonic --no-pager -u hark.service -u hark-firstboot.service -u hark-clock.service | head -40")
		t.Logf("where the boot's time went:\n%s", out)
	})
	ok = ok && step(t, "first-boot", func(t *testing.T) {
		b.t = t
		out := b.must(ctx, "journalctl -b -u hark-firstboot.service --no-pager -o cat")
		if !strings.Contains(out, "is blank; making an ext4 filesystem labelled hark-data") {
			t.Errorf("hark-firstboot did not format the blank data partition:\n%s", out)
		}
		if got := strings.TrimSpace(b.must(ctx, "blkid -o value -s LABEL /dev/mmcblk0p4")); got != "hark-data" {
			t.Errorf("data partition label %q, want hark-data", got)
		}
		b.must(ctx, "findmnt -n /data && findmnt -n /var/lib/hark")
		id := strings.TrimSpace(b.must(ctx, "cat /var/lib/hark/device-id"))
		if !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(id) {
			t.Errorf("device id %q, want 32 hex digits", id)
		}
	})
	ok = ok && step(t, "healthy", func(t *testing.T) {
		b.t = t
		out := b.must(ctx, "hark status")
		for _, want := range []string{"ok   storage", "ok   microphone      capturing", "ok   speech-to-text"} {
			if !strings.Contains(out, want) {
				t.Errorf("hark status lacks %q:\n%s", want, out)
			}
		}
		if r := b.healthDone(ctx); r != "good" {
			log, _ := b.sh(ctx, "journalctl -b -u hark-health.service --no-pager -o cat")
			t.Fatalf("hark-health.service %s:\n%s", r, log)
		}
		b.noFailedUnits(ctx, "on the first boot")
		if env := b.env(ctx); env["BOOT_A_LEFT"] != "3" || env["BOOT_ORDER"] != "A B" {
			t.Errorf("after marking A good, U-Boot's environment is %v; want A with 3 attempts, first", env)
		}
	})
	step(t, "web-setup-code", func(t *testing.T) {
		b.t = t
		webSetup(t, ctx, b)
	})
	// A hark the watchdog did not bring back would fail every step after.
	ok = step(t, "watchdog", func(t *testing.T) {
		b.t = t
		watchdog(t, ctx, b)
	}) && ok
	if testing.Short() || !ok {
		return
	}
	// The rest of the card's life, one board throughout (a first boot
	// under emulation costs minutes): what the box is told now must
	// outlive each of the steps after.
	ok = step(t, "told", func(t *testing.T) {
		b.t = t
		b.must(ctx, `hark ask "remember that the boat is called Hecate"`)
		b.must(ctx, `hark ask "set a timer for 3 hours"`)
		b.remembers(ctx, "before the updates")
	})
	ok = ok && step(t, "wrong-key", func(t *testing.T) {
		b.t = t
		wrongKey(t, ctx, b)
	})
	ok = ok && step(t, "power-cut", func(t *testing.T) {
		b.t = t
		powerCut(t, ctx, b)
	})
	ok = ok && step(t, "bad-update", func(t *testing.T) {
		b.t = t
		badUpdate(t, ctx, b)
	})
	if ok {
		step(t, "update", func(t *testing.T) {
			b.t = t
			updateGood(t, ctx, b)
		})
	}
}

// webSetup: the page answers through the forwarded port, sends plain
// HTTP on to HTTPS with the certificate the box made, and shows the
// first-visit flow: the code the speaker says on a double press (or hark
// web code prints), and the certificate's fingerprint to compare. hark
// web code prints the code; the code and a password open a session.
func webSetup(t *testing.T, ctx context.Context, b *board) {
	base := fmt.Sprintf("http://127.0.0.1:%d", b.web)
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 60 * time.Second, Transport: &http.Transport{
		// The box's own certificate: no authority vouches for it; the
		// page's fingerprint is compared with it below.
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true},
	}}
	resp, err := client.Get(base + "/")
	if err != nil {
		t.Fatalf("the web page through 127.0.0.1:%d: %v", b.web, err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/setup" || !strings.Contains(string(page), "press its button twice") {
		t.Fatalf("GET / ended at %s: %s, want the setup page asking for the code the speaker says:\n%.2000s", resp.Request.URL, resp.Status, page)
	}
	if resp.TLS == nil || resp.Request.URL.Scheme != "https" {
		t.Fatalf("the page was not sent on to HTTPS (%s)", resp.Request.URL)
	}
	sum := sha256.Sum256(resp.TLS.PeerCertificates[0].Raw)
	var pairs []string
	for _, c := range sum {
		pairs = append(pairs, fmt.Sprintf("%02X", c))
	}
	if fp := strings.Join(pairs, ":"); !strings.Contains(string(page), fp) {
		t.Errorf("the setup page does not show the served certificate's fingerprint %s", fp)
	}
	out := b.must(ctx, "hark web code")
	m := regexp.MustCompile(`asks for this code:\n(\S+)\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("hark web code printed no code:\n%s", out)
	}
	pw := "correct horse battery"
	resp, err = client.PostForm(resp.Request.URL.String(), url.Values{"code": {m[1]}, "password": {pw}, "confirm": {pw}})
	if err != nil {
		t.Fatal(err)
	}
	page, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(jar.Cookies(resp.Request.URL)) == 0 {
		t.Fatalf("POST /setup with the code: %s, cookies %v\n%.2000s", resp.Status, jar.Cookies(resp.Request.URL), page)
	}
	if out := b.must(ctx, "hark web code"); !strings.Contains(out, "is set up") {
		t.Errorf("after the setup, hark web code says:\n%s", out)
	}
}

// watchdog: hark stopped with SIGSTOP sends no pings; systemd kills it
// after WatchdogSec and starts it again, and it gets READY.
func watchdog(t *testing.T, ctx context.Context, b *board) {
	pid := strings.TrimSpace(b.must(ctx, "systemctl show -p MainPID --value hark.service"))
	sec := strings.TrimSpace(b.must(ctx, "systemctl show -p WatchdogUSec --value hark.service"))
	b.must(ctx, "kill -STOP "+pid)
	start := time.Now()
	ctx2, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	for {
		now := strings.TrimSpace(b.must(ctx2, "systemctl show -p MainPID --value hark.service"))
		if now != pid && now != "0" {
			break
		}
		select {
		case <-ctx2.Done():
			t.Fatalf("hark (pid %s) stopped with SIGSTOP was not restarted in 3 minutes (WatchdogSec %s)", pid, sec)
		case <-time.After(2 * time.Second):
		}
	}
	t.Logf("restarted %.0f s after SIGSTOP (WatchdogSec %s)", time.Since(start).Seconds(), sec)
	log := b.must(ctx, "journalctl -b -u hark.service --no-pager -o cat | grep -i watchdog || true")
	if !strings.Contains(log, "Watchdog timeout") {
		t.Errorf("the journal does not say the watchdog fired:\n%s", log)
	}
	b.ready(ctx)
}

// updateGood: hark update install from the update server; the board
// reboots into B, hark-health marks it good, hark version is 1.0.1, and
// what the box was told is still there.
func updateGood(t *testing.T, ctx context.Context, b *board) {
	srv := serve(t, filepath.Join(dir, "update"))
	start := time.Now()
	mark := b.install(ctx, srv, "1.0.1")
	installed := time.Since(start)
	if slot := b.boot(ctx, mark); slot != "B" {
		t.Fatalf("after the update U-Boot booted %s, want B", slot)
	}
	b.ready(ctx)
	if r := b.healthDone(ctx); r != "good" {
		log, _ := b.sh(ctx, "journalctl -b -u hark-health.service --no-pager -o cat")
		t.Fatalf("hark-health.service %s on the updated slot:\n%s", r, log)
	}
	t.Logf("download and install %.0f s; download to marked good %.0f s", installed.Seconds(), time.Since(start).Seconds())
	if env := b.env(ctx); env["BOOT_B_LEFT"] != "3" || !strings.HasPrefix(env["BOOT_ORDER"], "B") {
		t.Errorf("after marking B good, U-Boot's environment is %v; want B first with 3 attempts", env)
	}
	if out := b.must(ctx, "hark version"); !strings.Contains(out, "hark 1.0.1") {
		t.Errorf("hark version after the update:\n%s", out)
	}
	b.remembers(ctx, "after the update")
	b.noFailedUnits(ctx, "after the update")
	b.must(ctx, "rauc status --detailed")
}

// remembers checks, when, that the fact and the timer told at the start
// are still there, and that the store saves to the data partition.
func (b *board) remembers(ctx context.Context, when string) {
	b.t.Helper()
	b.kept(ctx, when)
	if out := b.must(ctx, "hark memory facts"); !strings.Contains(out, "Hecate") {
		b.t.Errorf("%s, the fact is gone:\n%s", when, out)
	}
	if out := b.must(ctx, "hark timers"); !regexp.MustCompile(`(?m)^timer\s`).MatchString(out) {
		b.t.Errorf("%s, the timer is gone:\n%s", when, out)
	}
}

// noFailedUnits checks, when, that no unit of this boot failed, showing
// the journal of each that did.
func (b *board) noFailedUnits(ctx context.Context, when string) {
	b.t.Helper()
	units := strings.Fields(b.must(ctx, "systemctl list-units --failed --plain --no-legend | cut -d' ' -f1"))
	for _, u := range units {
		log, _ := b.sh(ctx, "journalctl -b -u "+u+" --no-pager -o cat -n 30")
		b.t.Errorf("%s, %s failed:\n%s", when, u, log)
	}
}

// kept checks, when, that the store saves to the data partition and that
// nothing erased it this boot (the journal is on the tmpfs /var, so what
// happened before a reboot is read before it): a store holding in memory
// or a factory reset (a button that reads pressed: qemu pulls the pl061's
// lines low) would lose what the box was told.
func (b *board) kept(ctx context.Context, when string) {
	b.t.Helper()
	if out := b.must(ctx, "hark status"); !regexp.MustCompile(`(?m)^ok\s+storage\s+open\s*$`).MatchString(out) {
		b.t.Errorf("%s, the store does not save to the data partition:\n%s", when, out)
	}
	if log := b.must(ctx, "journalctl -b -u hark.service --no-pager -o cat | grep -iE 'factory reset|button|storage|store ' || true"); strings.Contains(log, "factory reset") {
		b.t.Errorf("%s, the box reset itself:\n%s", when, log)
	}
}

// install types hark update install (--now: it reboots when done, so the
// shell's command never ends: it is typed, not run) and waits for it to
// say it installed want; it returns the console's mark before it.
func (b *board) install(ctx context.Context, srv, want string) int {
	b.t.Helper()
	mark := b.m.Mark()
	ictx, cancel := context.WithTimeout(ctx, installLimit)
	defer cancel()
	if err := b.m.Send("hark update install --now " + srv + "/manifest.json\n"); err != nil {
		b.t.Fatal(err)
	}
	if _, _, err := b.m.Expect(ictx, mark, regexp.MustCompile(`installed `+regexp.QuoteMeta(want)+`; it runs after the next reboot`)); err != nil {
		b.t.Fatalf("the install did not finish: %v\n%s", err, tail(b.m.Console(mark)))
	}
	return mark
}

// bundle makes a bundle in a new directory from the update's root
// filesystem: edit changes a copy of it (with debugfs), and it is signed by
// the CA in keys.
func bundle(t *testing.T, keys, version string, edit func(rootfs string)) string {
	t.Helper()
	out := t.TempDir()
	rootfs := filepath.Join(out, "rootfs.ext4")
	if o, err := exec.Command("cp", "--sparse=always", filepath.Join(dir, "update", "rootfs.ext4"), rootfs).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, o)
	}
	if edit != nil {
		edit(rootfs)
	}
	sh, _ := filepath.Abs("../board/common/bundle.sh")
	cmd := exec.Command(sh, rootfs, "hark-qemu-arm64", version,
		filepath.Join(keys, "signing.cert.pem"), filepath.Join(keys, "signing.key.pem"), filepath.Join(keys, "ca.cert.pem"), out)
	if o, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("bundle.sh: %v\n%s", err, o)
	}
	os.Remove(rootfs)
	return out
}

// brokenConfig points hark.toml's whisper model at a file the image does
// not have: hark starts, but its self-test fails speech-to-text.
func brokenConfig(t *testing.T) func(string) {
	return func(rootfs string) {
		cfg := filepath.Join(t.TempDir(), "hark.toml")
		if err := os.WriteFile(cfg, []byte("board = \"generic-i2s\"\n\n[whisper]\nmodel = \"/usr/share/hark/models/ggml-missing.bin\"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, req := range []string{"rm /etc/hark/hark.toml", "write " + cfg + " /etc/hark/hark.toml"} {
			if o, err := exec.Command("debugfs", "-w", "-R", req, rootfs).CombinedOutput(); err != nil {
				t.Fatalf("debugfs %s: %v\n%s", req, err, o)
			}
		}
	}
}

// badUpdate: a signed update whose hark fails its self-test boots B and
// is not marked good; B on trial reboots the board itself after each
// failed check (U-Boot only counts boots), and once B's attempts are spent
// U-Boot boots A again; hark update status says why.
func badUpdate(t *testing.T, ctx context.Context, b *board) {
	bad := bundle(t, filepath.Join(dir, "card", "keys"), "1.0.1", brokenConfig(t))
	srv := serve(t, bad)
	mark := b.install(ctx, srv, "1.0.1")
	start := time.Now()
	// Each boot of B takes an attempt; a check that passed would give
	// them back (B 3 left at the next boot), so 2, 1, 0 shows that B was
	// never marked good. No one reboots the board but itself.
	for attempt := 1; attempt <= 3; attempt++ {
		u := b.picked(ctx, mark, bootLimit+healthLimit)
		if u.slot != "B" {
			t.Fatalf("boot %d after the bad update: slot %s, want B\n%s", attempt, u.slot, tail(b.m.Console(mark)))
		}
		if want := fmt.Sprint(3 - attempt); u.bLeft != want {
			t.Errorf("boot %d of B: %s attempts left, want %s (was it marked good?)", attempt, u.bLeft, want)
		}
		t.Logf("boot %d of B, %.0f s after the install", attempt, time.Since(start).Seconds())
		mark = u.end
	}
	if slot := b.boot(ctx, mark); slot != "A" {
		t.Fatalf("after B's three attempts U-Boot booted %s, want A", slot)
	}
	b.ready(ctx)
	if r := b.healthDone(ctx); r != "good" {
		t.Fatalf("hark-health.service %s back on A", r)
	}
	t.Logf("rollback: from the install's reboot to A marked good again %.0f s", time.Since(start).Seconds())
	if out := b.must(ctx, "hark version"); !strings.Contains(out, "hark 1.0.0") {
		t.Errorf("hark version after the rollback:\n%s", out)
	}
	out := b.must(ctx, "hark update status")
	t.Logf("hark update status:\n%s", out)
	if !regexp.MustCompile(`(?m)^rootfs\.1\s+B\s+\S+\s+bad`).MatchString(out) {
		t.Errorf("hark update status does not show slot B bad:\n%s", out)
	}
	if !strings.Contains(out, "speech-to-text") {
		t.Errorf("hark update status does not give the reason (the failed speech-to-text check):\n%s", out)
	}
	b.remembers(ctx, "after the rollback")
	// Back on its proven slot, a failing check would not reboot: the
	// board stays where it is (unit-tested in device/update).
}

// powerCut: the power goes while RAUC writes slot B; the board boots A as
// before, and marks it good.
func powerCut(t *testing.T, ctx context.Context, b *board) {
	srv := serve(t, filepath.Join(dir, "update"))
	b.must(ctx, "(hark update install --no-reboot "+srv+"/manifest.json >/tmp/install.log 2>&1 &)")
	wctx, cancel := context.WithTimeout(ctx, installLimit)
	defer cancel()
	for {
		p, _ := b.sh(wctx, "busctl get-property de.pengutronix.rauc / de.pengutronix.rauc.Installer Progress")
		if strings.Contains(p, "Copying image") {
			t.Logf("power cut during %s", strings.TrimSpace(p))
			break
		}
		select {
		case <-wctx.Done():
			log, _ := b.sh(ctx, "cat /tmp/install.log")
			t.Fatalf("RAUC never started writing the slot:\n%s", log)
		case <-time.After(500 * time.Millisecond):
		}
	}
	time.Sleep(3 * time.Second)
	b.m.Kill()
	start := time.Now()
	b.power(ctx)
	if slot := b.boot(ctx, 0); slot != "A" {
		t.Fatalf("after a power cut mid-install U-Boot booted %s, want A", slot)
	}
	b.ready(ctx)
	t.Logf("READY %.0f s after power on", time.Since(start).Seconds())
	if out := b.must(ctx, "hark version"); !strings.Contains(out, "hark 1.0.0") {
		t.Errorf("hark version after the power cut:\n%s", out)
	}
	if r := b.healthDone(ctx); r != "good" {
		t.Errorf("hark-health.service %s after the power cut", r)
	}
	b.remembers(ctx, "after the power cut")
}

// wrongKey: a bundle signed by another CA is refused before anything is
// written to B or to U-Boot's environment.
func wrongKey(t *testing.T, ctx context.Context, b *board) {
	other := filepath.Join(t.TempDir(), "keys")
	makeCA(t, other)
	srv := serve(t, bundle(t, other, "1.0.1", nil))
	before := b.must(ctx, "fw_printenv; head -c 64M /dev/mmcblk0p3 | sha256sum")
	out, rc := b.sh(ctx, "hark update install --no-reboot "+srv+"/manifest.json")
	if rc == 0 {
		t.Fatalf("a bundle signed by another CA was installed:\n%s", out)
	}
	t.Logf("refused: %s", strings.TrimSpace(out))
	if !strings.Contains(out, "signature") && !strings.Contains(out, "certificate") && !strings.Contains(out, "signer") {
		t.Errorf("the refusal does not say the signature is not trusted:\n%s", out)
	}
	if after := b.must(ctx, "fw_printenv; head -c 64M /dev/mmcblk0p3 | sha256sum"); after != before {
		t.Errorf("the refused bundle changed the boot environment or slot B:\nbefore %s\nafter %s", before, after)
	}
}

// makeCA makes a CA and a signing certificate it issued in dir, as
// buildroot/README.md's "Signing keys" does.
func makeCA(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := func(name string) string { return filepath.Join(dir, name) }
	for _, args := range [][]string{
		{"req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", p("ca.key.pem"), "-out", p("ca.cert.pem"), "-subj", "/CN=Someone else", "-days", "30"},
		{"req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", p("signing.key.pem"), "-out", p("signing.csr"), "-subj", "/CN=Someone else's signer"},
		{"x509", "-req", "-in", p("signing.csr"), "-CA", p("ca.cert.pem"), "-CAkey", p("ca.key.pem"), "-CAcreateserial", "-out", p("signing.cert.pem"), "-days", "30"},
	} {
		if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
			t.Fatalf("openssl %v: %v\n%s", args, err, out)
		}
	}
}
