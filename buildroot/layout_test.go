package buildroot

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/update"
)

// --- The boot chain -------------------------------------------------------------

// kconfigFragment reads CONFIG_X=value lines and "# CONFIG_X is not set".
func kconfigFragment(t *testing.T, path string) map[string]string {
	t.Helper()
	m := map[string]string{}
	unsetRE := regexp.MustCompile(`^# (CONFIG_\w+) is not set$`)
	for i, l := range readLines(t, path) {
		if u := unsetRE.FindStringSubmatch(l); u != nil {
			m[u[1]] = "n"
			continue
		}
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok || !strings.HasPrefix(k, "CONFIG_") {
			t.Errorf("%s:%d: not a Kconfig line: %q", path, i+1, l)
			continue
		}
		if _, dup := m[k]; dup {
			t.Errorf("%s:%d: %s twice", path, i+1, k)
		}
		m[k] = v
	}
	return m
}

func parseHex(t *testing.T, what, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 0, 64)
	if err != nil {
		t.Fatalf("%s: %q: %v", what, s, err)
	}
	return n
}

// genimagePart is a partition of the hdimage in genimage.cfg.
type genimagePart struct {
	name, image  string
	typ          int
	bootable     bool
	offset, size int64
	inTable      bool
}

// parseGenimage reads the parts of genimage.cfg the tests need: the
// sdcard.img partitions in order, hdimage options, and image sizes.
func parseGenimage(t *testing.T, path string) (parts []genimagePart, hd map[string]string, sizes map[string]int64) {
	t.Helper()
	hd = map[string]string{}
	sizes = map[string]int64{}
	var stack []string
	var cur *genimagePart
	for i, raw := range readLines(t, path) {
		l := strings.TrimSpace(raw)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		switch {
		case strings.HasSuffix(l, "{"):
			head := strings.Fields(strings.TrimSuffix(l, "{"))
			stack = append(stack, strings.Join(head, " "))
			if len(head) == 2 && head[0] == "partition" && len(stack) == 2 && stack[0] == "image sdcard.img" {
				parts = append(parts, genimagePart{name: head[1], inTable: true})
				cur = &parts[len(parts)-1]
			}
		case l == "}":
			if len(stack) == 0 {
				t.Fatalf("%s:%d: unbalanced }", path, i+1)
			}
			stack = stack[:len(stack)-1]
			cur = nil
		default:
			k, v, ok := strings.Cut(l, "=")
			if !ok {
				t.Fatalf("%s:%d: %q", path, i+1, l)
			}
			k, v = strings.TrimSpace(k), unquote(strings.TrimSpace(v))
			switch {
			case cur != nil:
				switch k {
				case "partition-type":
					cur.typ = int(parseHex(t, path, v))
				case "bootable":
					cur.bootable = v == "true"
				case "image":
					cur.image = v
				case "offset":
					cur.offset = parseSize(t, v)
				case "size":
					cur.size = parseSize(t, v)
				case "in-partition-table":
					cur.inTable = v == "true"
				}
			case len(stack) == 2 && stack[1] == "hdimage":
				hd[k] = v
			case len(stack) == 1 && k == "size":
				sizes[strings.TrimPrefix(stack[0], "image ")] = parseSize(t, v)
			}
		}
	}
	if len(stack) != 0 {
		t.Fatalf("%s: unclosed %v", path, stack)
	}
	return parts, hd, sizes
}

func parseSize(t *testing.T, s string) int64 {
	t.Helper()
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "k"):
		mult, s = 1<<10, strings.TrimSuffix(s, "k")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	return parseHex(t, "size", s) * mult
}

const (
	mib = int64(1) << 20
	gib = int64(1) << 30
)

// The card layout the README, boot.cmd, system.conf and fw_env.config
// describe.
var wantLayout = []struct {
	name        string
	typ         byte
	bootable    bool
	start, size int64
}{
	{"boot", 0x0c, true, 4 * mib, 64 * mib},
	{"rootfs-a", 0x83, false, 68 * mib, gib},
	{"rootfs-b", 0x83, false, 68*mib + gib, gib},
	{"data", 0x83, false, 68*mib + 2*gib, 512 * mib},
}

