// Package systemd holds Hark's systemd units; this test checks them with
// systemd's own tools.
package systemd

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var units = []string{"hark.service", "hark-health.service", "hark-update.service", "hark-update.timer", "hark-firstboot.service", "hark-clock.service"}

func need(t *testing.T, tool, pkg string) string {
	p, err := exec.LookPath(tool)
	if err != nil {
		t.Skipf("%s is not installed (apt-get install %s): skipping", tool, pkg)
	}
	return p
}

// installed copies the units into dir as the image installs them, with the
// programs they run pointed at stand-ins that exist on this machine.
func installed(t *testing.T) string {
	dir := t.TempDir()
	fake := filepath.Join(dir, "bin", "hark")
	os.MkdirAll(filepath.Dir(fake), 0o755)
	os.WriteFile(fake, []byte("#!/bin/sh\nexit 0\n"), 0o755)
	script, _ := filepath.Abs("hark-format-data")
	for _, u := range units {
		b, err := os.ReadFile(u)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.ReplaceAll(string(b), "/usr/bin/hark", fake)
		s = strings.ReplaceAll(s, "/usr/libexec/hark/hark-format-data", script)
		if err := os.WriteFile(filepath.Join(dir, u), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// systemd-analyze verify prints every unknown key, bad value, missing
// program and broken dependency; a clean unit prints nothing.
func TestUnitsVerify(t *testing.T) {
	sa := need(t, "systemd-analyze", "systemd")
	dir := installed(t)
	args := []string{"verify", "--man=no"}
	for _, u := range units {
		args = append(args, filepath.Join(dir, u))
	}
	out, err := exec.Command(sa, args...).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Errorf("systemd-analyze verify: %v\n%s", err, out)
	}

	// The check can fail: a typo is reported.
	bad := filepath.Join(dir, "hark.service")
	b, _ := os.ReadFile(bad)
	os.WriteFile(bad, []byte(strings.Replace(string(b), "WatchdogSec=", "WatchdogSecs=", 1)), 0o644)
	out, _ = exec.Command(sa, "verify", "--man=no", bad).CombinedOutput()
	if !strings.Contains(string(out), "Unknown key 'WatchdogSecs'") {
		t.Errorf("a misspelt key went unreported: %s", out)
	}
}

var exposure = regexp.MustCompile(`Overall exposure level for hark\.service: ([0-9.]+) (\S+)`)

// The target: an exposure of 2.5 or lower, "OK".
func TestHarkServiceSecurity(t *testing.T) {
	sa := need(t, "systemd-analyze", "systemd")
	dir := installed(t)
	out, _ := exec.Command(sa, "security", "--offline=true", "--no-pager", filepath.Join(dir, "hark.service")).CombinedOutput()
	m := exposure.FindStringSubmatch(string(out))
	if m == nil {
		t.Fatalf("no exposure level in:\n%s", out)
	}
	score, _ := strconv.ParseFloat(m[1], 64)
	t.Logf("systemd-analyze security hark.service: %s %s", m[1], m[2])
	if score > 2.5 || m[2] != "OK" {
		t.Errorf("exposure %v %s, want 2.5 or lower and OK", score, m[2])
	}
}

// What the rest of the system relies on in hark.service.
func TestHarkServiceContract(t *testing.T) {
	keys := unitKeys(t, "hark.service")
	for k, want := range map[string]string{
		"Type": "notify", "Restart": "on-failure", "RuntimeDirectory": "hark",
		"User": "hark", "SupplementaryGroups": "audio gpio spi", "NoNewPrivileges": "yes",
		"ProtectSystem": "strict", "DevicePolicy": "closed", "WatchdogSec": "30s", "ExecStart": "/usr/bin/hark run",
	} {
		if got := keys[k]; len(got) != 1 || got[0] != want {
			t.Errorf("%s=%v, want %s", k, got, want)
		}
	}
	allowed := strings.Join(keys["DeviceAllow"], ",")
	for _, dev := range []string{"char-alsa rw", "char-gpiochip rw", "char-spi rw"} {
		if !strings.Contains(allowed, dev) {
			t.Errorf("DeviceAllow lacks %s (has %s)", dev, allowed)
		}
	}
	// Unix and IP sockets, and netlink, over which Go lists the network
	// interfaces (the hotspot's Online, the page's own addresses, mDNS);
	// nothing else (no raw packets).
	fams := keys["RestrictAddressFamilies"]
	if want := []string{"AF_INET", "AF_INET6", "AF_NETLINK", "AF_UNIX"}; len(fams) != 1 || !slices.Equal(slices.Sorted(slices.Values(strings.Fields(fams[0]))), want) {
		t.Errorf("RestrictAddressFamilies=%v, want %s", fams, strings.Join(want, " "))
	}
}

// unitKeys reads a unit's settings: each key's values, in order.
func unitKeys(t *testing.T, path string) map[string][]string {
	t.Helper()
	keys := map[string][]string{}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && !strings.HasPrefix(k, "#") {
			keys[k] = append(keys[k], v)
		}
	}
	return keys
}

// hark.service starts when the data partition does not mount (issue 36:
// the box answers on and holds in memory). systemd makes a unit Require=
// the mounts under a WorkingDirectory=, StateDirectory= and the like
// (systemd.exec(5), "Implicit dependencies"), as under RequiresMountsFor=:
// none of these may name the data directory, and the partition's mounts
// are only wanted. Its directory is made and given to hark before it
// starts, on the partition or, without it, on the tmpfs /var.
func TestHarkServiceStartsWithoutTheDataPartition(t *testing.T) {
	keys := unitKeys(t, "hark.service")
	onData := func(v string) bool {
		for _, w := range strings.Fields(v) {
			w = strings.TrimLeft(w, "-+!:")
			if w == "hark" || strings.HasPrefix(w, "/var/lib/hark") || strings.HasPrefix(w, "/data") ||
				w == "var-lib-hark.mount" || w == "data.mount" || w == "hark-data-dirs.service" {
				return true
			}
		}
		return false
	}
	for _, k := range []string{"WorkingDirectory", "RootDirectory", "RootImage", "StateDirectory", "CacheDirectory",
		"LogsDirectory", "ConfigurationDirectory", "RequiresMountsFor", "Requires", "Requisite", "BindsTo", "PartOf"} {
		for _, v := range keys[k] {
			if onData(v) {
				t.Errorf("%s=%s: systemd would not start hark while the data partition is not mounted", k, v)
			}
		}
	}
	for k, want := range map[string]string{
		"Wants": "var-lib-hark.mount", "After": "var-lib-hark.mount", "ReadWritePaths": "/var/lib/hark",
		"ExecStartPre": "+/usr/bin/install -d -o hark -g hark -m 0700 /var/lib/hark",
	} {
		if got := keys[k]; !slices.ContainsFunc(got, func(v string) bool { return v == want || slices.Contains(strings.Fields(v), want) }) {
			t.Errorf("%s=%q, want it to hold %s", k, got, want)
		}
	}
}

func blkid(t *testing.T, dev, tag string) string {
	out, _ := exec.Command("blkid", "-p", "-o", "value", "-s", tag, dev).Output()
	return strings.TrimSpace(string(out))
}

// errorsBehavior is what the ext4 filesystem in img does on an error.
func errorsBehavior(t *testing.T, img string) string {
	t.Helper()
	out, err := exec.Command("tune2fs", "-l", img).Output()
	if err != nil {
		t.Fatalf("tune2fs -l: %v", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		if v, ok := strings.CutPrefix(l, "Errors behavior:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// The first-boot script formats a blank partition once, and never again;
// the filesystem turns read-only on an error.
func TestFormatDataOnlyWhenBlank(t *testing.T) {
	need(t, "blkid", "util-linux")
	need(t, "mkfs.ext4", "e2fsprogs")
	need(t, "tune2fs", "e2fsprogs")
	img := filepath.Join(t.TempDir(), "data.img")
	if err := os.WriteFile(img, make([]byte, 32<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("./hark-format-data", img).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "is blank") {
		t.Fatalf("blank partition: %v\n%s", err, out)
	}
	if typ, label := blkid(t, img, "TYPE"), blkid(t, img, "LABEL"); typ != "ext4" || label != "hark-data" {
		t.Fatalf("after formatting: type %q label %q", typ, label)
	}
	uuid := blkid(t, img, "UUID")
	if got := errorsBehavior(t, img); got != "Remount read-only" {
		t.Errorf("errors behavior %q after formatting; want Remount read-only (mkfs -e remount-ro)", got)
	}

	out, err = exec.Command("./hark-format-data", img).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "already holds ext4; left as it is") {
		t.Errorf("second boot: %v\n%s", err, out)
	}
	if got := blkid(t, img, "UUID"); got != uuid {
		t.Errorf("the filesystem was remade: UUID %s, was %s", got, uuid)
	}
	// A hark-data filesystem an older image made, errors left to
	// "continue": the next boot makes it fail safe, and formats nothing.
	if out, err := exec.Command("tune2fs", "-e", "continue", img).CombinedOutput(); err != nil {
		t.Fatalf("tune2fs: %v %s", err, out)
	}
	out, err = exec.Command("./hark-format-data", img).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "now turns read-only on an error") || errorsBehavior(t, img) != "Remount read-only" {
		t.Errorf("an older image's filesystem: %v, errors behavior %q\n%s", err, errorsBehavior(t, img), out)
	}
	if got := blkid(t, img, "UUID"); got != uuid {
		t.Errorf("the filesystem was remade: UUID %s, was %s", got, uuid)
	}
	out, err = exec.Command("./hark-format-data", filepath.Join(t.TempDir(), "nope")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "does not exist") {
		t.Errorf("missing device: %v\n%s", err, out)
	}
}

// keysOf reads a unit's keys (every value of each).
func keysOf(t *testing.T, unit string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(unit)
	if err != nil {
		t.Fatal(err)
	}
	keys := map[string][]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, "="); ok && !strings.HasPrefix(k, "#") {
			keys[k] = append(keys[k], strings.Fields(v)...)
		}
	}
	return keys
}

// TestTimeOrdering: the clock is restored from the uptime record before
// anything reads it and before NTP; hark starts on the restored clock
// without waiting for NTP; the update check waits for a synchronised clock.
func TestTimeOrdering(t *testing.T) {
	has := func(unit, key, value string) bool { return slices.Contains(keysOf(t, unit)[key], value) }
	for _, c := range []struct {
		unit, key, value string
		want             bool
	}{
		{"hark-clock.service", "Before", "time-set.target", true},
		{"hark-clock.service", "Before", "systemd-timesyncd.service", true},
		{"hark-clock.service", "Before", "hark.service", true},
		{"hark-clock.service", "RequiresMountsFor", "/var/lib/hark", true},
		{"hark-clock.service", "CapabilityBoundingSet", "CAP_SYS_TIME", true},
		{"hark-clock.service", "AmbientCapabilities", "CAP_SYS_TIME", true},
		{"hark-clock.service", "ExecStart", "restore", true},
		{"hark.service", "After", "time-set.target", true},
		{"hark.service", "After", "time-sync.target", false},
		{"hark-update.service", "After", "time-sync.target", true},
		{"hark-update.service", "Wants", "time-sync.target", true},
	} {
		if got := has(c.unit, c.key, c.value); got != c.want {
			t.Errorf("%s: %s has %s: %v, want %v", c.unit, c.key, c.value, got, c.want)
		}
	}
	if caps := keysOf(t, "hark-clock.service")["CapabilityBoundingSet"]; len(caps) != 1 {
		t.Errorf("hark-clock.service may use %v, want only CAP_SYS_TIME", caps)
	}
	// The uptime record is in the daemon's 0700 directory: a root with
	// only CAP_SYS_TIME cannot read it (the emulated board's second boot
	// failed so); the daemon's user can.
	clockUser, harkUser := keysOf(t, "hark-clock.service")["User"], keysOf(t, "hark.service")["User"]
	if len(clockUser) != 1 || len(harkUser) != 1 || clockUser[0] != harkUser[0] {
		t.Errorf("hark-clock.service runs as %v, hark.service as %v: the record's reader must be its writer", clockUser, harkUser)
	}
}

// TestHarkFlagsParse: hark reads its flags with Go's flag package, so a
// duration on an ExecStart line is Go's form ("3m"), not systemd's
// ("3min"), which hark refuses, failing the unit.
func TestHarkFlagsParse(t *testing.T) {
	durationLike := regexp.MustCompile(`^[0-9]+[a-zµ]+$`)
	for _, u := range units {
		line := keysOf(t, u)["ExecStart"]
		if len(line) == 0 || line[0] != "/usr/bin/hark" {
			continue
		}
		for i, arg := range line[1:] {
			if !durationLike.MatchString(arg) || i == 0 || !strings.HasPrefix(line[i], "-") {
				continue
			}
			if _, err := time.ParseDuration(arg); err != nil {
				t.Errorf("%s: ExecStart gives %s %s, which hark's flags refuse: %v", u, line[i], arg, err)
			}
		}
	}
}
