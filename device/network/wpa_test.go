package network

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func newWiFi(t *testing.T) *WiFi {
	t.Helper()
	return &WiFi{Path: filepath.Join(t.TempDir(), "wpa_supplicant.conf")}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAddChecksTheNameAndPassphrase(t *testing.T) {
	for _, tc := range []struct {
		name, ssid, psk string
		field, want     string // want is in the message; "" when Add succeeds
	}{
		{"plain", "Home", "correct horse", "", ""},
		{"open network", "Cafe", "", "", ""},
		{"32 bytes", strings.Repeat("a", 32), "12345678", "", ""},
		{"accents and emoji", "Café ☕", "12345678", "", ""},
		{"spaces and quotes", ` "Bob's" \ net # 2 `, "12345678", "", ""},
		{"63 characters", "Home", strings.Repeat("x", 63), "", ""},
		{"64 hex digits", "Home", strings.Repeat("0a", 32), "", ""},
		{"punctuation", "Home", `p"ss\w#rd =}{`, "", ""},
		{"no name", "", "12345678", "ssid", "type the network's name"},
		{"33 bytes", strings.Repeat("a", 33), "12345678", "ssid", "at most 32 bytes long; this one has 33"},
		{"17 emoji", strings.Repeat("☕", 11), "12345678", "ssid", "at most 32 bytes long; this one has 33"},
		{"a new line", "Home\nnetwork={", "12345678", "ssid", "control character"},
		{"a tab", "Home\tNet", "12345678", "ssid", "control character"},
		{"NUL", "Home\x00", "12345678", "ssid", "control character"},
		{"7 characters", "Home", "1234567", "psk", "too short: it has 7 characters"},
		{"65 characters", "Home", strings.Repeat("x", 65), "psk", "too long: it has 65 characters"},
		{"64, not hex", "Home", strings.Repeat("x", 64), "psk", "hexadecimal"},
		{"an accent", "Home", "motdepassé", "psk", "no accents"},
		{"a new line", "Home", "12345678\n}\nnetwork={", "psk", "no accents, emoji, tabs or new lines"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWiFi(t)
			err := w.Add(t.Context(), tc.ssid, tc.psk)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Add(%q, %q) = %v, want nil", tc.ssid, tc.psk, err)
				}
				got, err := w.Networks()
				if err != nil || !slices.Equal(got, []string{tc.ssid}) {
					t.Errorf("Networks() = %q, %v; want [%q]", got, err, tc.ssid)
				}
				return
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Field != tc.field || !strings.Contains(fe.Msg, tc.want) {
				t.Fatalf("Add(%q, %q) = %v, want a FieldError for %s saying %q", tc.ssid, tc.psk, err, tc.field, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "network: ") {
				t.Errorf("error %q, want the package's prefix", err)
			}
			if tc.psk != "" && strings.Contains(err.Error(), tc.psk) {
				t.Errorf("the error %q says the passphrase", err)
			}
			if _, err := os.Stat(w.Path); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("a refused network wrote the file: %v", err)
			}
		})
	}
}

// TestAddWritesTheFile: each network is written with scan_ssid=1, so that
// a hidden one, typed by name on the captive page ("Another network") or
// the network page, is asked for by name and found.
func TestAddWritesTheFile(t *testing.T) {
	w := newWiFi(t)
	if err := w.Add(t.Context(), "Home", "correct horse"); err != nil {
		t.Fatal(err)
	}
	want := Header + "\nnetwork={\n\tssid=\"Home\"\n\tscan_ssid=1\n\tpsk=\"correct horse\"\n}\n"
	if got := read(t, w.Path); got != want {
		t.Errorf("a file that did not exist:\ngot\n%s\nwant\n%s", got, want)
	}
	st, err := os.Stat(w.Path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600", st.Mode().Perm(), err)
	}
	empty := &WiFi{Path: filepath.Join(t.TempDir(), "wpa_supplicant.conf")}
	os.WriteFile(empty.Path, []byte("\n"), 0o600)
	if err := empty.Add(t.Context(), "Home", "correct horse"); err != nil || read(t, empty.Path) != want {
		t.Errorf("an empty file: %v\n%s", err, read(t, empty.Path))
	}
	if err := w.Add(t.Context(), "Cafe", ""); err != nil {
		t.Fatal(err)
	}
	if err := w.Add(t.Context(), "Key", strings.Repeat("Ab", 32)); err != nil {
		t.Fatal(err)
	}
	want += "\nnetwork={\n\tssid=\"Cafe\"\n\tscan_ssid=1\n\tkey_mgmt=NONE\n}\n" + "\nnetwork={\n\tssid=\"Key\"\n\tscan_ssid=1\n\tpsk=" + strings.Repeat("Ab", 32) + "\n}\n"
	if got := read(t, w.Path); got != want {
		t.Errorf("appended:\ngot\n%s\nwant\n%s", got, want)
	}
}