func TestCardLayoutConsistent(t *testing.T) {
	parts, hd, sizes := parseGenimage(t, "board/common/genimage.cfg")
	if len(parts) != len(wantLayout) {
		t.Fatalf("genimage.cfg: %d partitions, want %d", len(parts), len(wantLayout))
	}
	if hd["partition-table-type"] != "mbr" {
		t.Errorf("genimage.cfg: partition-table-type %q, want mbr (the Pi firmware reads MBR)", hd["partition-table-type"])
	}
	for i, p := range parts {
		w := wantLayout[i]
		if p.name != w.name || p.typ != int(w.typ) || p.bootable != w.bootable || !p.inTable {
			t.Errorf("partition %d: got %+v, want %s type %#x bootable %v", i+1, p, w.name, w.typ, w.bootable)
		}
		if p.size != 0 && p.size != w.size {
			t.Errorf("partition %d (%s): size %d, want %d", i+1, p.name, p.size, w.size)
		}
	}
	if sizes[parts[0].image] != wantLayout[0].size {
		t.Errorf("genimage.cfg: %s is %d bytes, want %d for the boot partition", parts[0].image, sizes[parts[0].image], wantLayout[0].size)
	}
	if parts[0].offset != wantLayout[0].start {
		t.Errorf("boot partition offset %d, want %d", parts[0].offset, wantLayout[0].start)
	}
	if parts[1].image != "rootfs.ext4" || parts[2].image != "rootfs.ext4" {
		t.Errorf("slots A and B must both start with rootfs.ext4; got %q, %q", parts[1].image, parts[2].image)
	}
	if parts[3].image != "" {
		t.Errorf("the data partition is left blank for the first boot to format; it has image %q", parts[3].image)
	}

	// The U-Boot environment: same place in U-Boot and in Linux, in the gap
	// before the first partition, the two copies apart.
	frag := kconfigFragment(t, "board/common/uboot.fragment")
	for k, v := range map[string]string{
		"CONFIG_ENV_IS_IN_FAT": "n", "CONFIG_ENV_IS_IN_MMC": "y", "CONFIG_ENV_REDUNDANT": "y",
		"CONFIG_ENV_MMC_DEVICE_INDEX": "0", "CONFIG_USE_BOOTCOMMAND": "y",
	} {
		if frag[k] != v {
			t.Errorf("uboot.fragment: %s=%q, want %q", k, frag[k], v)
		}
	}
	size := parseHex(t, "CONFIG_ENV_SIZE", frag["CONFIG_ENV_SIZE"])
	offs := []int64{
		parseHex(t, "CONFIG_ENV_OFFSET", frag["CONFIG_ENV_OFFSET"]),
		parseHex(t, "CONFIG_ENV_OFFSET_REDUND", frag["CONFIG_ENV_OFFSET_REDUND"]),
	}
	for _, o := range offs {
		if o < 64<<10 || o+size > parts[0].offset || o%512 != 0 {
			t.Errorf("environment copy at %#x (size %#x) must sit sector-aligned between the partition table and the boot partition at %#x", o, size, parts[0].offset)
		}
	}
	if offs[0]+size > offs[1] && offs[1]+size > offs[0] {
		t.Errorf("environment copies at %#x and %#x overlap", offs[0], offs[1])
	}
	var fw [][]string
	for _, l := range readLines(t, "package/hark-system/files/fw_env.config") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			fw = append(fw, strings.Fields(l))
		}
	}
	if len(fw) != 2 {
		t.Fatalf("fw_env.config: %d entries, want 2 (redundant environment)", len(fw))
	}
	for i, f := range fw {
		if len(f) != 3 || f[0] != "/dev/mmcblk0" || parseHex(t, "fw_env.config", f[1]) != offs[i] || parseHex(t, "fw_env.config", f[2]) != size {
			t.Errorf("fw_env.config entry %d: %v, want /dev/mmcblk0 %#x %#x", i+1, f, offs[i], size)
		}
	}
	if bc := frag["CONFIG_BOOTCOMMAND"]; !strings.Contains(bc, "mmc 0:1") || !strings.Contains(bc, "/boot.scr") || !strings.Contains(bc, "source") {
		t.Errorf("uboot.fragment: CONFIG_BOOTCOMMAND %s must source /boot.scr from the boot partition (mmc 0:1)", bc)
	}

	// Slots: system.conf, boot.cmd and the partition numbers agree.
	conf := parseINI(t, "package/hark-system/files/system.conf.in")
	for k, v := range map[string]string{
		"system.bootloader":      "uboot",
		"system.compatible":      "@COMPATIBLE@",
		"keyring.path":           "/etc/rauc/keyring.pem",
		"slot.rootfs.0.device":   "/dev/mmcblk0p2",
		"slot.rootfs.0.bootname": "A",
		"slot.rootfs.0.type":     "ext4",
		"slot.rootfs.1.device":   "/dev/mmcblk0p3",
		"slot.rootfs.1.bootname": "B",
		"slot.rootfs.1.type":     "ext4",
	} {
		if conf[k] != v {
			t.Errorf("system.conf.in: %s = %q, want %q", k, conf[k], v)
		}
	}
	if !strings.HasPrefix(conf["system.data-directory"], "/data/") {
		t.Errorf("system.conf.in: data-directory %q must be on the data partition (/data)", conf["system.data-directory"])
	}
	if !strings.HasPrefix(conf["system.mountprefix"], "/run/") {
		t.Errorf("system.conf.in: mountprefix %q must be on a tmpfs: the root filesystem is read-only", conf["system.mountprefix"])
	}
	slotPart := bootScriptSlots(t)
	if slotPart["A"] != "2" || slotPart["B"] != "3" {
		t.Errorf("boot.cmd maps slots to partitions %v, want A:2 B:3 (system.conf)", slotPart)
	}
	mount := parseINI(t, "package/hark-system/files/data.mount")
	if mount["Mount.What"] != "/dev/mmcblk0p4" || mount["Mount.Where"] != "/data" || mount["Mount.Type"] != "ext4" {
		t.Errorf("data.mount: %v; want /dev/mmcblk0p4 (the fourth partition) on /data as ext4", mount)
	}
	// The partition fails safe: read-only on an error, checked before
	// every mount.
	if !slices.Contains(strings.Split(mount["Mount.Options"], ","), "errors=remount-ro") {
		t.Errorf("data.mount Options=%s; want errors=remount-ro", mount["Mount.Options"])
	}
	if fsck := "systemd-fsck@dev-mmcblk0p4.service"; !strings.Contains(mount["Unit.Requires"], fsck) || !strings.Contains(mount["Unit.After"], fsck) {
		t.Errorf("data.mount: Requires=%q After=%q; want fsck (%s) before the mount", mount["Unit.Requires"], mount["Unit.After"], fsck)
	}
	bind := parseINI(t, "package/hark-system/files/var-lib-hark.mount")
	if bind["Mount.What"] != "/data/hark" || bind["Mount.Where"] != "/var/lib/hark" || bind["Mount.Options"] != "bind" {
		t.Errorf("var-lib-hark.mount: %v; want /data/hark bound on /var/lib/hark", bind)
	}

	// The root filesystem image fits its slot.
	for _, b := range boards {
		v := defconfigValues(t, filepath.Join("configs", b.defconfig))
		if n := parseSize(t, v["BR2_TARGET_ROOTFS_EXT2_SIZE"]); n <= 0 || n > wantLayout[1].size {
			t.Errorf("%s: BR2_TARGET_ROOTFS_EXT2_SIZE %s does not fit a %d MiB slot", b.defconfig, v["BR2_TARGET_ROOTFS_EXT2_SIZE"], wantLayout[1].size/mib)
		}
	}
}

