package box

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/update"
	"github.com/harkbox/hark/device/update/rauctest"
)

// TestUpdatesThroughTheAPI: the daemon's updates resource, as the web page
// uses it, with RAUC's double: a check, an install whose progress reaches
// 100 % and then reboots when the speaker is idle, a rollback.
func TestUpdatesThroughTheAPI(t *testing.T) {
	r, bus := rauctest.Booted(t)
	bundle := []byte("hark-rpi4-64 1.3.0")
	h := sha256.Sum256(bundle)
	mux := http.NewServeMux()
	mux.HandleFunc("/hark/manifest.json", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"version":"1.3.0","url":"hark-1.3.0.raucb","size":%d,"sha256":"%s","compatible":"hark-rpi4-64"}`, len(bundle), hex.EncodeToString(h[:]))
	})
	mux.HandleFunc("/hark/hark-1.3.0.raucb", func(w http.ResponseWriter, _ *http.Request) { w.Write(bundle) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	cfg, _ := configure(t, fmt.Sprintf("board = \"usb\"\n[update]\nmanifest = %q\nrauc_bus = %q\n", srv.URL+"/hark/manifest.json", bus), nil)
	rebooted := make(chan struct{}, 2)
	u := newUpdates(cfg, "1.0.0", quietBox{}, slog.New(slog.DiscardHandler))
	u.reboot = func(context.Context) error { rebooted <- struct{}{}; return nil }
	defer u.close()
	api := updatesResource{u}
	// the update timer (hark update check --install) left 1.2.0 alone
	if err := update.NewService(&update.Agent{Download: update.Downloader{Dir: cfg.Update.Dir}}).Skipped(time.Now(), "1.2.0", "the download failed: connection reset"); err != nil {
		t.Fatal(err)
	}
	st, err := api.Check(t.Context())
	if err != nil || st.Offered != "1.3.0" || !st.Newer || len(st.Slots) != 2 || st.Other != "rootfs.1" {
		t.Fatalf("check: %+v %v", st, err)
	}
	if !strings.Contains(st.Skipped, "1.2.0 was not installed: the download failed: connection reset") {
		t.Errorf("status says %q of the update timer's skip, want why it left 1.2.0 alone", st.Skipped)
	}
	if err := api.Install(t.Context(), ""); err != nil {
		t.Fatal(err)
	}
	if err := api.Install(t.Context(), ""); err != nil && !errors.Is(err, control.ErrConflict) {
		t.Errorf("a second install at once: %v, want a conflict", err)
	}
	var last control.UpdateJob
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		st, _ = api.Status(t.Context())
		last = st.Job
		if !last.Running || time.Now().After(end) {
			break
		}
	}
	if last.Phase != "installed" || last.Percent != 100 || last.Version != "1.3.0" || len(r.Installed()) != 1 {
		t.Fatalf("install: %+v, RAUC installed %v", last, r.Installed())
	}
	select {
	case <-rebooted:
	case <-time.After(20 * time.Second):
		t.Fatal("no reboot into the update")
	}
	if st, _ := api.Status(t.Context()); !strings.Contains(st.Last, "installed 1.3.0") || st.Skipped != "" {
		t.Errorf("last result %q, skipped %q; want 1.3.0 installed, and no skip", st.Last, st.Skipped)
	}
	if err := api.Rollback(t.Context()); err != nil {
		t.Fatal(err)
	}
	if m := r.Marks(); len(m) != 1 || m[0] != "active rootfs.1" {
		t.Errorf("RAUC marks %v, want the other slot active", m)
	}
	// the simulation has no slots: a sentence says so
	sim := updatesResource{newUpdates(&config.Loaded{Config: config.Config{Board: "sim"}}, "1.0.0", quietBox{}, slog.New(slog.DiscardHandler))}
	if _, err := sim.Status(t.Context()); !errors.Is(err, control.ErrUnavailable) || !strings.Contains(err.Error(), "no A/B slots") {
		t.Errorf("updates in simulation: %v", err)
	}
}

// quietBox is a speaker that is idle and healthy.
type quietBox struct{}

func (quietBox) Status(context.Context) control.Status {
	return control.Status{State: "idle", Ready: true}
}
func (quietBox) WaitIdle(context.Context) error { return nil }
func (quietBox) SetUpdating(bool, int)          {}

// TestUploadedBundleIsRemoved: a bundle the page uploads is installed and
// then removed: the data partition has room for one bundle, not for every
// one the household ever installed.
func TestUploadedBundleIsRemoved(t *testing.T) {
	r, bus := rauctest.Booted(t)
	cfg, _ := configure(t, fmt.Sprintf("board = \"usb\"\n[update]\nrauc_bus = %q\n", bus), nil)
	rebooted := make(chan struct{}, 1)
	u := newUpdates(cfg, "1.0.0", quietBox{}, slog.New(slog.DiscardHandler))
	u.reboot = func(context.Context) error { rebooted <- struct{}{}; return nil }
	defer u.close()
	api := updatesResource{u}
	if err := api.Upload(t.Context(), strings.NewReader("hark-rpi4-64 1.3.0")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-rebooted:
	case <-time.After(20 * time.Second):
		t.Fatal("no reboot into the uploaded update")
	}
	if len(r.Installed()) != 1 {
		t.Fatalf("RAUC installed %v", r.Installed())
	}
	left, _ := filepath.Glob(filepath.Join(cfg.Update.Dir, "*.raucb*"))
	if len(left) != 0 {
		t.Errorf("after the install the update directory still holds %v", left)
	}
}

// stalled is an upload's body that sends some bytes and then waits for
// release, as a slow phone does.
type stalled struct {
	sent    bool
	waiting chan struct{}
	release chan struct{}
}

func (s *stalled) Read(b []byte) (int, error) {
	if !s.sent {
		s.sent = true
		return copy(b, "hark-rpi4-64 1.3.0"), nil
	}
	close(s.waiting)
	<-s.release
	return 0, errors.New("the phone went away")
}

// TestUploadsTakeTheDirectory: while one bundle uploads from the page, a
// second upload is refused with ErrBusy naming the update directory,
// before it writes a byte into it: both would write the same file.
func TestUploadsTakeTheDirectory(t *testing.T) {
	_, bus := rauctest.Booted(t)
	cfg, _ := configure(t, fmt.Sprintf("board = \"usb\"\n[update]\nrauc_bus = %q\n", bus), nil)
	u := newUpdates(cfg, "1.0.0", quietBox{}, slog.New(slog.DiscardHandler))
	u.reboot = func(context.Context) error { return nil }
	defer u.close()
	api := updatesResource{u}
	first := &stalled{waiting: make(chan struct{}), release: make(chan struct{})}
	firstDone := make(chan error, 1)
	go func() { firstDone <- api.Upload(t.Context(), first) }()
	<-first.waiting
	part := filepath.Join(cfg.Update.Dir, "uploaded.raucb.part")
	before, _ := os.ReadFile(part)
	err := api.Upload(t.Context(), strings.NewReader("hark-rpi4-64 1.4.0, bigger"))
	if !errors.Is(err, update.ErrBusy) || !errors.Is(err, control.ErrConflict) || !strings.Contains(err.Error(), cfg.Update.Dir) {
		t.Errorf("the second upload: %v, want ErrBusy (a conflict) naming %s", err, cfg.Update.Dir)
	}
	if after, _ := os.ReadFile(part); !bytes.Equal(after, before) {
		t.Errorf("the second upload wrote %q over the first's %q", after, before)
	}
	close(first.release)
	if err := <-firstDone; err == nil {
		t.Error("the first upload, cut off, was taken")
	}
	left, _ := filepath.Glob(filepath.Join(cfg.Update.Dir, "*.raucb*"))
	if len(left) != 0 {
		t.Errorf("after the uploads the update directory still holds %v", left)
	}
}