// An existing file keeps everything but the network replaced: its
// settings, comments, other networks and their order.
func TestAddReplacesOrAppends(t *testing.T) {
	const existing = `# written by hand
ctrl_interface=DIR=/var/run/wpa_supplicant GROUP=netdev
country=GB

network={
	ssid="Home"
	psk="old passphrase"
	priority=5
}
network={
    ssid=436166c3a9
    key_mgmt=NONE
}
network={
	ssid=P"Quote\"d"
	psk="another one"
}
network={
	ssid="Home"
	psk="a duplicate"
}`
	for _, tc := range []struct {
		name, ssid, psk, want string
		networks              []string
	}{
		{"replace the first, drop the duplicate", "Home", "new passphrase", `# written by hand
ctrl_interface=DIR=/var/run/wpa_supplicant GROUP=netdev
country=GB

network={
	ssid="Home"
	scan_ssid=1
	psk="new passphrase"
}
network={
    ssid=436166c3a9
    key_mgmt=NONE
}
network={
	ssid=P"Quote\"d"
	psk="another one"
}
`, []string{"Home", "Café", `Quote"d`}},
		{"replace a hex SSID", "Café", "12345678", strings.Replace(existing, "    ssid=436166c3a9\n    key_mgmt=NONE\n}\n",
			"\tssid=436166c3a9\n\tscan_ssid=1\n\tpsk=\"12345678\"\n}\n", 1), []string{"Home", "Café", `Quote"d`, "Home"}},
		{"replace a printf SSID", `Quote"d`, "", strings.Replace(existing, "\tssid=P\"Quote\\\"d\"\n\tpsk=\"another one\"\n",
			"\tssid=51756f74652264\n\tscan_ssid=1\n\tkey_mgmt=NONE\n", 1), []string{"Home", "Café", `Quote"d`, "Home"}},
		{"append to a file without a last new line", "Office", "12345678", existing + "\n\nnetwork={\n\tssid=\"Office\"\n\tscan_ssid=1\n\tpsk=\"12345678\"\n}\n",
			[]string{"Home", "Café", `Quote"d`, "Home", "Office"}},
		{"names differ in case", "home", "12345678", existing + "\n\nnetwork={\n\tssid=\"home\"\n\tscan_ssid=1\n\tpsk=\"12345678\"\n}\n",
			[]string{"Home", "Café", `Quote"d`, "Home", "home"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWiFi(t)
			if err := os.WriteFile(w.Path, []byte(existing), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := w.Add(t.Context(), tc.ssid, tc.psk); err != nil {
				t.Fatal(err)
			}
			if got := read(t, w.Path); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if got, err := w.Networks(); err != nil || !slices.Equal(got, tc.networks) {
				t.Errorf("Networks() = %q, %v; want %q", got, err, tc.networks)
			}
			if st, _ := os.Stat(w.Path); st.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", st.Mode().Perm())
			}
		})
	}
}

// An SSID that cannot be quoted is written in hex and read back the same.
func TestHexSSIDRoundTrip(t *testing.T) {
	for _, ssid := range []string{`say "hi"`, `back\slash`, "Café ☕", "#1", "\xff\xfe raw", "a"} {
		w := newWiFi(t)
		if err := w.Add(t.Context(), ssid, "12345678"); err != nil {
			t.Fatal(err)
		}
		conf := read(t, w.Path)
		quoted := !strings.ContainsAny(ssid, "\"\\#") && strings.IndexFunc(ssid, func(r rune) bool { return r > 0x7e }) < 0
		if quoted != strings.Contains(conf, `ssid="`) {
			t.Errorf("%q written as\n%s\nwant it quoted: %v", ssid, conf, quoted)
		}
		got, _ := w.Networks()
		if want := strings.ToValidUTF8(ssid, "\uFFFD"); !slices.Equal(got, []string{want}) {
			t.Errorf("%q read back as %q", ssid, got)
		}
		// Adding it again replaces it.
		if err := w.Add(t.Context(), ssid, "87654321"); err != nil {
			t.Fatal(err)
		}
		if got, _ := w.Networks(); len(got) != 1 || strings.Contains(read(t, w.Path), "12345678") {
			t.Errorf("%q added twice: %q", ssid, got)
		}
	}
}