// parseINI reads an INI or systemd unit file into "section.key" = value.
func parseINI(t *testing.T, path string) map[string]string {
	t.Helper()
	m := map[string]string{}
	section := ""
	for i, l := range readLines(t, path) {
		l = strings.TrimSpace(l)
		switch {
		case l == "" || strings.HasPrefix(l, "#") || strings.HasPrefix(l, ";"):
		case strings.HasPrefix(l, "[") && strings.HasSuffix(l, "]"):
			section = l[1 : len(l)-1]
		default:
			k, v, ok := strings.Cut(l, "=")
			if !ok {
				t.Errorf("%s:%d: %q", path, i+1, l)
				continue
			}
			m[section+"."+strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return m
}

// bootScriptSlots reads which partition boot.cmd boots for each slot.
func bootScriptSlots(t *testing.T) map[string]string {
	t.Helper()
	m := map[string]string{}
	slot := ""
	for _, l := range readLines(t, "board/common/boot.cmd") {
		l = strings.TrimSpace(l)
		if v, ok := strings.CutPrefix(l, "hark_slot="); ok && v != "" {
			slot = v
		} else if v, ok := strings.CutPrefix(l, "hark_part="); ok && v != "" && slot != "" {
			m[slot] = v
			slot = ""
		}
	}
	return m
}

func TestBootScript(t *testing.T) {
	script := readFile(t, "board/common/boot.cmd")
	for _, want := range []string{
		"${BOOT_ORDER}", "setexpr BOOT_A_LEFT ${BOOT_A_LEFT} - 1", "setexpr BOOT_B_LEFT ${BOOT_B_LEFT} - 1",
		"setenv BOOT_A_LEFT 3", "setenv BOOT_B_LEFT 3", `setenv BOOT_ORDER "A B"`, "saveenv",
		"rauc.slot=${hark_slot}", "root=/dev/mmcblk0p${hark_part}", " ro ", "/boot/Image",
		"hark_initrd=-", "booti ${kernel_addr_r} ${hark_initrd} ${fdt_addr}", "fdt get value",
		// The Pi's card unless the board says otherwise (qemu/boot-env.cmd).
		`if test -z "${hark_if}"; then hark_if=mmc; hark_dev=0; fi`,
		"load ${hark_if} ${hark_dev}:${hark_part} ${kernel_addr_r} /boot/Image",
	} {
		if !strings.Contains(script, want) {
			t.Errorf("boot.cmd does not contain %q", want)
		}
	}
	// saveenv must come before the kernel starts, or the attempt is not
	// counted; and a board that saves elsewhere saves at the same places.
	if strings.Index(script, "saveenv") > strings.Index(script, "booti") {
		t.Error("boot.cmd boots before it saves the decremented attempt count")
	}
	saves, viaBoard := 0, 0
	for _, l := range strings.Split(script, "\n") {
		l = strings.TrimSpace(l)
		if !strings.HasPrefix(l, "#") && regexp.MustCompile(`(^|[^_])saveenv\b`).MatchString(l) {
			saves++
			if l == `if test -n "${hark_saveenv}"; then run hark_saveenv; else saveenv; fi` {
				viaBoard++
			}
		}
	}
	if saves == 0 || saves != viaBoard {
		t.Errorf("boot.cmd saves the environment %d times, %d of them through hark_saveenv when a board sets it", saves, viaBoard)
	}
	// The script's own variables stay out of the saved environment.
	if regexp.MustCompile(`setenv hark_(slot|part)\b`).MatchString(script) {
		t.Error("boot.cmd saves hark_slot or hark_part with the environment; use script variables")
	}
	mkimage, err := exec.LookPath("mkimage")
	if err != nil {
		t.Skip("mkimage (Debian u-boot-tools) not installed: boot.cmd not compiled")
	}
	out := filepath.Join(t.TempDir(), "boot.scr")
	if b, err := exec.Command(mkimage, "-A", "arm64", "-T", "script", "-C", "none", "-d", "board/common/boot.cmd", out).CombinedOutput(); err != nil {
		t.Fatalf("mkimage: %v\n%s", err, b)
	}
	scr, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(scr) < 64 || binary.BigEndian.Uint32(scr) != 0x27051956 {
		t.Errorf("boot.scr does not start with a U-Boot image header")
	}
}

// --- genimage and post-image -----------------------------------------------------------

// debianPackage names the Debian package of each tool the tests run.
var debianPackage = map[string]string{
	"genimage": "genimage", "mkdosfs": "dosfstools", "mcopy": "mtools", "mtype": "mtools",
	"rauc": "rauc", "mksquashfs": "squashfs-tools", "openssl": "openssl", "sha256sum": "coreutils",
	"systemd-analyze": "systemd", "git": "git", "make": "make", "gcc": "gcc",
	"sh": "dash", "sed": "sed", "grep": "grep", "dirname": "coreutils",
	"mkimage": "u-boot-tools", "mkfs.ext4": "e2fsprogs", "qemu-system-aarch64": "qemu-system-arm",
	"fw_printenv": "libubootenv-tool", "fw_setenv": "libubootenv-tool",
	"bash": "bash", "groupadd": "passwd", "useradd": "passwd", "systemctl": "systemd",
}

// need skips the test, naming what to install, unless every tool is on PATH.
func need(t *testing.T, tools ...string) {
	t.Helper()
	var missing []string
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, fmt.Sprintf("%s (Debian package %s)", tool, debianPackage[tool]))
		}
	}
	if len(missing) > 0 {
		t.Skipf("not installed: %s", strings.Join(missing, ", "))
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sized returns n bytes that do not compress to nothing.
func sized(n int) []byte {
	b := make([]byte, n)
	var x uint32 = 2463534242
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// sparse creates a file of the given size with only its first 64 KiB
// written, as a root filesystem image is mostly empty.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(sized(64 << 10)); err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

type mbrEntry struct {
	bootable    bool
	typ         byte
	start, size int64
}

// readMBR reads the four primary entries of a DOS partition table.
func readMBR(t *testing.T, path string) []mbrEntry {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sector := make([]byte, 512)
	if _, err := f.ReadAt(sector, 0); err != nil {
		t.Fatal(err)
	}
	if sector[510] != 0x55 || sector[511] != 0xaa {
		t.Fatalf("%s: no MBR signature", path)
	}
	var out []mbrEntry
	for i := 0; i < 4; i++ {
		e := sector[446+16*i : 446+16*(i+1)]
		out = append(out, mbrEntry{
			bootable: e[0] == 0x80,
			typ:      e[4],
			start:    int64(binary.LittleEndian.Uint32(e[8:])) * 512,
			size:     int64(binary.LittleEndian.Uint32(e[12:])) * 512,
		})
	}
	return out
}

func checkCard(t *testing.T, img string, rootfsSize int64) {
	t.Helper()
	parts := readMBR(t, img)
	for i, w := range wantLayout {
		got := parts[i]
		want := mbrEntry{w.bootable, w.typ, w.start, w.size}
		if got != want {
			t.Errorf("%s partition %d (%s): got %+v, want %+v", img, i+1, w.name, got, want)
		}
	}
	if rootfsSize > wantLayout[1].size {
		t.Errorf("a %d byte root filesystem does not fit a slot", rootfsSize)
	}
	fi, err := os.Stat(img)
	if err != nil {
		t.Fatal(err)
	}
	last := wantLayout[len(wantLayout)-1]
	if fi.Size() != last.start+last.size {
		t.Errorf("%s is %d bytes; want it to run to the end of the data partition (%d)", img, fi.Size(), last.start+last.size)
	}
	// Slot B starts out as a copy of slot A.
	a, b := make([]byte, 64<<10), make([]byte, 64<<10)
	f, err := os.Open(img)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.ReadAt(a, wantLayout[1].start); err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(b, wantLayout[2].start); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) || bytes.Equal(a, make([]byte, len(a))) {
		t.Error("slots A and B do not both hold the root filesystem image")
	}
}

// mtype reads a file out of a FAT image with mtools.
func mtype(t *testing.T, image, name string) string {
	t.Helper()
	cmd := exec.Command("mtype", "-i", image, "::"+name)
	cmd.Env = append(os.Environ(), "MTOOLS_SKIP_CHECK=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mtype %s ::%s: %v\n%s", image, name, err, out)
	}
	return string(out)
}

func TestGenimageLayout(t *testing.T) {
	need(t, "genimage", "mkdosfs", "mcopy", "mtype")
	dir := t.TempDir()
	root, in, out := filepath.Join(dir, "root"), filepath.Join(dir, "in"), filepath.Join(dir, "out")
	// Boot files of about the real sizes.
	writeFile(t, filepath.Join(root, "boot/config.txt"), []byte("kernel=u-boot.bin\narm_64bit=1\n"))
	writeFile(t, filepath.Join(root, "boot/start4cd.elf"), sized(800<<10))
	writeFile(t, filepath.Join(root, "boot/fixup4cd.dat"), sized(3<<10))
	writeFile(t, filepath.Join(root, "boot/u-boot.bin"), sized(600<<10))
	writeFile(t, filepath.Join(root, "boot/boot.scr"), sized(3<<10))
	writeFile(t, filepath.Join(root, "boot/bcm2711-rpi-4-b.dtb"), sized(55<<10))
	writeFile(t, filepath.Join(root, "boot/overlays/wm8960-soundcard.dtbo"), sized(2<<10))
	// A root filesystem image of the configured size.
	const rootfsSize = 512 * mib
	if err := os.MkdirAll(in, 0o755); err != nil {
		t.Fatal(err)
	}
	sparse(t, filepath.Join(in, "rootfs.ext4"), rootfsSize)
	cmd := exec.Command("genimage", "--rootpath", root, "--tmppath", filepath.Join(dir, "tmp"),
		"--inputpath", in, "--outputpath", out, "--config", "board/common/genimage.cfg")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("genimage: %v\n%s", err, b)
	}
	checkCard(t, filepath.Join(out, "sdcard.img"), rootfsSize)
	if got := mtype(t, filepath.Join(out, "boot.vfat"), "config.txt"); !strings.Contains(got, "kernel=u-boot.bin") {
		t.Errorf("boot.vfat config.txt: %q", got)
	}
	if got := mtype(t, filepath.Join(out, "boot.vfat"), "overlays/wm8960-soundcard.dtbo"); len(got) != 2<<10 {
		t.Errorf("boot.vfat lost the overlays directory (%d bytes)", len(got))
	}
}

