package box

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/update"
	"github.com/harkbox/hark/internal/disk"
)

// updates are the daemon's firmware updates: the update service over RAUC,
// dialled on first use, whose installs reboot the box when it is idle. A
// simulation has none.
type updates struct {
	cfg     *config.Loaded
	sim     bool
	reserve int64 // bytes a bundle must leave free
	version string
	box     control.Box // waited on for idle, told of the progress
	// reboot restarts the box into the new slot; nil is systemctl reboot
	// (a test's stand-in otherwise).
	reboot func(ctx context.Context) error
	log    *slog.Logger
	// loc is the household's zone now, for the last update's time.
	loc func() *time.Location

	mu   sync.Mutex
	svc  *update.Service
	rauc *update.RAUC
}

func newUpdates(cfg *config.Loaded, version string, box control.Box, log *slog.Logger) *updates {
	return &updates{cfg: cfg, sim: cfg.Board == "sim", reserve: int64(cfg.Storage.ReserveMiB) << 20,
		version: version, box: box, log: log, loc: func() *time.Location { return time.Local }}
}

// service dials RAUC once and returns the update service.
func (u *updates) service(ctx context.Context) (*update.Service, *update.RAUC, error) {
	if u.sim {
		return nil, nil, fmt.Errorf("%w: the simulation has no A/B slots to update; updates run on a board", control.ErrUnavailable)
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.svc != nil {
		return u.svc, u.rauc, nil
	}
	svc, r, err := UpdateService(ctx, u.cfg, u.version, u.box.WaitIdle, u.reboot, u.log)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", control.ErrUnavailable, err)
	}
	u.svc, u.rauc = svc, r
	return u.svc, u.rauc, nil
}

func (u *updates) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.rauc != nil {
		u.rauc.Close()
	}
}

// updatesResource is the firmware updates as the API serves them.
type updatesResource struct{ u *updates }

var _ control.Updates = updatesResource{}

func (r updatesResource) Status(ctx context.Context) (control.UpdateStatus, error) {
	st := control.UpdateStatus{Running: r.u.version}
	svc, rauc, err := r.u.service(ctx)
	if err != nil {
		return st, err
	}
	j := svc.Job()
	st.Job = control.UpdateJob{Running: j.Running, Phase: j.Phase, Percent: j.Percent, Version: j.Version, Error: j.Err}
	if c, ok := svc.Offered(); ok {
		st.Offered, st.Newer = c.Available.Version, c.Newer
	}
	st.Last = svc.LastSentence(r.u.loc())
	st.Skipped = svc.SkipSentence(r.u.loc())
	sys, err := rauc.Status(ctx)
	if err != nil {
		return st, fmt.Errorf("%w: %w", control.ErrUnavailable, err)
	}
	for _, sl := range sys.Slots {
		st.Slots = append(st.Slots, control.UpdateSlot{Name: sl.Name, State: sl.State, Version: sl.BundleVersion, Good: sl.BootStatus})
		if sl.BootName != "" && sl.State != "booted" {
			st.Other = sl.Name
		}
	}
	return st, nil
}

func (r updatesResource) Check(ctx context.Context) (control.UpdateStatus, error) {
	svc, _, err := r.u.service(ctx)
	if err != nil {
		return control.UpdateStatus{}, err
	}
	if _, err := svc.Check(ctx); err != nil {
		return control.UpdateStatus{}, fmt.Errorf("%w: %w", control.ErrUnavailable, err)
	}
	return r.Status(ctx)
}

// Install installs in the background, showing the progress on the LEDs,
// then reboots into it when the speaker is idle.
func (r updatesResource) Install(ctx context.Context, source string) error {
	return r.install(ctx, source, nil)
}

// install is Install, calling done (when not nil) once it is over.
func (r updatesResource) install(ctx context.Context, source string, done func()) error {
	svc, _, err := r.u.service(ctx)
	if err != nil {
		return err
	}
	progress, finish := r.watch(svc, done)
	if err := svc.Start(source, progress, finish); err != nil {
		return fmt.Errorf("%w: an update is being installed already", control.ErrConflict)
	}
	return nil
}

// watch is what an install tells: its progress on the LEDs, and at its
// end the result in the log and, installed, a reboot into it when the
// speaker is idle; done (when not nil) is called once it is over.
func (r updatesResource) watch(svc *update.Service, done func()) (func(update.Progress), func(update.Result, error)) {
	box, log := r.u.box, r.u.log
	progress := func(p update.Progress) { box.SetUpdating(true, p.Percent) }
	return progress, func(res update.Result, err error) {
		box.SetUpdating(false, 100)
		if done != nil {
			done()
		}
		if err != nil {
			log.Error("update failed", "err", err)
			return
		}
		log.Info("update installed; rebooting into it when the speaker is idle", "version", res.Version)
		if err := svc.Agent().Restart(context.Background(), update.RebootWhenIdle); err != nil {
			log.Error("no reboot into the update", "err", err)
		}
	}
}

// Upload keeps a bundle from the page in the update directory, refusing
// one that would fill the data partition past its reserve, and installs
// it. The directory is the upload's from before a byte is written until
// the install ends (see update.Service.Upload): another upload, or an
// install under way, makes it a conflict.
func (r updatesResource) Upload(ctx context.Context, body io.Reader) error {
	svc, _, err := r.u.service(ctx)
	if err != nil {
		return err
	}
	dir := r.u.cfg.Update.Dir
	write := func(f *os.File) error {
		sp, err := disk.Usage(dir)
		if err != nil {
			return err
		}
		room := sp.Free - r.u.reserve
		n, err := io.Copy(f, io.LimitReader(body, room+1))
		switch {
		case err != nil:
			return fmt.Errorf("%w: the bundle did not arrive whole: %w", control.ErrInvalid, err)
		case n > room:
			return fmt.Errorf("%w: the bundle does not fit: %s free above the reserve", control.ErrFull, disk.MiB(room))
		case n == 0:
			return fmt.Errorf("%w: the bundle file is empty", control.ErrInvalid)
		}
		return nil
	}
	progress, finish := r.watch(svc, nil)
	err = svc.Upload("uploaded.raucb", write, progress, finish)
	if errors.Is(err, update.ErrBusy) {
		return fmt.Errorf("%w: %w", control.ErrConflict, err)
	}
	return err
}

func (r updatesResource) Rollback(ctx context.Context) error {
	svc, rauc, err := r.u.service(ctx)
	if err != nil {
		return err
	}
	if _, err := rauc.Mark(ctx, "active", "other"); err != nil {
		return fmt.Errorf("%w: %w", control.ErrConflict, err)
	}
	r.u.log.Warn("rolling back to the other slot when the speaker is idle")
	go func() {
		if err := svc.Agent().Restart(context.Background(), update.RebootWhenIdle); err != nil {
			r.u.log.Error("no reboot into the other slot", "err", err)
		}
	}()
	return nil
}
