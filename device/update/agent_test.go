package update_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harkbox/hark/device/update"
	"github.com/harkbox/hark/device/update/rauctest"
)

// rig is the agent talking D-Bus to the RAUC double on a private bus.
type rig struct {
	rauc   *rauctest.RAUC
	client *update.RAUC
	agent  *update.Agent
}

var fakeBundles = rauctest.FakeCheck

func fakeBundle(t *testing.T, compat, version string) string {
	return rauctest.FakeBundle(t, compat, version)
}

func newRig(t *testing.T, check func(string) (string, string, error), opts ...func(*rauctest.RAUC)) *rig {
	addr := rauctest.Bus(t)
	r := &rauctest.RAUC{
		Compatible: "hark-rpi4-64",
		BootSlot:   "A",
		Slots: []rauctest.Slot{
			{Name: "rootfs.0", BootName: "A", State: "booted", BundleVersion: "1.0.0", Status: "ok"},
			{Name: "rootfs.1", BootName: "B", State: "inactive"},
		},
		Check: check,
	}
	for _, o := range opts {
		o(r) // before Start: the double's goroutines read these
	}
	r.Start(t, addr)
	c, err := update.DialRAUC(t.Context(), addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rig{rauc: r, client: c, agent: &update.Agent{RAUC: c, Running: "0.0.1", Download: update.Downloader{Dir: t.TempDir()}}}
}

func TestStatusReadsBothSlots(t *testing.T) {
	g := newRig(t, fakeBundles)
	s, err := g.client.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if s.Compatible != "hark-rpi4-64" || s.BootSlot != "A" || s.Operation != "idle" || s.Primary != "rootfs.1" || len(s.Slots) != 2 {
		t.Fatalf("status %+v", s)
	}
	b, ok := s.Booted()
	if !ok || b.Name != "rootfs.0" || b.BundleVersion != "1.0.0" || b.Device != "/dev/mmcblk0p2" {
		t.Errorf("booted slot %+v", b)
	}
}

func TestInstallReportsProgress(t *testing.T) {
	g := newRig(t, fakeBundles)
	var seen []update.Progress
	res, err := g.agent.Install(t.Context(), fakeBundle(t, "hark-rpi4-64", "1.1.0"), func(p update.Progress) { seen = append(seen, p) })
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != "1.1.0" || len(g.rauc.Installed()) != 1 {
		t.Fatalf("result %+v, installed %v", res, g.rauc.Installed())
	}
	var pcts []int
	for _, p := range seen {
		if p.Stage != "install" {
			t.Fatalf("progress %+v: want the install stage", p)
		}
		pcts = append(pcts, p.Percent)
	}
	if !slices.IsSorted(pcts) || len(pcts) < 4 || pcts[len(pcts)-1] != 100 || !strings.Contains(seen[len(seen)-1].Message, "done") {
		t.Errorf("progress %v: want RAUC's steps rising to 100 %% and done", seen)
	}
	s, _ := g.client.Status(t.Context())
	if s.Slots[1].BundleVersion != "1.1.0" || s.Primary != "rootfs.1" || s.Operation != "idle" {
		t.Errorf("after install: %+v", s)
	}
}

func TestInstallFailureIsReported(t *testing.T) {
	g := newRig(t, fakeBundles, func(r *rauctest.RAUC) { r.Fail = "Failed updating slot rootfs.1: No space left on device" })
	_, err := g.agent.Install(t.Context(), fakeBundle(t, "hark-rpi4-64", "1.1.0"), nil)
	if err == nil || !strings.Contains(err.Error(), "No space left on device") {
		t.Fatalf("error %v, want RAUC's LastError", err)
	}
	if len(g.rauc.Installed()) != 0 {
		t.Error("a failed install counted as installed")
	}
	s, _ := g.client.Status(t.Context())
	if s.LastError == "" || s.Slots[1].BundleVersion != "" {
		t.Errorf("after failure: %+v", s)
	}
}

func TestInstallRefusals(t *testing.T) {
	g := newRig(t, fakeBundles)
	garbage := filepath.Join(t.TempDir(), "garbage.raucb")
	os.WriteFile(garbage, []byte("not a bundle at all"), 0o644)
	for _, c := range []struct {
		name, bundle string
		want         error
		says         string
	}{
		{"older", fakeBundle(t, "hark-rpi4-64", "0.9.0"), update.ErrNotNewer, "version 0.9.0, the box runs 1.0.0"},
		{"same", fakeBundle(t, "hark-rpi4-64", "1.0.0"), update.ErrNotNewer, "the box runs 1.0.0"},
		{"other board", fakeBundle(t, "hark-rpi5", "2.0.0"), update.ErrIncompatible, `is for "hark-rpi5"`},
		{"unsigned", garbage, nil, "signature verification failed"},
		{"missing", filepath.Join(t.TempDir(), "nope.raucb"), nil, "no such file"},
	} {
		_, err := g.agent.Install(t.Context(), c.bundle, nil)
		if err == nil || (c.want != nil && !errors.Is(err, c.want)) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: error %v, want %v saying %q", c.name, err, c.want, c.says)
		}
	}
	if got := g.rauc.Installed(); len(got) != 0 {
		t.Errorf("installed %v; every bundle should have been refused", got)
	}
}

