package buildroot

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/buildroot/qemu"
)

// The emulated board (qemu/) builds its card from the same files as the
// Pi's recipe. These tests check, without booting it, that the two agree;
// make boot-test boots it.

// TestQemuEnvIsFwEnv: the emulated board's boot script keeps BOOT_* in the
// two copies fw_env.config gives fw_printenv and fw_setenv: same offsets,
// same size, the redundant form (a flag byte after the CRC).
func TestQemuEnvIsFwEnv(t *testing.T) {
	script := readFile(t, "qemu/boot-env.cmd")
	var offs []int64
	var size int64
	for _, l := range readLines(t, "package/hark-system/files/fw_env.config") {
		f := strings.Fields(l)
		if len(f) != 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		offs = append(offs, parseHex(t, "fw_env.config", f[1]))
		size = parseHex(t, "fw_env.config", f[2])
	}
	if len(offs) != 2 {
		t.Fatalf("fw_env.config: %d copies, want 2", len(offs))
	}
	read := regexp.MustCompile(`virtio read \$\{hark_env_[ab]\} (0x[0-9a-f]+) (0x[0-9a-f]+)`).FindAllStringSubmatch(script, -1)
	if len(read) != 2 {
		t.Fatalf("boot-env.cmd reads %d copies of the environment, want 2", len(read))
	}
	for i, m := range read {
		blk, cnt := parseHex(t, "boot-env.cmd", m[1]), parseHex(t, "boot-env.cmd", m[2])
		if blk*512 != offs[i] || cnt*512 != size {
			t.Errorf("boot-env.cmd reads copy %d at byte %#x, %#x bytes; fw_env.config has it at %#x, %#x bytes", i+1, blk*512, cnt*512, offs[i], size)
		}
	}
	for _, m := range regexp.MustCompile(`setenv hark_env_blk (0x[0-9a-f]+)`).FindAllStringSubmatch(script, -1) {
		if blk := parseHex(t, "boot-env.cmd", m[1]); !slices.Contains(offs, blk*512) {
			t.Errorf("boot-env.cmd saves at byte %#x, not a copy fw_env.config knows (%#x)", blk*512, offs)
		}
	}
	// The single-copy form one byte up: CRC, then the variables from byte 5.
	one := "0x" + strconv.FormatInt(size-1, 16)
	for _, want := range []string{"env export -c -s " + one + " ${hark_env_t1}", "env import -c ${hark_env_p} " + one, "virtio write ${hark_env_t} ${hark_env_blk} " + "0x" + strconv.FormatInt(size/512, 16)} {
		if !strings.Contains(script, want) {
			t.Errorf("boot-env.cmd lacks %q", want)
		}
	}
}

