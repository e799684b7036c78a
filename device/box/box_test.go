package box

import (
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/sim"
	"github.com/harkbox/hark/device/update"
)

func TestWipe(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "replies"), 0o700)
	os.WriteFile(filepath.Join(dir, "000001.vlog"), []byte("x"), 0o600)
	if err := wipe(dir); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if _, err := os.Stat(dir); err != nil || len(entries) != 0 {
		t.Errorf("after the wipe: %v, %d entries", err, len(entries))
	}
}

// TestFactoryResetKeepsTheSlotRecords: a factory reset empties the data
// directory but keeps which slot passed its boot check on this box, or an
// update that fails its check after the reset would stay up, broken, with
// no slot to go back to.
func TestFactoryResetKeepsTheSlotRecords(t *testing.T) {
	data := t.TempDir()
	st := update.State{Dir: filepath.Join(data, "updates")}
	a := update.Slot{Name: "rootfs.0", Class: "rootfs", BootName: "A", State: "booted", BootStatus: "good", BundleVersion: "1.0.0", Installed: "2025-01-01T00:00:00Z"}
	if err := st.Proven(a, time.Now()); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(st.Dir, "hark-1.1.0.raucb"), []byte("bundle"), 0o644)
	os.WriteFile(filepath.Join(data, "000001.vlog"), []byte("x"), 0o600)
	os.WriteFile(filepath.Join(data, "settings.toml"), []byte("[audio]\nvolume = 3\n"), 0o600)

	if err := wipe(data, st.Slots()...); err != nil {
		t.Fatal(err)
	}
	var left []string
	filepath.WalkDir(data, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(data, p)
			left = append(left, rel)
		}
		return nil
	})
	if want := []string{filepath.Join("updates", "proven-slots.json")}; !slices.Equal(left, want) {
		t.Errorf("after the reset the data directory holds %v; want only %v", left, want)
	}
	// Slot B, on trial after an update, fails its check: back to A.
	b := update.Slot{Name: "rootfs.1", Class: "rootfs", BootName: "B", State: "booted", BootStatus: "good", BundleVersion: "1.1.0", Installed: "2025-02-01T00:00:00Z"}
	a.State = "inactive"
	if retry, why := st.Retry(update.System{BootSlot: "B", Slots: []update.Slot{a, b}}); !retry {
		t.Errorf("after a factory reset a failed update stays up: %s", why)
	}
}

// TestFactoryResetCutShortIsFinished: a power cut stops a factory reset
// halfway; the mark it left says so, and the next start finishes it.
func TestFactoryResetCutShortIsFinished(t *testing.T) {
	data := t.TempDir()
	cfg := &config.Loaded{Config: config.Config{DataDir: data}}
	cfg.Update.Dir = filepath.Join(data, "updates")
	if resetCutShort(cfg) {
		t.Fatal("a reset cut short in a data directory never reset")
	}
	os.WriteFile(filepath.Join(data, resetMark), nil, 0o600)
	os.WriteFile(filepath.Join(data, "000002.sst"), []byte("what the household said"), 0o600)
	if !resetCutShort(cfg) {
		t.Fatal("the mark of a reset cut short was not seen")
	}
	if err := factoryReset(cfg); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(data); len(entries) != 0 || resetCutShort(cfg) {
		t.Errorf("after the reset was finished: %v", entries)
	}
}

// TestSileroIsTheDefaultWhereItCanRun: with whisper.cpp built in and no
// model configured, the Silero model beside the whisper model (or in the
// image's shared directory) is used; a configured one always wins; a build
// without whisper.cpp has none.
func TestSileroIsTheDefaultWhereItCanRun(t *testing.T) {
	have := map[string]bool{"/models/" + SileroName: true, SileroDir + "/" + SileroName: true}
	exists := func(p string) bool { return have[p] }
	for _, tt := range []struct {
		configured, whisperModel string
		built                    bool
		want                     string
	}{
		{"", "/models/ggml-base.bin", true, "/models/" + SileroName},
		{"", "/elsewhere/ggml-base.bin", true, SileroDir + "/" + SileroName},
		{"/my/vad.bin", "/models/ggml-base.bin", true, "/my/vad.bin"},
		{"", "/models/ggml-base.bin", false, ""},
	} {
		if got := sileroModel(tt.configured, tt.whisperModel, tt.built, exists); got != tt.want {
			t.Errorf("sileroModel(%q, %q, %v) = %q, want %q", tt.configured, tt.whisperModel, tt.built, got, tt.want)
		}
	}
	delete(have, SileroDir+"/"+SileroName)
	if got := sileroModel("", "/elsewhere/ggml-base.bin", true, exists); got != "" {
		t.Errorf("no model anywhere: %q, want none (the energy detector)", got)
	}
}