// postImageEnv prepares what Buildroot hands post-image.sh for a Pi 4:
// images, target tree, a .config, and keys.
type postImageEnv struct {
	dir, images, target, config string
	ca, key, cert               string
}

func openssl(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("openssl", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("openssl %v: %v\n%s", args, err, out)
	}
}

// makeCA makes a CA and a signing certificate it issues, as README.md
// tells a developer to.
func makeCA(t *testing.T, dir, name string) (ca, key, cert string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	openssl(t, dir, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
		"-keyout", "ca.key.pem", "-out", "ca.cert.pem", "-subj", "/CN="+name+" CA", "-days", "2")
	openssl(t, dir, "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
		"-keyout", "signing.key.pem", "-out", "signing.csr", "-subj", "/CN="+name+" signer")
	openssl(t, dir, "x509", "-req", "-in", "signing.csr", "-CA", "ca.cert.pem", "-CAkey", "ca.key.pem",
		"-CAcreateserial", "-out", "signing.cert.pem", "-days", "2")
	return filepath.Join(dir, "ca.cert.pem"), filepath.Join(dir, "signing.key.pem"), filepath.Join(dir, "signing.cert.pem")
}

func newPostImageEnv(t *testing.T) postImageEnv {
	t.Helper()
	dir := t.TempDir()
	e := postImageEnv{dir: dir, images: filepath.Join(dir, "images"), target: filepath.Join(dir, "target"), config: filepath.Join(dir, ".config")}
	e.ca, e.key, e.cert = makeCA(t, filepath.Join(dir, "keys"), "Hark test")
	fw := filepath.Join(e.images, "rpi-firmware")
	writeFile(t, filepath.Join(fw, "config.txt"), []byte(readFile(t, "board/rpi4-64/config.txt")))
	writeFile(t, filepath.Join(fw, "cmdline.txt"), []byte(readFile(t, "board/rpi4-64/cmdline.txt")))
	writeFile(t, filepath.Join(fw, "start4cd.elf"), sized(800<<10))
	writeFile(t, filepath.Join(fw, "fixup4cd.dat"), sized(3<<10))
	writeFile(t, filepath.Join(fw, "overlays/README"), nil)
	writeFile(t, filepath.Join(fw, "overlays/wm8960-soundcard.dtbo"), sized(2<<10))
	writeFile(t, filepath.Join(e.images, "bcm2711-rpi-4-b.dtb"), sized(55<<10))
	writeFile(t, filepath.Join(e.images, "u-boot.bin"), sized(600<<10))
	writeFile(t, filepath.Join(e.images, "boot.scr"), sized(3<<10))
	// Buildroot writes rootfs.ext2 and links rootfs.ext4 to it.
	sparse(t, filepath.Join(e.images, "rootfs.ext2"), 32*mib)
	if err := os.Symlink("rootfs.ext2", filepath.Join(e.images, "rootfs.ext4")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.target, "usr/share/hark/version"), []byte("1.2.0.5\n"))
	e.writeConfig(t, e.ca, e.key, e.cert)
	return e
}