// TestQemuBootCounting runs the emulated board's boot.scr (its part,
// then the Pi's boot.cmd, as image.sh makes it) in Debian's U-Boot for
// qemu_arm64, on a small card of the same layout whose slots hold no
// kernel: every boot takes an attempt and resets. It must count A down,
// then B, give both 3 again when both are spent, and keep the count where
// fw_printenv reads it; and a BOOT_ORDER that fw_setenv writes (as RAUC
// does after an install) must be what U-Boot follows next.
func TestQemuBootCounting(t *testing.T) {
	need(t, "mkimage", "genimage", "mkdosfs", "mcopy", "mkfs.ext4", "qemu-system-aarch64", "fw_printenv", "fw_setenv")
	const uboot = "/usr/lib/u-boot/qemu_arm64/u-boot.bin"
	if _, err := os.Stat(uboot); err != nil {
		t.Skipf("%s: not installed (Debian u-boot-qemu)", uboot)
	}
	dir := t.TempDir()
	in, root := filepath.Join(dir, "in"), filepath.Join(dir, "root")
	if err := os.MkdirAll(filepath.Join(root, "boot"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "boot.cmd")
	writeFile(t, src, []byte(readFile(t, "qemu/boot-env.cmd")+readFile(t, "board/common/boot.cmd")))
	if !strings.Contains(readFile(t, "qemu/image.sh"), `cat "$here/boot-env.cmd" "$br/board/common/boot.cmd"`) {
		t.Error("image.sh does not make boot.scr from boot-env.cmd and the Pi's boot.cmd")
	}
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
	}
	run("mkimage", "-A", "arm64", "-T", "script", "-C", "none", "-d", src, filepath.Join(root, "boot/boot.scr"))
	writeFile(t, filepath.Join(in, "rootfs.ext4"), nil)
	run("truncate", "-s", "8M", filepath.Join(in, "rootfs.ext4"))
	run("mkfs.ext4", "-q", "-F", filepath.Join(in, "rootfs.ext4"))
	// The card's layout with small slots.
	cfg := regexp.MustCompile(`size = (1G|512M)`).ReplaceAllString(readFile(t, "board/common/genimage.cfg"), "size = 16M")
	writeFile(t, filepath.Join(dir, "genimage.cfg"), []byte(cfg))
	run("genimage", "--rootpath", root, "--tmppath", filepath.Join(dir, "tmp"), "--inputpath", in,
		"--outputpath", dir, "--config", filepath.Join(dir, "genimage.cfg"))
	card := filepath.Join(dir, "sdcard.img")
	fwcfg := filepath.Join(dir, "fw_env.config")
	// fw_env.config's two copies, in the card image instead of /dev/mmcblk0.
	fw := strings.ReplaceAll(readFile(t, "package/hark-system/files/fw_env.config"), "/dev/mmcblk0", card)
	writeFile(t, fwcfg, []byte(fw))

	slot := regexp.MustCompile(`Hark: booting slot ([AB]) \(A (\d+) left, B (\d+) left, order ([AB ]+)\)`)
	boots := func(n int) []string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		m, err := qemu.Start(ctx, qemu.Options{Disk: card, Firmware: uboot, MemoryMiB: 512})
		if err != nil {
			t.Fatal(err)
		}
		defer m.Kill()
		var got []string
		mark := 0
		for range n {
			sub, end, err := m.Expect(ctx, mark, slot)
			if err != nil {
				t.Fatalf("after %v: %v\n%s", got, err, m.Console(mark))
			}
			got = append(got, fmt.Sprintf("%s %s/%s %s", sub[1], sub[2], sub[3], sub[4]))
			mark = end
		}
		// The next boot's save must be on the card before qemu stops.
		if _, _, err := m.Expect(ctx, mark, regexp.MustCompile(`did not boot; resetting`)); err != nil {
			t.Fatal(err)
		}
		return got
	}
	printenv := func() string {
		t.Helper()
		out, err := exec.Command("fw_printenv", "-c", fwcfg, "BOOT_ORDER", "BOOT_A_LEFT", "BOOT_B_LEFT").CombinedOutput()
		if err != nil {
			t.Fatalf("fw_printenv: %v\n%s", err, out)
		}
		return strings.ReplaceAll(strings.TrimSpace(string(out)), "\n", " ")
	}

	want := []string{"A 2/3 A B", "A 1/3 A B", "A 0/3 A B", "B 0/2 A B", "B 0/1 A B", "B 0/0 A B", "A 2/3 A B"}
	if got := boots(len(want)); !slices.Equal(got, want) {
		t.Errorf("boots of a fresh card without kernels: %q, want %q", got, want)
	}
	if got, want := printenv(), "BOOT_ORDER=A B BOOT_A_LEFT=2 BOOT_B_LEFT=3"; got != want {
		t.Errorf("fw_printenv after them: %s, want %s", got, want)
	}
	// What RAUC's U-Boot backend does after writing slot B.
	run("fw_setenv", "-c", fwcfg, "BOOT_ORDER", "B A")
	run("fw_setenv", "-c", fwcfg, "BOOT_B_LEFT", "3")
	if got, want := boots(1), []string{"B 2/2 B A"}; !slices.Equal(got, want) {
		t.Errorf("after fw_setenv BOOT_ORDER=\"B A\": %q, want %q", got, want)
	}
	if got, want := printenv(), "BOOT_ORDER=B A BOOT_A_LEFT=2 BOOT_B_LEFT=2"; got != want {
		t.Errorf("fw_printenv after it: %s, want %s", got, want)
	}
}

