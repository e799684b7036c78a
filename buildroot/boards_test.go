package buildroot

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/harkbox/hark/device/board"
	"github.com/harkbox/hark/device/update"
)

// --- Boards and profiles ------------------------------------------------------------

func TestDefconfigBoards(t *testing.T) {
	files := defconfigs(t)
	if len(files) != len(boards) {
		t.Errorf("configs/: %v; this test knows %d boards", files, len(boards))
	}
	compatibles := map[string]string{}
	cpus := []string{"BR2_cortex_a53", "BR2_cortex_a72", "BR2_cortex_a76"}
	variants := map[string]string{
		"start4cd.elf": "BR2_PACKAGE_RPI_FIRMWARE_VARIANT_PI4_CD",
		"start4.elf":   "BR2_PACKAGE_RPI_FIRMWARE_VARIANT_PI4",
		"start_cd.elf": "BR2_PACKAGE_RPI_FIRMWARE_VARIANT_PI_CD",
		"start.elf":    "BR2_PACKAGE_RPI_FIRMWARE_VARIANT_PI",
	}
	for _, b := range boards {
		t.Run(b.dir, func(t *testing.T) {
			path := filepath.Join("configs", b.defconfig)
			v := defconfigValues(t, path)
			if want := "hark_" + strings.ReplaceAll(b.dir, "-", "_") + "_defconfig"; b.defconfig != want {
				t.Errorf("defconfig for board/%s is %s, want %s", b.dir, b.defconfig, want)
			}
			for _, c := range cpus {
				if got := v[c] == "y"; got != (c == b.cpu) {
					t.Errorf("%s: %s=%q; the board's CPU is %s", path, c, v[c], b.cpu)
				}
			}
			if v["BR2_TARGET_UBOOT_BOARD_DEFCONFIG"] != b.uboot {
				t.Errorf("%s: U-Boot defconfig %q, want %q", path, v["BR2_TARGET_UBOOT_BOARD_DEFCONFIG"], b.uboot)
			}
			if v["BR2_ROOTFS_POST_SCRIPT_ARGS"] != b.dir {
				t.Errorf("%s: BR2_ROOTFS_POST_SCRIPT_ARGS %q, want %q", path, v["BR2_ROOTFS_POST_SCRIPT_ARGS"], b.dir)
			}
			for _, k := range []string{"BR2_PACKAGE_RPI_FIRMWARE_CONFIG_FILE", "BR2_PACKAGE_RPI_FIRMWARE_CMDLINE_FILE"} {
				if want := externalVar + "/board/" + b.dir + "/"; !strings.HasPrefix(v[k], want) {
					t.Errorf("%s: %s %q is not in %s", path, k, v[k], want)
				}
			}
			c := v["BR2_PACKAGE_HARK_SYSTEM_RAUC_COMPATIBLE"]
			if c != "hark-"+b.dir {
				t.Errorf("%s: RAUC compatible %q, want %q", path, c, "hark-"+b.dir)
			}
			if other, dup := compatibles[c]; dup {
				t.Errorf("%s and %s share the RAUC compatible %q", path, other, c)
			}
			compatibles[c] = path
			// What the A/B design needs on every board.
			for k, want := range map[string]string{
				"BR2_INIT_SYSTEMD":                         "y",
				"BR2_INIT_SYSTEMD_VAR_FACTORY":             "y",
				"BR2_TARGET_GENERIC_REMOUNT_ROOTFS_RW":     "",
				"BR2_LINUX_KERNEL_INSTALL_TARGET":          "y",
				"BR2_LINUX_KERNEL_DTS_SUPPORT":             "y",
				"BR2_TARGET_ROOTFS_EXT2_4":                 "y",
				"BR2_TARGET_UBOOT":                         "y",
				"BR2_TARGET_UBOOT_FORMAT_BIN":              "y",
				"BR2_PACKAGE_HOST_UBOOT_TOOLS_BOOT_SCRIPT": "y",
				"BR2_PACKAGE_HOST_RAUC":                    "y",
				"BR2_PACKAGE_HOST_GENIMAGE":                "y",
				"BR2_PACKAGE_HOST_DOSFSTOOLS":              "y",
				"BR2_PACKAGE_HOST_MTOOLS":                  "y",
				"BR2_PACKAGE_HARK":                         "y",
				"BR2_PACKAGE_HARK_SYSTEM":                  "y",
				"BR2_PACKAGE_RAUC_DBUS":                    "y",
				"BR2_PACKAGE_UBOOT_TOOLS_FWPRINTENV":       "y",
				"BR2_PACKAGE_E2FSPROGS":                    "y",
				"BR2_PACKAGE_RPI_FIRMWARE":                 "y",
			} {
				if v[k] != want {
					t.Errorf("%s: %s=%q, want %q", path, k, v[k], want)
				}
			}
			if _, unset := v["BR2_PACKAGE_RPI_FIRMWARE_INSTALL_DTB_OVERLAYS"]; unset && v["BR2_PACKAGE_RPI_FIRMWARE_INSTALL_DTB_OVERLAYS"] != "y" {
				t.Errorf("%s: the HAT overlays need BR2_PACKAGE_RPI_FIRMWARE_INSTALL_DTB_OVERLAYS", path)
			}
			if !strings.Contains(v["BR2_LINUX_KERNEL_CONFIG_FRAGMENT_FILES"], externalVar+"/board/common/linux.fragment") {
				t.Errorf("%s: the kernel does not get board/common/linux.fragment", path)
			}

			// The firmware's config.txt starts U-Boot with the matching
			// firmware files.
			cfg := firmwareConfig(t, filepath.Join("board", b.dir, "config.txt"))
			if cfg["kernel"] != "u-boot.bin" || cfg["arm_64bit"] != "1" {
				t.Errorf("board/%s/config.txt: kernel=%q arm_64bit=%q, want u-boot.bin and 1", b.dir, cfg["kernel"], cfg["arm_64bit"])
			}
			start := cfg["start_file"]
			for file, sym := range variants {
				if got, want := v[sym] == "y", start == file; got != want {
					t.Errorf("%s: %s=%q but config.txt start_file=%q", path, sym, v[sym], start)
				}
			}
			if start != "" && strings.Replace(strings.Replace(start, "start", "fixup", 1), ".elf", ".dat", 1) != cfg["fixup_file"] {
				t.Errorf("board/%s/config.txt: fixup_file %q does not match start_file %q", b.dir, cfg["fixup_file"], start)
			}
			if cfg["gpu_mem"] == "16" && !strings.Contains(start, "cd") {
				t.Errorf("board/%s/config.txt: gpu_mem=16 needs the cut-down firmware", b.dir)
			}
			if strings.Contains(readFile(t, filepath.Join("board", b.dir, "cmdline.txt")), "root=") {
				t.Errorf("board/%s/cmdline.txt sets root=; boot.cmd picks the slot's root", b.dir)
			}
		})
	}
}

