package update

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

// Installer is what the agent needs of RAUC; *RAUC is the real one.
type Installer interface {
	Status(ctx context.Context) (System, error)
	Info(ctx context.Context, bundle string) (BundleInfo, error)
	Install(ctx context.Context, bundle string, progress func(Progress)) error
}

// The agent's refusals. Each leaves the box as it was.
var (
	ErrBusy         = errors.New("update: an update is already being installed")
	ErrNotNewer     = errors.New("update: the bundle is not newer than the running system")
	ErrIncompatible = errors.New("update: the bundle is for another kind of box")
	ErrNoServer     = errors.New("update: no update server is configured (set [update] manifest)")
)

// Agent checks for, downloads and installs updates.
type Agent struct {
	// Manifest is the update server's manifest URL.
	Manifest string
	Download Downloader
	RAUC     Installer
	// Running is the version of the running firmware, used when RAUC has
	// no bundle version for the booted slot (an image flashed by hand).
	Running string
	// AllowDowngrade installs a bundle that is not newer (asked for by
	// hand, never by the timer).
	AllowDowngrade bool
	// Idle returns once the speaker is idle (no conversation, no timer
	// ringing); nil means there is nothing to wait for.
	Idle func(ctx context.Context) error
	// Reboot restarts the box into the new slot.
	Reboot func(ctx context.Context) error
	// Explain, when set, says why RAUC refused to read a bundle (see
	// ExplainWithCLI).
	Explain func(ctx context.Context, bundle string) string
	Log     *slog.Logger

	mu   sync.Mutex
	busy bool
}

// Check is what the update server offers against what runs.
type Check struct {
	Current   string
	Available Manifest
	// Newer reports that the offered version is newer than what runs.
	Newer bool
	// Failed is the boot check the offered version failed on this box,
	// when it did: RAUC wrote it into a slot, its hark failed there and
	// the board went back. Only Service.Check fills it in. See Skip.
	Failed *BootCheck
}

// Skip says why an update installed without asking (the update timer's
// hark update check --install) leaves this offer alone: the offered
// version failed its boot check on this box, and installing it again
// would only go through the same failing boots, every day, until the
// server offers another version. It is "" when the offer may be
// installed; loc is the zone the failure's time is told in. An install
// asked for by hand (hark update install, the web page) does not ask.
func (c Check) Skip(loc *time.Location) string {
	if !c.Newer || c.Failed == nil {
		return ""
	}
	return fmt.Sprintf("%s failed its boot check on this box on %s: %s; skipping it until another version is offered",
		c.Available.Version, c.Failed.Time.In(loc).Format("2 Jan 2006 15:04 MST"), c.Failed.Reason)
}

// Result is an installed update.
type Result struct {
	Version string
	Bundle  string
}

// Current is the running system's version: the booted slot's bundle
// version, else the running firmware's.
func (a *Agent) current(s System) string {
	if b, ok := s.Booted(); ok && b.BundleVersion != "" {
		return b.BundleVersion
	}
	return a.Running
}

// Check asks the update server what it offers.
func (a *Agent) Check(ctx context.Context) (Check, error) {
	if a.Manifest == "" {
		return Check{}, ErrNoServer
	}
	sys, err := a.RAUC.Status(ctx)
	if err != nil {
		return Check{}, err
	}
	m, err := FetchManifest(ctx, a.client(), a.Manifest)
	if err != nil {
		return Check{}, err
	}
	c := Check{Current: a.current(sys), Available: m}
	if err := fits(m, sys); err != nil {
		return c, fmt.Errorf("update check: %w", err)
	}
	c.Newer = newer(m.Version, c.Current)
	return c, nil
}

// fits checks that what a manifest offers is for this kind of box.
func fits(m Manifest, sys System) error {
	if m.Compatible != "" && sys.Compatible != "" && m.Compatible != sys.Compatible {
		return fmt.Errorf("the server offers %q, this box is %q: %w", m.Compatible, sys.Compatible, ErrIncompatible)
	}
	return nil
}

// sameVersion reports whether a and b name one release ("v1.1" is
// 1.1.0); names that are not release numbers must match exactly.
func sameVersion(a, b string) bool {
	va, erra := ParseVersion(a)
	vb, errb := ParseVersion(b)
	if erra != nil || errb != nil {
		return a == b
	}
	return va.Compare(vb) == 0
}

// newer reports whether v is newer than cur; an unreadable current
// version (a development build) counts as older than any release.
func newer(v, cur string) bool {
	nv, err := ParseVersion(v)
	if err != nil {
		return false
	}
	cv, err := ParseVersion(cur)
	if err != nil {
		return true
	}
	return nv.Compare(cv) > 0
}

// Install installs an update: src is a bundle file, a bundle URL, a
// manifest URL (ending in .json), or empty for the configured server's
// manifest. It refuses while another install runs, and a bundle that RAUC
// will not verify, that is for another box, or that is not newer.
//
// Once RAUC has written the bundle into the other slot, the downloaded
// bundles and partial downloads in Download.Dir are removed, the
// installed one with them: the slot holds it now, and the data partition
// has no room to keep old bundles beside the next one. A bundle file
// given as src elsewhere, or named otherwise, stays. Download.Dir is
// locked meanwhile: another process installing into it is refused with
// ErrBusy.
func (a *Agent) Install(ctx context.Context, src string, progress func(Progress)) (Result, error) {
	return a.install(ctx, src, progress, false)
}