// TestQemuInstallsWhatBuildrootInstalls runs install-hark.sh into a
// scratch root and finds there every file hark.mk and hark-system.mk
// install into Buildroot's target directory (for the generic-i2s HAT,
// which the emulated board imitates), and every unit of systemd/.
func TestQemuInstallsWhatBuildrootInstalls(t *testing.T) {
	need(t, "bash", "groupadd", "useradd", "systemctl", "sed")
	if os.Geteuid() != 0 {
		t.Skip("install-hark.sh adds the hark user to the tree with useradd --root: needs root")
	}
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "etc/passwd"), []byte("root:x:0:0:root:/root:/bin/sh\n"))
	writeFile(t, filepath.Join(root, "etc/group"), []byte("root:x:0:\naudio:x:29:\n"))
	writeFile(t, filepath.Join(root, "etc/shadow"), []byte("root:*:19000:0:99999:7:::\n"))
	writeFile(t, filepath.Join(root, "etc/gshadow"), []byte("root:*::\naudio:*::\n"))
	writeFile(t, filepath.Join(root, "var/lib/x"), nil)
	bin := filepath.Join(t.TempDir(), "hark")
	writeFile(t, bin, []byte("#!/bin/sh\n"))
	model := filepath.Join(t.TempDir(), "ggml-test.bin")
	writeFile(t, model, []byte("model"))
	keyring := filepath.Join(t.TempDir(), "ca.pem")
	writeFile(t, keyring, []byte("keyring"))
	repo, _ := filepath.Abs("..")
	cmd := exec.Command("bash", "qemu/install-hark.sh", root, repo, bin, "1.2.3", model, "generic-i2s", "hark-qemu-arm64", keyring)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("install-hark.sh: %v\n%s", err, out)
	}

	dest := regexp.MustCompile(`\$\(TARGET_DIR\)(/[^\s\\;"']*)`)
	var want []string
	for _, mk := range []string{"package/hark/hark.mk", "package/hark-system/hark-system.mk"} {
		for _, m := range dest.FindAllStringSubmatch(readFile(t, mk), -1) {
			p := m[1]
			if strings.Contains(p, "$") || p == "/data" || strings.HasSuffix(p, "/") {
				continue // a loop's or the model's name: checked below
			}
			if strings.Contains(p, "hark-mixer") && !strings.HasSuffix(p, ".service") {
				continue // only for a HAT with a mixer.sh
			}
			if strings.HasPrefix(p, "/usr/bin/espeak") {
				continue // Buildroot's espeak; Debian has espeak-ng
			}
			want = append(want, p)
		}
	}
	units, _ := filepath.Glob("../systemd/*.service")
	timers, _ := filepath.Glob("../systemd/*.timer")
	for _, u := range append(units, timers...) {
		want = append(want, "/usr/lib/systemd/system/"+filepath.Base(u))
	}
	for _, u := range []string{"data.mount", "var-lib-hark.mount", "hark-data-dirs.service"} {
		want = append(want, "/usr/lib/systemd/system/"+u)
	}
	want = append(want, "/usr/share/hark/models/ggml-test.bin", "/usr/libexec/hark/hark-format-data")
	if len(want) < 20 {
		t.Fatalf("only %d files found in the .mk files: %v", len(want), want)
	}
	for _, p := range want {
		if _, err := os.Lstat(filepath.Join(root, p)); err != nil {
			t.Errorf("install-hark.sh did not install %s, which Buildroot's packages install", p)
		}
	}
	conf := readFile(t, filepath.Join(root, "etc/rauc/system.conf"))
	if !strings.Contains(conf, "compatible=hark-qemu-arm64") || strings.Contains(conf, "@COMPATIBLE@") {
		t.Errorf("system.conf's compatible is not the emulated board's:\n%s", conf)
	}
	toml := readFile(t, filepath.Join(root, "etc/hark/hark.toml"))
	if !strings.HasPrefix(toml, readFile(t, "board/generic-i2s/hark.toml")) || !strings.Contains(toml, `model = "/usr/share/hark/models/ggml-test.bin"`) {
		t.Errorf("hark.toml is not generic-i2s's with the model added:\n%s", toml)
	}
	if p := readFile(t, filepath.Join(root, "etc/passwd")); !regexp.MustCompile(`(?m)^hark:x:850:850:`).MatchString(p) {
		t.Errorf("no hark user 850:850 in /etc/passwd:\n%s", p)
	}
	for _, l := range []string{"multi-user.target.wants/hark.service", "multi-user.target.wants/hark-health.service", "data.mount.requires/hark-firstboot.service", "timers.target.wants/hark-update.timer"} {
		if _, err := os.Lstat(filepath.Join(root, "etc/systemd/system", l)); err != nil {
			t.Errorf("the presets did not enable %s", l)
		}
	}
}