func (e postImageEnv) writeConfig(t *testing.T, keyring, key, cert string) {
	t.Helper()
	abs, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	// The keyring through $(BR2_EXTERNAL_HARK_PATH), as a defconfig may
	// name it.
	rel, err := filepath.Rel(abs, keyring)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, l := range readLines(t, "configs/hark_rpi4_64_defconfig") {
		if defSetRE.MatchString(l) {
			b.WriteString(l + "\n")
		}
	}
	fmt.Fprintf(&b, "BR2_HARK_PROFILE=%q\n", "respeaker-2mic")
	fmt.Fprintf(&b, "BR2_PACKAGE_HARK_SYSTEM_RAUC_KEYRING=\"%s/%s\"\n", externalVar, filepath.ToSlash(rel))
	fmt.Fprintf(&b, "BR2_PACKAGE_HARK_SYSTEM_RAUC_SIGNING_KEY=%q\n", key)
	fmt.Fprintf(&b, "BR2_PACKAGE_HARK_SYSTEM_RAUC_SIGNING_CERT=%q\n", cert)
	writeFile(t, e.config, []byte(b.String()))
}

func (e postImageEnv) run(t *testing.T) ([]byte, error) {
	t.Helper()
	abs, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(abs, "board/common/post-image.sh"), e.images, "rpi4-64")
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(),
		"BR2_CONFIG="+e.config,
		"TARGET_DIR="+e.target,
		"BUILD_DIR="+filepath.Join(e.dir, "build"),
		"BR2_EXTERNAL_HARK_PATH="+abs,
		"MTOOLS_SKIP_CHECK=1",
	)
	return cmd.CombinedOutput()
}

