package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/update"
	"github.com/harkbox/hark/device/update/rauctest"
)

func hark(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out output
	code := run(t.Context(), args, env{stdout: &out, stderr: &out, getenv: vars(map[string]string{"HOME": t.TempDir()})})
	return code, out.String()
}

func TestUpdateCommands(t *testing.T) {
	r, bus := rauctest.Booted(t)
	bundle := []byte("hark-rpi4-64 1.3.0")
	h := sha256.Sum256(bundle)
	var agent atomic.Value
	mux := http.NewServeMux()
	mux.HandleFunc("/hark/manifest.json", func(w http.ResponseWriter, r *http.Request) {
		agent.Store(r.UserAgent())
		fmt.Fprintf(w, `{"version":"1.3.0","url":"hark-1.3.0.raucb","size":%d,"sha256":"%s","compatible":"hark-rpi4-64"}`, len(bundle), hex.EncodeToString(h[:]))
	})
	mux.HandleFunc("/hark/hark-1.3.0.raucb", func(w http.ResponseWriter, _ *http.Request) { w.Write(bundle) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	data := t.TempDir()
	cfg := writeConfig(t, fmt.Sprintf("[update]\nmanifest = %q\nrauc_bus = %q\n", srv.URL+"/hark/manifest.json", bus))
	common := []string{"--config", cfg, "--data", data}

	code, out := hark(t, append([]string{"update", "check"}, common...)...)
	if code != 0 || !strings.Contains(out, "running  1.0.0") || !strings.Contains(out, "offered  1.3.0") || !strings.Contains(out, "an update is available") {
		t.Fatalf("check: %d\n%s", code, out)
	}
	if ua, _ := agent.Load().(string); ua != "hark/dev" {
		t.Errorf("User-Agent %q, want hark and its version", ua)
	}
	code, out = hark(t, append([]string{"update", "check", "--scheduled"}, common...)...)
	if code != 0 || !strings.Contains(out, "checked 0s ago") {
		t.Errorf("a scheduled check right after a check: %d\n%s", code, out)
	}

	code, out = hark(t, append([]string{"update", "install", "--no-reboot"}, common...)...)
	if code != 0 || !strings.Contains(out, "downloading 100%") || !strings.Contains(out, "installing 100% Installing done.") || !strings.Contains(out, "installed 1.3.0") {
		t.Fatalf("install: %d\n%s", code, out)
	}
	if got := r.Installed(); len(got) != 1 || filepath.Dir(got[0]) != filepath.Join(data, "updates") {
		t.Errorf("RAUC installed %v, want the bundle downloaded into the data directory", got)
	}

	older := rauctest.FakeBundle(t, "hark-rpi4-64", "0.9.0")
	code, out = hark(t, append(append([]string{"update", "install", "--no-reboot"}, common...), older)...)
	if code == 0 || !strings.Contains(out, "is version 0.9.0, the box runs 1.0.0") {
		t.Errorf("an older bundle: %d\n%s", code, out)
	}
	if len(r.Installed()) != 1 {
		t.Error("the older bundle was installed")
	}

	code, out = hark(t, append([]string{"update", "status"}, common...)...)
	for _, want := range []string{"compatible   hark-rpi4-64", "booted       A (rootfs.0)", "next boot    rootfs.1",
		"failed: update: ", "rootfs.0  A     booted    -            1.0.0", "rootfs.1  B     inactive  good         1.3.0"} {
		if !strings.Contains(out, want) {
			t.Errorf("status lacks %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("status exit %d", code)
	}

	code, out = hark(t, "update", "frobnicate")
	if code != 2 || !strings.Contains(out, `unknown step "frobnicate"`) {
		t.Errorf("bad step: %d %s", code, out)
	}
}

func TestUpdateWithoutRAUC(t *testing.T) {
	bus := rauctest.Bus(t)
	cfg := writeConfig(t, fmt.Sprintf("[update]\nrauc_bus = %q\n", bus))
	code, out := hark(t, "update", "status", "--config", cfg, "--data", t.TempDir())
	if code == 0 || !strings.Contains(out, "the RAUC service is not running") {
		t.Errorf("status without RAUC: %d %s", code, out)
	}
	code, out = hark(t, "update", "check", "--config", cfg, "--data", t.TempDir())
	if code == 0 || !strings.Contains(out, "no update server is configured") {
		t.Errorf("check without a server: %d %s", code, out)
	}
}

// The health check marks the slot good only when the running daemon is
// armed and its self-test passes.
func TestHealthMarksTheSlotGoodOnlyWhenHealthy(t *testing.T) {
	r, bus := rauctest.Booted(t)
	data := t.TempDir()
	cfg := writeConfig(t, fmt.Sprintf("[tts]\nengine = \"off\"\n[update]\nrauc_bus = %q\n", bus))
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": data}), "--sim", "--data", data, "--config", cfg)
	s.out.waitFor(t, "[leds] ○ idle", 1)

	code, out := hark(t, "health", "--mark-good", "--wait", "10s", "--config", cfg, "--data", data)
	if code != 0 || !strings.Contains(out, "ok   storage") || !strings.Contains(out, "marked slot rootfs.0 as good") {
		t.Fatalf("health of a running box: %d\n%s", code, out)
	}
	if got := r.Marks(); !slices.Equal(got, []string{"good rootfs.0"}) {
		t.Errorf("marks %v", got)
	}
	s.quit(t)

	// A box whose self-test fails: no mark.
	sock := filepath.Join(t.TempDir(), "control.sock")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go control.Serve(ctx, sock, control.Handler(control.API{Box: sickBox{}}), slog.New(slog.DiscardHandler))
	cfg2 := writeConfig(t, fmt.Sprintf("control_socket = %q\n[update]\nrauc_bus = %q\n", sock, bus))
	code, out = hark(t, "health", "--mark-good", "--wait", "10s", "--config", cfg2, "--data", data)
	if code == 0 || !strings.Contains(out, "FAIL speech-to-text") || !strings.Contains(out, "the slot is not marked good") {
		t.Errorf("health of a sick box: %d\n%s", code, out)
	}
	// Nobody answering: no mark either.
	cfg3 := writeConfig(t, fmt.Sprintf("control_socket = %q\n[update]\nrauc_bus = %q\n", filepath.Join(t.TempDir(), "none.sock"), bus))
	code, out = hark(t, "health", "--mark-good", "--wait", "1500ms", "--config", cfg3, "--data", data)
	if code == 0 || !strings.Contains(out, "hark is not running") {
		t.Errorf("health with no daemon: %d\n%s", code, out)
	}
	if got := r.Marks(); len(got) != 1 {
		t.Errorf("marks %v; an unhealthy box was marked", got)
	}
}

type sickBox struct{}

func (sickBox) Status(context.Context) control.Status {
	return control.Status{State: "idle", Ready: true, Checks: []control.Check{
		{Name: "storage", OK: true}, {Name: "speech-to-text", Detail: "model ggml-base.en.bin: truncated"}}}
}
func (sickBox) WaitIdle(context.Context) error { return nil }
func (sickBox) SetUpdating(bool, int)          {}

// After an update the kept settings no longer load (a typo in the
// hand-edited DATA/settings.toml, or a value the new image refuses): hark
// runs on the entries that load, but the boot check fails. It records why,
// for hark update status, as any failed check does, and a slot on trial
// reboots: an image that refuses the household's settings is rolled back.
func TestHealthRecordsAConfigurationThatDoesNotLoad(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "control.sock") // nothing answers
	cfg := writeConfig(t, fmt.Sprintf("control_socket = %q\n", sock))
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "settings.toml"), []byte("'audio.volume' = 'loud'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out := hark(t, "health", "--mark-good", "--wait", "1s", "--config", cfg, "--data", data)
	if code == 0 || !strings.Contains(out, "audio.volume") {
		t.Fatalf("health on settings that do not load: %d\n%s", code, out)
	}
	f, ok := (update.State{Dir: filepath.Join(data, "updates")}).LastFailedBoot()
	if !ok || !strings.Contains(f.Reason, "audio.volume") || !strings.Contains(f.Reason, "not marked good") {
		t.Errorf("recorded %+v, %v; want the failure, naming the setting\n%s", f, ok, out)
	}
}

// The boot check runs at every boot, not only after an update. On a boot
// whose slot passed its check before (not on trial), settings that do not
// all load are said, on stderr and in the daemon's settings check, but do
// not fail the check: they are the household's, not the image's. On a slot
// on trial the check stays strict, and fails, recorded.
func TestHealthOnSettingsThatDoNotLoadOutsideATrial(t *testing.T) {
	_, bus := rauctest.Booted(t)
	sock := filepath.Join(t.TempDir(), "control.sock")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	go control.Serve(ctx, sock, control.Handler(control.API{Box: settingsFaultBox{}}), slog.New(slog.DiscardHandler))
	cfg := writeConfig(t, fmt.Sprintf("control_socket = %q\n[update]\nrauc_bus = %q\n", sock, bus))
	data := t.TempDir()
	if err := os.WriteFile(filepath.Join(data, "settings.toml"), []byte("'audio.volume' = 'loud'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	state := update.State{Dir: filepath.Join(data, "updates")}

	// Slot A on trial (it never passed a check here): strict.
	code, out := hark(t, "health", "--mark-good", "--wait", "10s", "--config", cfg, "--data", data)
	if code == 0 || !strings.Contains(out, "audio.volume") || !strings.Contains(out, "not marked good") || !strings.Contains(out, "on trial") {
		t.Errorf("on trial: %d\n%s", code, out)
	}
	if _, ok := state.LastFailedBoot(); !ok {
		t.Errorf("on trial: no failed check recorded\n%s", out)
	}
	if err := os.RemoveAll(state.Dir); err != nil {
		t.Fatal(err)
	}

	// Slot A passed its check before: said, and the slot is marked good.
	r, err := update.DialRAUC(t.Context(), bus)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sys, err := r.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	booted, _ := sys.Booted()
	if err := state.Proven(booted, time.Now()); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr output
	code = run(t.Context(), []string{"health", "--mark-good", "--wait", "10s", "--config", cfg, "--data", data},
		env{stdout: &stdout, stderr: &stderr, getenv: vars(map[string]string{"HOME": t.TempDir()})})
	if code != 0 || !strings.Contains(stdout.String(), "FAIL settings") || !strings.Contains(stdout.String(), "marked slot rootfs.0 as good") {
		t.Errorf("not on trial: %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "audio.volume") || !strings.Contains(stderr.String(), "not on trial") {
		t.Errorf("not on trial: stderr does not say what did not load, and why the check goes on:\n%s", stderr.String())
	}
	if f, ok := state.LastFailedBoot(); ok {
		t.Errorf("not on trial: a failed check was recorded: %+v", f)
	}
}

// settingsFaultBox is a box whose household's settings did not all load:
// its settings check, on the data partition, fails.
type settingsFaultBox struct{}

func (settingsFaultBox) Status(context.Context) control.Status {
	return control.Status{State: "idle", Ready: true, Checks: []control.Check{
		{Name: "storage", OK: true}, {Name: "settings", Data: true, Detail: "settings.toml:1: audio.volume: \"loud\" is not a whole number"}}}
}
func (settingsFaultBox) WaitIdle(context.Context) error { return nil }
func (settingsFaultBox) SetUpdating(bool, int)          {}

// A factory reset that a power cut stopped halfway is finished when the
// box starts again: nothing the household said is left behind.
func TestFactoryResetCutShortIsFinishedAtStart(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".factory-reset"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "settings.toml"), []byte("'audio.volume' = '35'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "[tts]\nengine = \"off\"\n")
	s := startRun(t, vars(map[string]string{"OLLAMA_HOST": deadPort(t), "HOME": dir}), "--sim", "--data", dir, "--config", cfg)
	s.out.waitFor(t, "[leds] ○ idle", 1)
	for _, name := range []string{"settings.toml", ".factory-reset"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s is still there after the start", name)
		}
	}
	s.quit(t)
}

// TestUpdateTimerSaysWhyItSkipped: when the update timer's check
// (--install) leaves an offered version alone, or its install fails, the
// reason is kept for the daemon's page and API; what the command prints
// stays as it was.
func TestUpdateTimerSaysWhyItSkipped(t *testing.T) {
	_, bus := rauctest.Booted(t)
	offer := atomic.Value{}
	offer.Store("1.3.0")
	mux := http.NewServeMux()
	mux.HandleFunc("/hark/manifest.json", func(w http.ResponseWriter, r *http.Request) {
		v := offer.Load().(string)
		fmt.Fprintf(w, `{"version":%q,"url":"hark-%s.raucb","size":10,"sha256":"%s","compatible":"hark-rpi4-64"}`, v, v, strings.Repeat("ab", 32))
	})
	srv := httptest.NewServer(mux) // no bundle: every download fails
	defer srv.Close()
	data := t.TempDir()
	cfg := writeConfig(t, fmt.Sprintf("[update]\nmanifest = %q\nrauc_bus = %q\n", srv.URL+"/hark/manifest.json", bus))
	common := []string{"--config", cfg, "--data", data}
	skipped := func() string {
		return update.NewService(&update.Agent{Download: update.Downloader{Dir: filepath.Join(data, "updates")}}).SkipSentence(time.UTC)
	}

	code, out := hark(t, append([]string{"update", "check", "--install"}, common...)...)
	if code == 0 || !strings.Contains(skipped(), "1.3.0 was not installed: the download failed: ") {
		t.Errorf("a download that fails: %d, kept %q\n%s", code, skipped(), out)
	}

	offer.Store("0.9.0")
	code, out = hark(t, append([]string{"update", "check", "--install"}, common...)...)
	if code != 0 || !strings.HasSuffix(out, "the box is up to date\n") || !strings.Contains(skipped(), "0.9.0 was not installed: it is not newer than the running version 1.0.0") {
		t.Errorf("an older version offered: %d, kept %q\n%s", code, skipped(), out)
	}
}