func TestInstallRefusedWhileBusy(t *testing.T) {
	hold := make(chan struct{})
	g := newRig(t, fakeBundles, func(r *rauctest.RAUC) { r.Hold = hold })
	done := make(chan error, 1)
	go func() {
		_, err := g.agent.Install(t.Context(), fakeBundle(t, "hark-rpi4-64", "1.1.0"), nil)
		done <- err
	}()
	<-g.rauc.Started()
	// The same agent, asked again.
	if _, err := g.agent.Install(t.Context(), fakeBundle(t, "hark-rpi4-64", "1.2.0"), nil); !errors.Is(err, update.ErrBusy) {
		t.Errorf("second install on the same agent: %v, want ErrBusy", err)
	}
	// Another process's agent: RAUC itself is busy.
	other := &update.Agent{RAUC: g.client, Running: "0.0.1", Download: update.Downloader{Dir: t.TempDir()}}
	_, err := other.Install(t.Context(), fakeBundle(t, "hark-rpi4-64", "1.2.0"), nil)
	if !errors.Is(err, update.ErrBusy) || !strings.Contains(err.Error(), "installing") {
		t.Errorf("install while RAUC installs: %v, want ErrBusy", err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := g.rauc.Installed(); len(got) != 1 || !strings.HasSuffix(got[0], "hark-1.1.0.raucb") {
		t.Errorf("installed %v, want only the first bundle", got)
	}
}

func TestRebootWaitsUntilIdle(t *testing.T) {
	g := newRig(t, fakeBundles)
	idle := make(chan struct{})
	asked := make(chan struct{})
	var reboots atomic.Int32
	g.agent.Idle = func(ctx context.Context) error {
		close(asked)
		select {
		case <-idle:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	g.agent.Reboot = func(context.Context) error { reboots.Add(1); return nil }
	if _, err := g.agent.Install(t.Context(), fakeBundle(t, "hark-rpi4-64", "1.1.0"), nil); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- g.agent.RebootWhenIdle(t.Context()) }()
	<-asked
	if reboots.Load() != 0 {
		t.Fatal("rebooted before the speaker was idle")
	}
	close(idle)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if reboots.Load() != 1 {
		t.Errorf("%d reboots once idle, want 1", reboots.Load())
	}

	// Cancelled while waiting (the box was switched off, or the user said
	// not now): no reboot.
	g.agent.Idle = func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Millisecond)
	defer cancel()
	if err := g.agent.RebootWhenIdle(ctx); err == nil || reboots.Load() != 1 {
		t.Errorf("cancelled wait: %v, %d reboots", err, reboots.Load())
	}
}

func TestInstallFromTheUpdateServer(t *testing.T) {
	g := newRig(t, fakeBundles)
	bundle := []byte("hark-rpi4-64 1.3.0")
	h := sha256.Sum256(bundle)
	var bundleGets atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/hark/manifest.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"version":"1.3.0","url":"hark-1.3.0.raucb","size":%d,"sha256":"%s","compatible":"hark-rpi4-64"}`, len(bundle), hex.EncodeToString(h[:]))
	})
	mux.HandleFunc("/hark/hark-1.3.0.raucb", func(w http.ResponseWriter, r *http.Request) {
		bundleGets.Add(1)
		w.Write(bundle)
	})
	srv := httptest.NewServer(mux)
	defer srv.Close()
	g.agent.Manifest = srv.URL + "/hark/manifest.json"
	g.agent.Download.HTTP = srv.Client()

	c, err := g.agent.Check(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !c.Newer || c.Current != "1.0.0" || c.Available.Version != "1.3.0" {
		t.Fatalf("check %+v, want 1.3.0 offered over 1.0.0", c)
	}
	var stages []string
	res, err := g.agent.Install(t.Context(), "", func(p update.Progress) {
		if len(stages) == 0 || stages[len(stages)-1] != p.Stage {
			stages = append(stages, p.Stage)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Version != "1.3.0" || bundleGets.Load() != 1 || !slices.Equal(stages, []string{"download", "install"}) {
		t.Errorf("result %+v, %d downloads, stages %v", res, bundleGets.Load(), stages)
	}

	// The server now offers what runs: nothing to do.
	g.rauc.SetBundleVersion("rootfs.0", "1.3.0")
	if c, err := g.agent.Check(t.Context()); err != nil || c.Newer {
		t.Errorf("check against the same version: %+v, %v", c, err)
	}
	if _, err := g.agent.Install(t.Context(), "", nil); !errors.Is(err, update.ErrNotNewer) {
		t.Errorf("install of the same version: %v, want ErrNotNewer", err)
	}
}

func TestNoRAUCService(t *testing.T) {
	addr := rauctest.Bus(t)
	c, err := update.DialRAUC(t.Context(), addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Status(t.Context()); err == nil || !strings.Contains(err.Error(), "RAUC service is not running") {
		t.Errorf("status without RAUC: %v", err)
	}
}

// updateServer offers, in its manifest, whichever version offer holds,
// and serves that version's bundle.
func updateServer(t *testing.T, offer *atomic.Value) *httptest.Server {
	bundle := func(v string) []byte { return []byte("hark-rpi4-64 " + v) }
	mux := http.NewServeMux()
	mux.HandleFunc("/hark/manifest.json", func(w http.ResponseWriter, _ *http.Request) {
		v := offer.Load().(string)
		sum := sha256.Sum256(bundle(v))
		fmt.Fprintf(w, `{"version":%q,"url":"hark-%s.raucb","size":%d,"sha256":"%s","compatible":"hark-rpi4-64"}`, v, v, len(bundle(v)), hex.EncodeToString(sum[:]))
	})
	mux.HandleFunc("/hark/", func(w http.ResponseWriter, r *http.Request) {
		v, ok := strings.CutPrefix(r.URL.Path, "/hark/hark-")
		v, ok2 := strings.CutSuffix(v, ".raucb")
		if !ok || !ok2 {
			http.NotFound(w, r)
			return
		}
		w.Write(bundle(v))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	return n
}

// A bundle is removed once RAUC has written it into a slot, with what
// other versions left: the data partition (512 MiB) has no room for a
// second bundle of a few hundred MB beside the next, and a box that kept
// them stopped updating after its second update. What is not a bundle
// the agent downloaded stays.
func TestInstallRemovesTheDownloadedBundles(t *testing.T) {
	g := newRig(t, fakeBundles)
	var offer atomic.Value
	srv := updateServer(t, &offer)
	g.agent.Manifest = srv.URL + "/hark/manifest.json"
	dir := g.agent.Download.Dir
	for _, name := range []string{"hark-1.2.0.raucb.part", "hark-download.raucb", "uploaded.raucb", "last-result.json"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("hark-rpi4-64 1.2.0"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, v := range []string{"1.3.0", "1.4.0"} {
		offer.Store(v)
		if _, err := g.agent.Install(t.Context(), "", nil); err != nil {
			t.Fatalf("install %s: %v", v, err)
		}
		if got, want := names(t, dir), []string{"last-result.json", "uploaded.raucb"}; !slices.Equal(got, want) {
			t.Errorf("after installing %s the download directory holds %q, want %q", v, got, want)
		}
	}
	if got := g.rauc.Installed(); len(got) != 2 || filepath.Base(got[1]) != "hark-1.4.0.raucb" {
		t.Errorf("RAUC installed %v", got)
	}

	// A bundle file given by hand, elsewhere, is the user's.
	own := fakeBundle(t, "hark-rpi4-64", "1.5.0")
	if _, err := g.agent.Install(t.Context(), own, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(own); err != nil {
		t.Errorf("the bundle given by hand: %v; want it left where it was", err)
	}
}

// A bundle RAUC failed to install stays, so that trying again does not
// download it again.
func TestInstallThatFailsKeepsTheBundle(t *testing.T) {
	g := newRig(t, fakeBundles, func(r *rauctest.RAUC) { r.Fail = "Failed updating slot rootfs.1: No space left on device" })
	var offer atomic.Value
	offer.Store("1.3.0")
	g.agent.Manifest = updateServer(t, &offer).URL + "/hark/manifest.json"
	if _, err := g.agent.Install(t.Context(), "", nil); err == nil {
		t.Fatal("the install succeeded; want RAUC's failure")
	}
	if got, want := names(t, g.agent.Download.Dir), []string{"hark-1.3.0.raucb"}; !slices.Equal(got, want) {
		t.Errorf("after a failed install the download directory holds %q, want %q", got, want)
	}
}

// An update whose hark fails its boot check is rolled back by the boot
// loader, and the failure recorded. The update timer must not install
// that version again: it would fail the same boots every day until the
// server offers another. A newer version installs as usual, and the user
// may still install the failed one by hand.
func TestCheckTellsOfAVersionThatFailedItsBootCheck(t *testing.T) {
	failed := update.BootCheck{Time: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC), Slot: "B", Version: "1.1.0",
		Reason: "speech-to-text: model ggml-base.en.bin: truncated; the slot is not marked good"}
	for _, c := range []struct {
		name, offered string
		failed        *update.BootCheck
		skip          string // "" for an offer the timer installs
	}{
		{"the failed version", "1.1.0", &failed,
			"1.1.0 failed its boot check on this box on 24 Nov 2026 09:00 UTC: speech-to-text: model ggml-base.en.bin: truncated; the slot is not marked good; skipping it until another version is offered"},
		{"the failed version, written otherwise", "v1.1", &failed,
			"v1.1 failed its boot check on this box on 24 Nov 2026 09:00 UTC: speech-to-text: model ggml-base.en.bin: truncated; the slot is not marked good; skipping it until another version is offered"},
		{"a newer version", "1.2.0", &failed, ""},
		{"no failed check", "1.1.0", nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newRig(t, fakeBundles)
			var offer atomic.Value
			offer.Store(c.offered)
			g.agent.Manifest = updateServer(t, &offer).URL + "/hark/manifest.json"
			svc := update.NewService(g.agent)
			if c.failed != nil {
				if err := svc.State().FailedBoot(*c.failed); err != nil {
					t.Fatal(err)
				}
			}

			// The timer's run, as hark update check --install does it.
			ch, err := svc.Check(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if !ch.Newer {
				t.Fatalf("check %+v: want %s offered as newer than 1.0.0", ch, c.offered)
			}
			skip := ch.Skip(time.UTC)
			if skip != c.skip {
				t.Errorf("skip %q, want %q", skip, c.skip)
			}
			if skip == "" {
				if _, err := svc.Install(t.Context(), "", nil); err != nil {
					t.Fatal(err)
				}
			}
			wantInstalled := 0
			if c.skip == "" {
				wantInstalled = 1
			}
			if got := g.rauc.Installed(); len(got) != wantInstalled {
				t.Errorf("the timer installed %v, want %d bundles", got, wantInstalled)
			}
			if c.skip == "" {
				return
			}
			// Asked for by hand, it installs.
			if res, err := svc.Install(t.Context(), "", nil); err != nil || res.Version != c.offered || len(g.rauc.Installed()) != 1 {
				t.Errorf("install by hand: %+v, %v, installed %v; want %s installed", res, err, g.rauc.Installed(), c.offered)
			}
		})
	}
}

// TestUploadRefusedWhileInstalling: an upload while an install runs out
// of the download directory is refused with ErrBusy naming the
// directory, before a byte is written into it; once the install is over
// an upload is kept, installed and removed.
func TestUploadRefusedWhileInstalling(t *testing.T) {
	hold := make(chan struct{})
	g := newRig(t, fakeBundles, func(r *rauctest.RAUC) { r.Hold = hold })
	svc := update.NewService(g.agent)
	dir := g.agent.Download.Dir
	done := make(chan error, 1)
	if err := svc.Start(fakeBundle(t, "hark-rpi4-64", "1.1.0"), nil, func(_ update.Result, err error) { done <- err }); err != nil {
		t.Fatal(err)
	}
	<-g.rauc.Started()
	wrote := false
	err := svc.Upload("uploaded.raucb", func(f *os.File) error { wrote = true; return nil }, nil, nil)
	if !errors.Is(err, update.ErrBusy) || !strings.Contains(err.Error(), dir) {
		t.Errorf("an upload while installing: %v, want ErrBusy naming %s", err, dir)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "uploaded*")); wrote || len(left) != 0 {
		t.Errorf("the refused upload wrote: %v", left)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	g.agent.AllowDowngrade = true
	err = svc.Upload("uploaded.raucb", func(f *os.File) error {
		_, err := f.WriteString("hark-rpi4-64 1.2.0")
		return err
	}, nil, func(_ update.Result, err error) { done <- err })
	if err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := g.rauc.Installed(); len(got) != 2 {
		t.Errorf("installed %v, want the upload after the first", got)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "*.raucb*")); len(left) != 0 {
		t.Errorf("after the upload's install the directory holds %v", left)
	}
}