func TestPostImage(t *testing.T) {
	need(t, "genimage", "mkdosfs", "mcopy", "mtype", "rauc", "mksquashfs", "openssl", "sha256sum")
	e := newPostImageEnv(t)
	if out, err := e.run(t); err != nil {
		t.Fatalf("post-image.sh: %v\n%s", err, out)
	}

	checkCard(t, filepath.Join(e.images, "sdcard.img"), 32*mib)
	boot := filepath.Join(e.images, "boot.vfat")
	cfg := mtype(t, boot, "config.txt")
	for _, want := range []string{"kernel=u-boot.bin", "start_file=start4cd.elf", "# Microphone HAT profile: respeaker-2mic", "dtoverlay=wm8960-soundcard,alsaname=seeed2micvoicec"} {
		if !strings.Contains(cfg, want) {
			t.Errorf("config.txt on the boot partition lacks %q:\n%s", want, cfg)
		}
	}
	for _, f := range []string{"u-boot.bin", "boot.scr", "bcm2711-rpi-4-b.dtb", "start4cd.elf", "cmdline.txt", "overlays/wm8960-soundcard.dtbo"} {
		mtype(t, boot, f)
	}

	// manifest.json, read by Hark's own update agent.
	raw, err := os.ReadFile(filepath.Join(e.images, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := update.ParseManifest(raw)
	if err != nil {
		t.Fatalf("manifest.json: %v\n%s", err, raw)
	}
	if m.Version != "1.2.0.5" || m.Compatible != "hark-rpi4-64" || m.URL != "hark-rpi4-64-1.2.0.5.raucb" {
		t.Errorf("manifest.json: %+v", m)
	}
	bundle, err := os.ReadFile(filepath.Join(e.images, m.URL))
	if err != nil {
		t.Fatalf("the manifest's url: %v", err)
	}
	sum := sha256.Sum256(bundle)
	if int64(len(bundle)) != m.Size || hex.EncodeToString(sum[:]) != m.SHA256 {
		t.Errorf("manifest.json says %d bytes, sha256 %s; the bundle has %d, %x", m.Size, m.SHA256, len(bundle), sum)
	}

	// The bundle verifies against the keyring the image carries.
	out, err := exec.Command("rauc", "info", "--keyring="+e.ca, filepath.Join(e.images, m.URL)).CombinedOutput()
	if err != nil {
		t.Fatalf("rauc info: %v\n%s", err, out)
	}
	for _, want := range []string{"'hark-rpi4-64'", "'1.2.0.5'", "verity", "rootfs.ext4"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("rauc info lacks %s:\n%s", want, out)
		}
	}
}

func TestPostImageRejectsUntrustedSigner(t *testing.T) {
	need(t, "genimage", "mkdosfs", "mcopy", "rauc", "mksquashfs", "openssl", "sha256sum")
	e := newPostImageEnv(t)
	// Sign with a certificate from another CA than the keyring's.
	_, otherKey, otherCert := makeCA(t, filepath.Join(e.dir, "other"), "Someone else")
	e.writeConfig(t, e.ca, otherKey, otherCert)
	out, err := e.run(t)
	if err == nil {
		t.Fatalf("post-image.sh signed with an untrusted certificate and succeeded:\n%s", out)
	}
	if !bytes.Contains(out, []byte("does not verify against")) {
		t.Errorf("post-image.sh failed, but not at the signature check:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(e.images, "manifest.json")); err == nil {
		t.Error("manifest.json was written for a bundle that does not verify")
	}
}

func TestPostImageRejectsBadVersion(t *testing.T) {
	need(t, "sh", "sed", "grep", "dirname")
	// Versions that would break manifest.json or that the update agent
	// cannot compare stop the build before anything is made.
	for _, v := range []string{`1.0 "beta"`, "nightly", "", "1..2"} {
		if _, err := update.ParseVersion(v); err == nil && !strings.ContainsAny(v, `" `) {
			t.Errorf("the update agent accepts %q; this test expects it not to", v)
		}
		e := postImageEnv{dir: t.TempDir()}
		e.images = filepath.Join(e.dir, "images")
		e.target = filepath.Join(e.dir, "target")
		e.config = filepath.Join(e.dir, ".config")
		writeFile(t, filepath.Join(e.target, "usr/share/hark/version"), []byte(v+"\n"))
		e.writeConfig(t, filepath.Join(e.dir, "ca.pem"), filepath.Join(e.dir, "key.pem"), filepath.Join(e.dir, "cert.pem"))
		out, err := e.run(t)
		if err == nil || !bytes.Contains(out, []byte("post-image.sh: version '")) {
			t.Errorf("post-image.sh did not stop at version %q: %v\n%s", v, err, out)
		}
	}
}

// TestSystemdUnits checks this tree's units and drop-ins with
// systemd-analyze verify, in a scratch root holding the host's units (for
// the targets they hang off), stand-ins for the units the drop-ins extend,
// and the programs they run.
func TestSystemdUnits(t *testing.T) {
	need(t, "systemd-analyze")
	root := t.TempDir()
	unitDir := filepath.Join(root, "usr/lib/systemd/system")
	host := "/usr/lib/systemd/system"
	entries, err := os.ReadDir(host)
	if err != nil {
		t.Skipf("no host units to verify against: %v", err)
	}
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".target") {
			writeFile(t, filepath.Join(unitDir, e.Name()), []byte(readFile(t, filepath.Join(host, e.Name()))))
		}
	}
	units := map[string]string{ // unit name -> file in this tree
		"data.mount":             "package/hark-system/files/data.mount",
		"var-lib-hark.mount":     "package/hark-system/files/var-lib-hark.mount",
		"hark-data-dirs.service": "package/hark-system/files/hark-data-dirs.service",
		"hark-mixer.service":     "package/hark/hark-mixer.service",
		"hark-ap.path":           "package/hark-system/files/hark-ap.path",
		"hark-ap.service":        "package/hark-system/files/hark-ap.service",
		"hark-ap-dhcp.service":   "package/hark-system/files/hark-ap-dhcp.service",
		"hark-captive.socket":    "package/hark-system/files/hark-captive.socket",
	}
	dropins := map[string]string{ // unit the drop-in extends -> drop-in
		"rauc.service":                 "package/hark-system/files/rauc-data.conf",
		"wpa_supplicant@wlan0.service": "package/hark-system/files/wpa-supplicant-data.conf",
		"hark.service":                 "package/hark-system/files/hark-wifi.conf",
	}
	var names []string
	execRE := regexp.MustCompile(`(?m)^Exec\w+=[-@!+]*(/\S+)`)
	for name, src := range units {
		body := readFile(t, src)
		writeFile(t, filepath.Join(unitDir, name), []byte(body))
		for _, m := range execRE.FindAllStringSubmatch(body, -1) {
			writeFile(t, filepath.Join(root, m[1]), []byte("#!/bin/sh\n"))
			if err := os.Chmod(filepath.Join(root, m[1]), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		names = append(names, name)
	}
	for unit, src := range dropins {
		stub := "[Service]\nExecStart=/usr/bin/true\n"
		template := strings.Replace(unit, "@wlan0", "@", 1)
		writeFile(t, filepath.Join(unitDir, template), []byte(stub))
		body := readFile(t, src)
		writeFile(t, filepath.Join(unitDir, unit+".d", filepath.Base(src)), []byte(body))
		for _, m := range execRE.FindAllStringSubmatch(body, -1) {
			writeFile(t, filepath.Join(root, m[1]), []byte("#!/bin/sh\n"))
			if err := os.Chmod(filepath.Join(root, m[1]), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		names = append(names, unit)
	}
	// systemd's own fsck template, which data.mount requires.
	writeFile(t, filepath.Join(unitDir, "systemd-fsck@.service"), []byte("[Unit]\nDescription=stand-in\nDefaultDependencies=no\nConflicts=shutdown.target\nBefore=shutdown.target\n[Service]\nType=oneshot\nExecStart=/usr/bin/true\n"))
	writeFile(t, filepath.Join(root, "usr/bin/true"), []byte("#!/bin/sh\n"))
	if err := os.Chmod(filepath.Join(root, "usr/bin/true"), 0o755); err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	cmd := exec.Command("systemd-analyze", append([]string{"verify", "--man=no", "--root=" + root}, names...)...)
	cmd.Dir = unitDir
	if out, err := cmd.CombinedOutput(); err != nil || len(bytes.TrimSpace(out)) > 0 {
		if bytes.Contains(out, []byte("unrecognized option")) {
			t.Skipf("systemd-analyze verify has no --root here:\n%s", out)
		}
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}
}