// firmwareConfig reads the key=value lines of a Raspberry Pi config.txt
// (dtoverlay and dtparam lines are left out: they repeat).
func firmwareConfig(t *testing.T, path string) map[string]string {
	t.Helper()
	m := map[string]string{}
	for i, l := range readLines(t, path) {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok {
			t.Errorf("%s:%d: %q", path, i+1, l)
			continue
		}
		if k != "dtoverlay" && k != "dtparam" {
			m[k] = v
		}
	}
	return m
}

// The ALSA card names of the overlays the profiles use (the
// simple-audio-card or machine driver's name); alsaname= overrides.
var overlayCards = map[string]string{
	"wm8960-soundcard":         "wm8960-soundcard",
	"googlevoicehat-soundcard": "snd_rpi_googlevoicehat_soundcard",
}

// alsaCardID is the id ALSA gives a card named name: the letters and digits
// of its last word, at most 15.
func alsaCardID(name string) string {
	if i := strings.LastIndexAny(name, " \t"); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	for _, r := range name {
		if (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	id := b.String()
	if len(id) > 15 {
		id = id[:15]
	}
	return id
}

func profiles(t *testing.T) []string {
	t.Helper()
	var out []string
	re := regexp.MustCompile(`^\s*default "([a-z0-9-]+)" if BR2_HARK_PROFILE_(\w+)$`)
	for _, l := range readLines(t, "Config.in") {
		if m := re.FindStringSubmatch(l); m != nil {
			if upper(m[1]) != m[2] {
				t.Errorf("Config.in: profile %q comes from BR2_HARK_PROFILE_%s", m[1], m[2])
			}
			out = append(out, m[1])
		}
	}
	if len(out) < 2 {
		t.Fatalf("Config.in: profiles %v; want respeaker-2mic and generic-i2s", out)
	}
	return out
}

func TestProfiles(t *testing.T) {
	ours := ourSymbols(t)
	known := board.Names()
	for _, p := range profiles(t) {
		t.Run(p, func(t *testing.T) {
			if !ours["BR2_HARK_PROFILE_"+upper(p)] {
				t.Errorf("Config.in has no choice BR2_HARK_PROFILE_%s", upper(p))
			}
			if !slices.Contains(known, p) {
				t.Errorf("%q is not one of Hark's board profiles %v (device/board)", p, known)
			}
			dir := filepath.Join("board", p)

			// hark.toml: the board key and nothing hark.mk appends.
			var cfg map[string]any
			if err := toml.Unmarshal([]byte(readFile(t, filepath.Join(dir, "hark.toml"))), &cfg); err != nil {
				t.Fatalf("%s/hark.toml: %v", dir, err)
			}
			if cfg["board"] != p {
				t.Errorf("%s/hark.toml: board = %v, want %q", dir, cfg["board"], p)
			}
			if _, ok := cfg["whisper"]; ok {
				t.Errorf("%s/hark.toml has a [whisper] table; hark.mk appends one for the models", dir)
			}

			// config-overlays.txt: only dtparam and dtoverlay lines.
			card := ""
			for i, l := range readLines(t, filepath.Join(dir, "config-overlays.txt")) {
				l = strings.TrimSpace(l)
				if l == "" || strings.HasPrefix(l, "#") {
					continue
				}
				k, v, _ := strings.Cut(l, "=")
				if k != "dtparam" && k != "dtoverlay" {
					t.Errorf("%s/config-overlays.txt:%d: %q; only dtparam= and dtoverlay= belong here", dir, i+1, l)
					continue
				}
				if k != "dtoverlay" {
					continue
				}
				fields := strings.Split(v, ",")
				name, ok := overlayCards[fields[0]]
				if !ok {
					t.Errorf("%s/config-overlays.txt:%d: overlay %q: add its ALSA card name to this test", dir, i+1, fields[0])
					continue
				}
				for _, f := range fields[1:] {
					if a, ok := strings.CutPrefix(f, "alsaname="); ok {
						name = a
					}
				}
				card = alsaCardID(name)
			}
			if card == "" {
				t.Fatalf("%s/config-overlays.txt loads no sound card overlay", dir)
			}

			// asound.conf: the two devices Hark opens, on that card.
			asound := readFile(t, filepath.Join(dir, "asound.conf"))
			for _, pcm := range []string{"pcm.hark_capture", "pcm.hark_playback"} {
				if !strings.Contains(asound, pcm+" {") {
					t.Errorf("%s/asound.conf does not define %s", dir, pcm)
				}
			}
			names := regexp.MustCompile(`(?:hw:|card ")([A-Za-z0-9_]+)`).FindAllStringSubmatch(asound, -1)
			if len(names) == 0 {
				t.Errorf("%s/asound.conf names no card", dir)
			}
			seen := map[string]bool{}
			for _, n := range names {
				if n[1] != card && !seen[n[1]] {
					t.Errorf("%s/asound.conf uses card %q; the overlay's card is %q", dir, n[1], card)
				}
				seen[n[1]] = true
			}
		})
	}
}

func TestALSACardID(t *testing.T) {
	for _, tt := range []struct{ name, want string }{
		{"snd_rpi_googlevoicehat_soundcard", "sndrpigooglevoi"},
		{"wm8960-soundcard", "wm8960soundcard"},
		{"seeed2micvoicec", "seeed2micvoicec"},
		{"Some Card Name", "Name"},
	} {
		if got := alsaCardID(tt.name); got != tt.want {
			t.Errorf("alsaCardID(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// --- Packages against the repository ---------------------------------------------

func TestHarkPackageMatchesRepository(t *testing.T) {
	v := mkVars(t, "package/hark/hark.mk")
	gomod := readFile(t, "../go.mod")
	if !strings.Contains(gomod, "module "+v["HARK_GOMOD"]+"\n") {
		t.Errorf("hark.mk: HARK_GOMOD %q is not the module in ../go.mod", v["HARK_GOMOD"])
	}
	if fi, err := os.Stat(filepath.Join("..", v["HARK_BUILD_TARGETS"])); err != nil || !fi.IsDir() {
		t.Errorf("hark.mk: HARK_BUILD_TARGETS %q is not a directory of the repository", v["HARK_BUILD_TARGETS"])
	}
	tags := strings.Fields(v["HARK_TAGS"])
	for _, want := range []string{"whisper", "alsa"} {
		if !slices.Contains(tags, want) {
			t.Errorf("hark.mk: HARK_TAGS %v lacks %q", tags, want)
		}
	}
	for _, dep := range []string{"whisper-cpp", "alsa-lib"} {
		if !slices.Contains(strings.Fields(v["HARK_DEPENDENCIES"]), dep) {
			t.Errorf("hark.mk: HARK_DEPENDENCIES lacks %s", dep)
		}
	}
	if v["HARK_SITE_METHOD"] != "local" || !strings.Contains(v["HARK_SITE"], externalVar+"/..") {
		t.Errorf("hark.mk: the source must be the repository around this tree, as a local package")
	}
	if !strings.Contains(v["HARK_LDFLAGS"], "-X main.version=") {
		t.Errorf("hark.mk: HARK_LDFLAGS %q does not set main.version", v["HARK_LDFLAGS"])
	}
	if !strings.Contains(readFile(t, "../cmd/hark/version.go"), "var version = ") {
		t.Error("cmd/hark no longer has var version for -X main.version")
	}
	mk := readFile(t, "package/hark/hark.mk")
	if !strings.Contains(mk, "HARK_PRE_BUILD_HOOKS += HARK_VENDOR_MODULES") || !strings.Contains(mk, "mod vendor") {
		t.Error("hark.mk does not vendor the module tree before the build (Buildroot builds Go with -mod=vendor)")
	}
	for _, want := range []string{"/etc/asound.conf", "/etc/hark/hark.toml", "/usr/bin/hark", "/usr/libexec/hark/hark-format-data", "$(@D)/systemd/*.service", "$(@D)/systemd/*.timer"} {
		if !strings.Contains(mk, want) {
			t.Errorf("hark.mk does not install %s", want)
		}
	}
	users := regexp.MustCompile(`(?m)^\s+hark (\d+) hark (\d+) \S+ /var/lib/hark \S+ (\S+) `).FindStringSubmatch(mk)
	if users == nil {
		t.Fatal("hark.mk: HARK_USERS does not define the hark user with home /var/lib/hark")
	}
	if users[1] == "-1" || users[2] == "-1" {
		t.Error("hark.mk: the hark uid and gid must be fixed: files on the data partition outlive updates")
	}
	for _, g := range []string{"audio", "gpio", "spi"} {
		if !slices.Contains(strings.Split(users[3], ","), g) {
			t.Errorf("hark.mk: the hark user is not in group %s", g)
		}
	}
	rules := readFile(t, "package/hark/90-hark.rules")
	for _, want := range []string{`KERNEL=="gpiochip[0-9]*", GROUP="gpio"`, `KERNEL=="spidev[0-9]*", GROUP="spi"`} {
		if !strings.Contains(rules, want) {
			t.Errorf("90-hark.rules lacks %s", want)
		}
	}
}

func TestWhisperPackageMatchesRepository(t *testing.T) {
	v := mkVars(t, "package/whisper-cpp/whisper-cpp.mk")
	makefile := readFile(t, "../Makefile")
	mv := func(name string) string {
		m := regexp.MustCompile(`(?m)^` + name + `\s*\??:?=\s*(\S+)`).FindStringSubmatch(makefile)
		if m == nil {
			t.Fatalf("../Makefile has no %s", name)
		}
		return m[1]
	}
	if got, want := "v"+v["WHISPER_CPP_VERSION"], mv("WHISPER_VERSION"); got != want {
		t.Errorf("whisper-cpp.mk builds %s, the Makefile %s", got, want)
	}
	opts := v["WHISPER_CPP_CONF_OPTS"]
	for _, want := range []string{"-DBUILD_SHARED_LIBS=OFF", "-DGGML_NATIVE=OFF", "-DGGML_OPENMP=ON", "-DWHISPER_BUILD_EXAMPLES=OFF", "-DWHISPER_BUILD_TESTS=OFF", "-DWHISPER_BUILD_SERVER=OFF"} {
		if !strings.Contains(opts, want) {
			t.Errorf("whisper-cpp.mk: CONF_OPTS lack %s", want)
		}
	}
	if v["WHISPER_CPP_INSTALL_STAGING"] != "YES" || v["WHISPER_CPP_INSTALL_TARGET"] != "NO" {
		t.Error("whisper-cpp.mk: static libraries go to staging only")
	}
	// The per-CPU -march defaults are the ones `make whisper-pi5|pi4` use.
	archs := map[string]string{}
	re := regexp.MustCompile(`^\s*default "([^"]+)" if (BR2_cortex_\w+)$`)
	for _, l := range readLines(t, "package/whisper-cpp/Config.in") {
		if m := re.FindStringSubmatch(l); m != nil {
			archs[m[2]] = m[1]
		}
	}
	for cpu, name := range map[string]string{"BR2_cortex_a76": "WHISPER_ARCH_pi5", "BR2_cortex_a72": "WHISPER_ARCH_pi4"} {
		if archs[cpu] != mv(name) {
			t.Errorf("whisper-cpp Config.in: %s gets %q, the Makefile's %s is %q", cpu, archs[cpu], name, mv(name))
		}
	}
	if archs["BR2_cortex_a53"] != "armv8-a" {
		t.Errorf("whisper-cpp Config.in: Cortex-A53 gets %q, want armv8-a", archs["BR2_cortex_a53"])
	}

	// Hash checking: the tarball is either pinned (and checked everywhere)
	// or explicitly unchecked, with the defconfigs not forcing checks.
	source := "v" + v["WHISPER_CPP_VERSION"] + ".tar.gz"
	pinned := regexp.MustCompile(`(?m)^sha256\s+[0-9a-f]{64}\s+` + regexp.QuoteMeta(source) + `$`).MatchString(readFile(t, "package/whisper-cpp/whisper-cpp.hash"))
	unchecked := strings.Contains(readFile(t, "package/whisper-cpp/whisper-cpp.mk"), "BR_NO_CHECK_HASH_FOR += $(WHISPER_CPP_SOURCE)")
	if pinned == unchecked {
		t.Errorf("whisper-cpp: tarball hash pinned=%v, BR_NO_CHECK_HASH_FOR=%v; exactly one must hold", pinned, unchecked)
	}
	for _, b := range boards {
		force := defconfigValues(t, filepath.Join("configs", b.defconfig))["BR2_DOWNLOAD_FORCE_CHECK_HASHES"] == "y"
		if unchecked && force {
			t.Errorf("%s forces hash checks, which ignores BR_NO_CHECK_HASH_FOR: whisper.cpp would not download", b.defconfig)
		}
		if pinned && !force {
			t.Errorf("%s: whisper-cpp.hash is pinned; turn BR2_DOWNLOAD_FORCE_CHECK_HASHES back on", b.defconfig)
		}
	}
}

// TestVersionScript builds a git history and checks that version.sh names
// each build in a form the update agent accepts, later commits newer.
func TestVersionScript(t *testing.T) {
	need(t, "git")
	repo := t.TempDir()
	script, err := filepath.Abs("package/hark/version.sh")
	if err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", "-c", "tag.gpgsign=false"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	commit := func() {
		t.Helper()
		writeFile(t, filepath.Join(repo, "f"), []byte(fmt.Sprint(time.Now().UnixNano())))
		git("add", "f")
		git("commit", "-q", "-m", "c")
	}
	version := func() string {
		t.Helper()
		out, err := exec.Command(script, repo).Output()
		if err != nil {
			t.Fatalf("version.sh: %v", err)
		}
		return strings.TrimSpace(string(out))
	}

	var got []string
	step := func(want string) {
		t.Helper()
		v := version()
		if v != want {
			t.Errorf("version.sh = %q, want %q", v, want)
		}
		got = append(got, v)
	}
	step("0.0.0-dev") // not a repository yet
	git("init", "-q")
	commit()
	commit()
	step("0.0.0.2")
	git("tag", "v1.2")
	step("1.2.0")
	commit()
	commit()
	step("1.2.0.2")
	writeFile(t, filepath.Join(repo, "f"), []byte("changed"))
	step("1.2.0.2-dirty")
	git("checkout", "-q", "f")
	git("tag", "v1.3.0-rc1")
	commit()
	step("1.3.0-rc1.1")
	git("tag", "v1.3.0")
	step("1.3.0")

	// Every one parses, and each clean build is newer than the one before.
	var prev update.Version
	for i, v := range got {
		pv, err := update.ParseVersion(v)
		if err != nil {
			t.Errorf("update.ParseVersion(%q): %v", v, err)
			continue
		}
		if i > 0 && v != "1.2.0.2-dirty" && got[i-1] != "1.2.0.2-dirty" && pv.Compare(prev) <= 0 {
			t.Errorf("%q is not newer than %q", v, got[i-1])
		}
		prev = pv
	}
}