// install is Install; held tells that the caller holds Download.Dir's
// lock already (an upload into it), for the install too.
func (a *Agent) install(ctx context.Context, src string, progress func(Progress), held bool) (Result, error) {
	a.mu.Lock()
	if a.busy {
		a.mu.Unlock()
		return Result{}, ErrBusy
	}
	a.busy = true
	a.mu.Unlock()
	defer func() { a.mu.Lock(); a.busy = false; a.mu.Unlock() }()
	if progress == nil {
		progress = func(Progress) {}
	}
	if a.Download.Dir != "" && !held {
		unlock, err := a.Download.lock()
		if err != nil {
			return Result{}, err
		}
		defer unlock()
	}

	sys, err := a.RAUC.Status(ctx)
	if err != nil {
		return Result{}, err
	}
	if sys.Operation != "" && sys.Operation != "idle" {
		return Result{}, fmt.Errorf("update: RAUC is %s: %w", sys.Operation, ErrBusy)
	}
	cur := a.current(sys)
	bundle, err := a.fetch(ctx, src, sys, cur, progress)
	if err != nil {
		return Result{}, err
	}
	info, err := a.RAUC.Info(ctx, bundle)
	if err != nil {
		if a.Explain != nil {
			if why := a.Explain(ctx, bundle); why != "" {
				err = fmt.Errorf("%w: %s", err, why)
			}
		}
		return Result{}, mark(fmt.Errorf("update: %s: %w", bundle, err), ErrUnverified)
	}
	if sys.Compatible != "" && info.Compatible != sys.Compatible {
		return Result{}, fmt.Errorf("update: %s is for %q, this box is %q: %w", bundle, info.Compatible, sys.Compatible, ErrIncompatible)
	}
	if !a.AllowDowngrade && !newer(info.Version, cur) {
		return Result{}, fmt.Errorf("update: %s is version %s, the box runs %s: %w", bundle, info.Version, cur, ErrNotNewer)
	}
	a.log().Info("installing update", "bundle", bundle, "version", info.Version, "from", cur)
	if err := a.RAUC.Install(ctx, bundle, progress); err != nil {
		return Result{}, err
	}
	a.log().Info("update installed; it runs after the next reboot", "version", info.Version)
	if err := a.Download.prune(""); err != nil {
		a.log().Warn("could not remove the downloaded bundles", "dir", a.Download.Dir, "err", err)
	}
	return Result{Version: info.Version, Bundle: bundle}, nil
}

// fetch makes src a local bundle file.
func (a *Agent) fetch(ctx context.Context, src string, sys System, cur string, progress func(Progress)) (string, error) {
	u, err := url.Parse(src)
	isURL := err == nil && (u.Scheme == "http" || u.Scheme == "https")
	switch {
	case src == "" || (isURL && strings.HasSuffix(u.Path, ".json")):
		manifest := src
		if manifest == "" {
			if a.Manifest == "" {
				return "", ErrNoServer
			}
			manifest = a.Manifest
		}
		m, err := FetchManifest(ctx, a.client(), manifest)
		if err != nil {
			return "", err
		}
		if err := fits(m, sys); err != nil {
			return "", fmt.Errorf("update: %w", err)
		}
		if !a.AllowDowngrade && !newer(m.Version, cur) {
			return "", fmt.Errorf("update: the server offers %s, the box runs %s: %w", m.Version, cur, ErrNotNewer)
		}
		return a.download(ctx, m, progress)
	case isURL:
		return a.download(ctx, Manifest{Version: "download", URL: src}, progress)
	}
	st, err := os.Stat(src)
	if err != nil {
		return "", fmt.Errorf("update: %w", err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("update: %s is not a bundle file", src)
	}
	return src, nil
}

// download fetches m's bundle, its failure marked ErrDownload.
func (a *Agent) download(ctx context.Context, m Manifest, progress func(Progress)) (string, error) {
	b, err := a.Download.Fetch(ctx, m, progress)
	if err != nil {
		return "", mark(err, ErrDownload)
	}
	return b, nil
}

// RebootWhenIdle waits until the speaker is idle, then reboots.
func (a *Agent) RebootWhenIdle(ctx context.Context) error {
	if a.Idle != nil {
		a.log().Info("reboot waits until the speaker is idle")
		if err := a.Idle(ctx); err != nil {
			return fmt.Errorf("reboot: waiting for the speaker to be idle: %w", err)
		}
	}
	if a.Reboot == nil {
		return errors.New("reboot: no way to reboot configured")
	}
	a.log().Info("rebooting into the new version")
	return a.Reboot(ctx)
}

func (a *Agent) client() *http.Client {
	if a.Download.HTTP != nil {
		return a.Download.HTTP
	}
	return http.DefaultClient
}

func (a *Agent) log() *slog.Logger {
	if a.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return a.Log
}
