package update

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// installer is RAUC as the tests of this file need it: idle, on a box of
// version 1.0.0, reading every bundle as version and compat unless it
// refuses (info), installing at once.
type installer struct {
	info      error
	version   string
	installed int
}

func (f *installer) Status(context.Context) (System, error) {
	return System{Compatible: "hark-rpi4-64", Operation: "idle", BootSlot: "A",
		Slots: []Slot{{Name: "rootfs.0", BootName: "A", State: "booted", BundleVersion: "1.0.0"}}}, nil
}

func (f *installer) Info(context.Context, string) (BundleInfo, error) {
	if f.info != nil {
		return BundleInfo{}, f.info
	}
	return BundleInfo{Compatible: "hark-rpi4-64", Version: f.version}, nil
}

func (f *installer) Install(context.Context, string, func(Progress)) error {
	f.installed++
	return nil
}

// bundleFile is a file that stands for a bundle.
func bundleFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "b.raucb")
	os.WriteFile(p, []byte("bundle"), 0o600)
	return p
}

// TestSkipReason: each way an install the update timer tries can fail is
// said as a reason a person understands, with the detail that names it.
func TestSkipReason(t *testing.T) {
	gone := httptest.NewServer(http.NotFoundHandler())
	defer gone.Close()
	for _, tc := range []struct {
		name string
		a    *Agent
		src  string
		want string
	}{
		{"not newer", &Agent{RAUC: &installer{version: "0.9.0"}}, bundleFile(t), "it is not newer than the running version: "},
		{"not signed", &Agent{RAUC: &installer{info: errors.New("signature verification failed: no trusted key")}}, bundleFile(t), "RAUC did not accept it (is it signed with the box's key?): "},
		{"download failed", &Agent{RAUC: &installer{version: "2.0.0"}, Download: Downloader{Dir: t.TempDir(), Attempts: 1}}, gone.URL + "/hark-2.0.0.raucb", "the download failed: "},
	} {
		_, err := tc.a.Install(t.Context(), tc.src, nil)
		if got := Reason(err); err == nil || !strings.HasPrefix(got, tc.want) || !strings.Contains(got, err.Error()) {
			t.Errorf("%s: %v said as %q, want %q and the error", tc.name, err, got, tc.want)
		}
	}
	if got := Reason(ErrBusy); !strings.Contains(got, "busy") {
		t.Errorf("busy said as %q", got)
	}
}

// TestSkipIsKeptForThePage: why the update timer (its own process) left a
// version alone is kept in the download directory, where the daemon's
// service reads it for the page and the API; an install that succeeds
// afterwards makes it old news.
func TestSkipIsKeptForThePage(t *testing.T) {
	dir := t.TempDir()
	timer := NewService(&Agent{RAUC: &installer{version: "1.4.0"}, Download: Downloader{Dir: dir}})
	at := time.Date(2026, 3, 2, 4, 10, 0, 0, time.UTC)
	if err := timer.Skipped(at, "1.4.0", "the download failed: connection reset"); err != nil {
		t.Fatal(err)
	}
	daemon := NewService(&Agent{RAUC: &installer{version: "1.4.0"}, Download: Downloader{Dir: dir}})
	want := "2 Mar 04:10: 1.4.0 was not installed: the download failed: connection reset"
	if got := daemon.SkipSentence(time.UTC); got != want {
		t.Errorf("the daemon reads %q, want %q", got, want)
	}
	if _, err := daemon.Install(t.Context(), bundleFile(t), nil); err != nil {
		t.Fatal(err)
	}
	if got := daemon.SkipSentence(time.UTC); got != "" {
		t.Errorf("after an install: %q, want no skip", got)
	}
}

// TestDownloadDirIsLocked: two processes installing into one download
// directory (the update timer's hark update and the daemon's page) would
// remove each other's downloads; while one installs, the directory is
// locked (flock), and the other is refused at once with an error that
// names the directory.
func TestDownloadDirIsLocked(t *testing.T) {
	dir := t.TempDir()
	first := Downloader{Dir: dir}
	unlock, err := first.lock()
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("flock", "-n", dir, "true").CombinedOutput(); err == nil {
		t.Errorf("another process took the directory's lock while it was held (%s)", out)
	} else if _, ok := err.(*exec.ExitError); !ok {
		t.Logf("no flock(1) to try from another process: %v", err)
	}
	rauc := &installer{version: "1.4.0"}
	second := &Agent{RAUC: rauc, Download: Downloader{Dir: dir}}
	_, err = second.Install(t.Context(), bundleFile(t), nil)
	if !errors.Is(err, ErrBusy) || !strings.Contains(err.Error(), dir) || rauc.installed != 0 {
		t.Errorf("a second install into a locked directory: %v (installed %d), want busy, naming %s", err, rauc.installed, dir)
	}
	unlock()
	if _, err := second.Install(t.Context(), bundleFile(t), nil); err != nil || rauc.installed != 1 {
		t.Errorf("once unlocked: %v (installed %d), want it installed", err, rauc.installed)
	}
}
