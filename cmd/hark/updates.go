package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/update"
	"github.com/harkbox/hark/internal/disk"
)

// updatesAPI is the firmware updates as the daemon's API serves them: the
// same agent `hark update` uses, run by the daemon, with its progress kept
// for the page.
type updatesAPI struct {
	a   *app
	box control.Box
}

// updates is the daemon's install under way, or the last one.
type updates struct {
	mu      sync.Mutex
	agent   *update.Agent
	rauc    *update.RAUC
	job     control.UpdateJob
	offered string
	newer   bool
	// reboot restarts the box into the new slot; nil is systemctl
	// reboot (a test's stand-in otherwise).
	reboot func(ctx context.Context) error
}

// agent dials RAUC once and returns the update agent; a simulation has
// none.
func (u updatesAPI) agent(ctx context.Context) (*update.Agent, *update.RAUC, error) {
	cfg := u.a.cfg
	if cfg.Board == "sim" {
		return nil, nil, fmt.Errorf("%w: the simulation has no A/B slots to update; updates run on a board", control.ErrUnavailable)
	}
	s := &u.a.updates
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.agent != nil {
		return s.agent, s.rauc, nil
	}
	r, err := update.DialRAUC(ctx, cfg.Update.RAUCBus)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", control.ErrUnavailable, err)
	}
	s.rauc = r
	reboot := s.reboot
	if reboot == nil {
		reboot = systemReboot
	}
	s.agent = newAgent(cfg, r, u.box.WaitIdle, reboot, u.a.log)
	return s.agent, s.rauc, nil
}

func (u updatesAPI) Status(ctx context.Context) (control.UpdateStatus, error) {
	s := &u.a.updates
	s.mu.Lock()
	st := control.UpdateStatus{Running: version, Job: s.job, Offered: s.offered, Newer: s.newer}
	s.mu.Unlock()
	if last, ok := (update.State{Dir: u.a.cfg.Update.Dir}).Last(); ok {
		st.Last = fmt.Sprintf("%s: installed %s from %s", last.Time.Local().Format("2 Jan 15:04"), last.Version, last.Source)
		if last.Error != "" {
			st.Last = fmt.Sprintf("%s: failed: %s", last.Time.Local().Format("2 Jan 15:04"), last.Error)
		}
	}
	_, r, err := u.agent(ctx)
	if err != nil {
		return st, err
	}
	sys, err := r.Status(ctx)
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

func (u updatesAPI) Check(ctx context.Context) (control.UpdateStatus, error) {
	a, _, err := u.agent(ctx)
	if err != nil {
		return control.UpdateStatus{}, err
	}
	c, err := a.Check(ctx)
	if err != nil {
		return control.UpdateStatus{}, fmt.Errorf("%w: %w", control.ErrUnavailable, err)
	}
	if err := (update.State{Dir: u.a.cfg.Update.Dir}).Checked(time.Now()); err != nil {
		u.a.log.Warn("could not record the check", "err", err)
	}
	s := &u.a.updates
	s.mu.Lock()
	s.offered, s.newer = c.Available.Version, c.Newer
	s.mu.Unlock()
	return u.Status(ctx)
}

func (u updatesAPI) Install(ctx context.Context, source string) error {
	a, _, err := u.agent(ctx)
	if err != nil {
		return err
	}
	s := &u.a.updates
	s.mu.Lock()
	if s.job.Running {
		s.mu.Unlock()
		return fmt.Errorf("%w: an update is being installed already", control.ErrConflict)
	}
	s.job = control.UpdateJob{Running: true, Phase: "downloading"}
	s.mu.Unlock()
	go u.install(a, source)
	return nil
}

// install runs one install to its end, keeping its progress for the page
// and the LEDs, then reboots into it when the speaker is idle.
func (u updatesAPI) install(a *update.Agent, source string) {
	ctx := context.Background() // the install outlives the request that asked for it
	s := &u.a.updates
	res, err := a.Install(ctx, source, func(p update.Progress) {
		s.mu.Lock()
		s.job.Percent = p.Percent
		s.job.Phase = map[string]string{"download": "downloading", "install": "installing"}[p.Stage]
		s.mu.Unlock()
		u.box.SetUpdating(true, p.Percent)
	})
	u.box.SetUpdating(false, 100)
	rec := update.Record{Time: time.Now().UTC(), Source: cmpOr(source, u.a.cfg.Update.Manifest), Version: res.Version}
	s.mu.Lock()
	s.job.Running = false
	if err != nil {
		s.job.Phase, s.job.Error, rec.Error = "failed", err.Error(), err.Error()
	} else {
		s.job.Phase, s.job.Percent, s.job.Version = "installed", 100, res.Version
	}
	s.mu.Unlock()
	if err := (update.State{Dir: u.a.cfg.Update.Dir}).Keep(rec); err != nil {
		u.a.log.Warn("could not record the install", "err", err)
	}
	if err != nil {
		u.a.log.Error("update failed", "err", err)
		return
	}
	u.a.log.Info("update installed; rebooting into it when the speaker is idle", "version", res.Version)
	if err := a.Restart(ctx, update.RebootWhenIdle); err != nil {
		u.a.log.Error("no reboot into the update", "err", err)
	}
}

// Upload keeps a bundle from the page in the update directory, refusing
// one that would fill the data partition past its reserve, and installs
// it.
func (u updatesAPI) Upload(ctx context.Context, r io.Reader) error {
	if _, _, err := u.agent(ctx); err != nil {
		return err
	}
	dir := u.a.cfg.Update.Dir
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	path := filepath.Join(dir, "uploaded.raucb")
	f, err := os.Create(path + ".part")
	if err != nil {
		return err
	}
	defer os.Remove(path + ".part")
	sp, err := disk.Usage(dir)
	if err != nil {
		f.Close()
		return err
	}
	room := sp.Free - int64(u.a.cfg.Storage.ReserveMiB)<<20
	n, err := io.Copy(f, io.LimitReader(r, room+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	switch {
	case err != nil:
		return fmt.Errorf("%w: the bundle did not arrive whole: %w", control.ErrInvalid, err)
	case n > room:
		return fmt.Errorf("%w: the bundle does not fit: %s free above the reserve", control.ErrFull, disk.MiB(room))
	case n == 0:
		return fmt.Errorf("%w: the bundle file is empty", control.ErrInvalid)
	}
	if err := os.Rename(path+".part", path); err != nil {
		return err
	}
	return u.Install(ctx, path)
}

func (u updatesAPI) Rollback(ctx context.Context) error {
	a, r, err := u.agent(ctx)
	if err != nil {
		return err
	}
	if _, err := r.Mark(ctx, "active", "other"); err != nil {
		return fmt.Errorf("%w: %w", control.ErrConflict, err)
	}
	u.a.log.Warn("rolling back to the other slot when the speaker is idle")
	go func() {
		if err := a.Restart(context.Background(), update.RebootWhenIdle); err != nil {
			u.a.log.Error("no reboot into the other slot", "err", err)
		}
	}()
	return nil
}