// TestDataDirMustBePrivate: a data directory others may write in, or one
// another user made, is not used; a log that is a link is not followed.
func TestDataDirMustBePrivate(t *testing.T) {
	cfg, res := configure(t, "", map[string]string{"OLLAMA_HOST": "http://127.0.0.1:9"})
	os.Chmod(cfg.DataDir, 0o777)
	if b, err := Open(cfg, res, Options{}); err == nil || !strings.Contains(err.Error(), "chmod 700") {
		if b != nil {
			b.Close()
		}
		t.Errorf("a data directory anyone may write: %v", err)
	}
	os.Chmod(cfg.DataDir, 0o700)
	if os.Geteuid() == 0 {
		os.Chown(cfg.DataDir, 4321, 4321)
		if b, err := Open(cfg, res, Options{}); err == nil || !strings.Contains(err.Error(), "belongs to user 4321") {
			if b != nil {
				b.Close()
			}
			t.Errorf("another user's data directory: %v", err)
		}
		os.Chown(cfg.DataDir, 0, 0)
	}
	target := filepath.Join(t.TempDir(), "victim")
	os.Symlink(target, filepath.Join(cfg.DataDir, "hark.log"))
	cfg.Board = "sim"
	if _, _, err := daemonLogger(cfg, RunOptions{}, sim.NewScreen(io.Discard, false), control.NewLogTail(1), new(slog.LevelVar), nil); err == nil {
		t.Error("the log followed a link")
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the link's target was written: %v", err)
	}
}

// TestNameClaimedIsShown: when mDNS claims another name than the
// machine's (another box in the house has hark.local), the page answers
// to it, the box's status says it, and the log and the terminal give the
// page's new address.
func TestNameClaimedIsShown(t *testing.T) {
	var logged, shown strings.Builder
	var b Box
	ps := pageServing{cfg: config.Web{Listen: ":8080", TLS: "on", MDNS: true}, log: slog.New(slog.NewTextHandler(&logged, nil)),
		show: func(s string) { shown.WriteString(s + "\n") }, claimed: b.setHostName}
	if got := b.hostName(); got != hostLabel() {
		t.Errorf("before a name is claimed the box says %q, want %q", got, hostLabel())
	}
	var page toldPage
	ps.named(&page, "hark", 8080, nil)("hark-2")
	if got := b.hostName(); got != "hark-2" {
		t.Errorf("the box says %q, want hark-2", got)
	}
	if !slices.Equal(page.names, []string{"hark-2.local"}) {
		t.Errorf("the page answers to %v more, want hark-2.local", page.names)
	}
	if !strings.Contains(shown.String(), "https://hark-2.local:8080") || !strings.Contains(logged.String(), "https://hark-2.local:8080") {
		t.Errorf("the terminal shows %q, the log %q: neither has the new address", shown.String(), logged.String())
	}
}

// toldPage is a page told the names it answers to and its
// certificate's fingerprint.
type toldPage struct {
	names []string
	fp    string
}

func (p *toldPage) AddName(name string)      { p.names = append(p.names, name) }
func (p *toldPage) SetFingerprint(fp string) { p.fp = fp }

func TestPageURLs(t *testing.T) {
	for _, tc := range []struct {
		cfg  config.Web
		want []string
	}{
		{config.Web{Listen: "127.0.0.1:8080", TLS: "auto"}, []string{"http://127.0.0.1:8080"}},
		{config.Web{Listen: ":8080", TLS: "auto", MDNS: true}, []string{"https://hark-2.local:8080", "https://192.168.1.20:8080"}},
		{config.Web{Listen: ":8080", TLS: "off"}, []string{"http://192.168.1.20:8080"}},
		{config.Web{Listen: ""}, nil},
	} {
		if got := pageURLs(tc.cfg, "hark-2", []string{"192.168.1.20"}); !slices.Equal(got, tc.want) {
			t.Errorf("%+v: %v, want %v", tc.cfg, got, tc.want)
		}
	}
}