func TestNetworksNeverSaysThePassphrase(t *testing.T) {
	w := newWiFi(t)
	if got, err := w.Networks(); err != nil || len(got) != 0 {
		t.Errorf("no file: %q, %v; want none and no error", got, err)
	}
	os.WriteFile(w.Path, []byte("network={\n\tpsk=\"no ssid here\"\n}\nnetwork={\n\tssid=\"A\"\n\tpsk=\"secret-one\"\n}\n"), 0o600)
	got, err := w.Networks()
	if err != nil || !slices.Equal(got, []string{"A"}) {
		t.Errorf("Networks() = %q, %v; want [A]", got, err)
	}
}

func TestApply(t *testing.T) {
	w := newWiFi(t)
	var applied int
	w.Apply = func(context.Context) error {
		applied++
		if !strings.Contains(read(t, w.Path), `ssid="Home"`) {
			t.Error("applied before the file was written")
		}
		return nil
	}
	if err := w.Add(t.Context(), "Home", "12345678"); err != nil || applied != 1 {
		t.Fatalf("Add: %v, applied %d times", err, applied)
	}
	w.Apply = func(context.Context) error {
		return errors.New("network: wpa_cli -i wlan0 reconfigure: exit status 255: No such file")
	}
	err := w.Add(t.Context(), "Office", "12345678")
	if !errors.Is(err, ErrNotApplied) || err.Error() != "network: the Wi-Fi network is saved, but applying it failed: wpa_cli -i wlan0 reconfigure: exit status 255: No such file" {
		t.Errorf("a failed Apply: %v", err)
	}
	if got, _ := w.Networks(); !slices.Equal(got, []string{"Home", "Office"}) {
		t.Errorf("after a failed Apply the file has %q, want the network saved", got)
	}
	// A refused network is neither written nor applied.
	applied = 0
	w.Apply = func(context.Context) error { applied++; return nil }
	if err := w.Add(t.Context(), "", "12345678"); err == nil || applied != 0 {
		t.Errorf("an empty name: %v, applied %d", err, applied)
	}
}

func TestAddFailsToWrite(t *testing.T) {
	w := &WiFi{Path: filepath.Join(t.TempDir(), "missing", "wpa_supplicant.conf")}
	err := w.Add(t.Context(), "Home", "12345678")
	if err == nil || !strings.HasPrefix(err.Error(), `network: save "Home": `) {
		t.Errorf("a directory that does not exist: %v", err)
	}
	w = &WiFi{Path: t.TempDir()} // a directory, not a file
	if _, err := w.Networks(); err == nil || !strings.HasPrefix(err.Error(), "network: read the Wi-Fi networks") {
		t.Errorf("Networks of a directory: %v", err)
	}
}

// TestWPACLI runs a stand-in wpa_cli from PATH.
func TestWPACLI(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to run the stand-in wpa_cli")
	}
	sh, _ := exec.LookPath("sh")
	for _, tc := range []struct{ name, script, want string }{
		{"ok", `echo "$@" > "$0.args"; echo OK`, ""},
		{"FAIL", `echo FAIL`, "network: wpa_cli -i wlan0 reconfigure: it answered FAIL: FAIL"},
		{"exit", `echo "Failed to connect to non-global ctrl_ifname: wlan0  error: No such file or directory"; exit 255`,
			"network: wpa_cli -i wlan0 reconfigure: exit status 255: Failed to connect to non-global ctrl_ifname: wlan0  error: No such file or directory"},
		{"silent", `exit 1`, "network: wpa_cli -i wlan0 reconfigure: exit status 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "wpa_cli"), []byte("#!"+sh+"\n"+tc.script+"\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			t.Setenv("PATH", dir)
			err := WPACLI("wlan0")(t.Context())
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got := read(t, filepath.Join(dir, "wpa_cli.args")); got != "-i wlan0 reconfigure\n" {
					t.Errorf("wpa_cli ran with %q", got)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Errorf("got %v, want %s", err, tc.want)
			}
		})
	}
	t.Setenv("PATH", t.TempDir())
	if err := WPACLI("wlan0")(t.Context()); err == nil || !strings.Contains(err.Error(), "network: wpa_cli -i wlan0 reconfigure: ") {
		t.Errorf("no wpa_cli: %v", err)
	}
}

func TestDecodeSSID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string
		ok   bool
	}{
		{`"Home"`, "Home", true},
		{`"a"b"`, `a"b`, true},
		{`"`, "", false},
		{`486f6d65`, "Home", true},
		{`486F6D65 # a comment`, "Home", true},
		{`P"tab\there\x41\101\\\""`, "tab\thereAA\\\"", true},
		{`zz`, "", false},
	} {
		got, ok := decodeSSID(tc.in)
		if string(got) != tc.want || ok != tc.ok {
			t.Errorf("decodeSSID(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}
