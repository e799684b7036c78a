package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"text/tabwriter"
	"time"

	"github.com/harkbox/hark/device/box"
	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/update"
)

// cmdUpdate is `hark update check | install URL-or-FILE | status`.
func cmdUpdate(ctx context.Context, e env, g *globals, args []string) error {
	step := ""
	if len(args) > 0 {
		step = args[0]
	}
	switch step {
	case "check":
		return boardOnly(updateCheck(ctx, e, g, args[1:]))
	case "install":
		return boardOnly(updateInstall(ctx, e, g, args[1:]))
	case "status":
		return boardOnly(updateStatus(ctx, e, g, args[1:]))
	}
	fs := flags("update", e, g)
	if err := parse(e, fs, args); err != nil {
		return err // -h
	}
	if step == "" {
		return usageError(e, fs, "which step: check, install or status?")
	}
	return usageError(e, fs, fmt.Sprintf("unknown step %q", step))
}

// boardOnly explains an error that comes from running a board's command on
// a machine without RAUC.
func boardOnly(err error) error {
	if errors.Is(err, update.ErrNoRAUC) {
		return fmt.Errorf("this needs a board running Hark's image, with RAUC for A/B updates; this machine has none (%w)", err)
	}
	return err
}

// updater is the update service wired to this box: RAUC on D-Bus, the
// download directory, the running daemon's idle state, systemd's reboot.
type updater struct {
	*update.Service
	rauc *update.RAUC
	ctl  *control.Client
	cfg  *config.Loaded
	log  *slog.Logger
}

func newUpdater(ctx context.Context, e env, g *globals) (*updater, error) {
	cfg, _, err := loadConfig(e, g)
	if err != nil {
		return nil, err
	}
	log := newLogger(e.stderr, cfg.Log.Level, slog.LevelWarn)
	ctl := control.Dial(cfg.ControlSocket)
	svc, r, err := box.UpdateService(ctx, cfg, version, ctl.WaitIdle, nil, log)
	if err != nil {
		ctl.Close()
		return nil, err
	}
	return &updater{Service: svc, rauc: r, ctl: ctl, cfg: cfg, log: log}, nil
}

func (u *updater) close() { u.rauc.Close(); u.ctl.Close() }

func updateCheck(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("update check", e, g)
	install := fs.Bool("install", false, "install an offered update, then reboot when the speaker is idle")
	scheduled := fs.Bool("scheduled", false, "run as the update timer: only when update.every has passed since the last check")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	u, err := newUpdater(ctx, e, g)
	if err != nil {
		return err
	}
	defer u.close()
	state := u.State()
	if *scheduled {
		every := u.cfg.Update.Every.Duration
		if every == 0 {
			fmt.Fprintln(e.stdout, "automatic update checks are off (update.every = 0)")
			return nil
		}
		if due, ago, next := state.Due(every, time.Now()); !due {
			fmt.Fprintf(e.stdout, "checked %s ago; the next check is due in %s\n", ago.Round(time.Minute), next.Round(time.Minute))
			return nil
		}
	}
	c, err := u.Check(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "running  %s\noffered  %s (%s, %s)\n", c.Current, c.Available.Version, update.MB(c.Available.Size), update.Shown(c.Available.URL))
	if !c.Newer {
		fmt.Fprintln(e.stdout, "the box is up to date")
		if *install {
			u.skipped(c.Available.Version, c.Older())
		}
		return nil
	}
	skip := c.Skip(boxZone(e, g))
	if !*install {
		fmt.Fprintln(e.stdout, "an update is available: hark update install")
		if skip != "" {
			fmt.Fprintf(e.stdout, "the update timer will not install it: %s\n", skip)
		}
		return nil
	}
	if skip != "" {
		fmt.Fprintf(e.stdout, "%s (hark update install installs it anyway)\n", skip)
		u.skipped(c.Available.Version, skip)
		return nil
	}
	return u.install(ctx, e, "", update.RebootWhenIdle, func(err error) {
		if ctx.Err() == nil {
			u.skipped(c.Available.Version, update.Reason(err))
		}
	})
}

// skipped keeps why an install with --install left version alone, for
// the daemon's updates page; "" keeps nothing.
func (u *updater) skipped(version, reason string) {
	if reason == "" {
		return
	}
	if err := u.Skipped(time.Now(), version, reason); err != nil {
		u.log.Warn("could not record why the update was not installed", "err", err)
	}
}

func updateInstall(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("update install", e, g)
	now := fs.Bool("now", false, "reboot as soon as it is installed, even mid-conversation")
	noReboot := fs.Bool("no-reboot", false, "install only; the new version runs after the next reboot")
	downgrade := fs.Bool("allow-downgrade", false, "install a bundle that is not newer than the running system")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return usageError(e, fs, "one bundle file or URL at most")
	}
	if *now && *noReboot {
		return usageError(e, fs, "--now and --no-reboot contradict each other")
	}
	u, err := newUpdater(ctx, e, g)
	if err != nil {
		return err
	}
	defer u.close()
	u.Agent().AllowDowngrade = *downgrade
	policy := update.RebootWhenIdle
	switch {
	case *now:
		policy = update.RebootNow
	case *noReboot:
		policy = update.RebootNever
	}
	return u.install(ctx, e, fs.Arg(0), policy, nil)
}

// install installs src, then reboots as policy says; failed, when set,
// gets the error of an install that did not happen.
func (u *updater) install(ctx context.Context, e env, src string, policy update.Reboot, failed func(error)) error {
	bar := update.NewBar(e.stdout, e.stdoutTTY)
	lastPct := -1
	show := func(p update.Progress) {
		bar.Show(p)
		if p.Percent != lastPct { // the box's LEDs show it too
			lastPct = p.Percent
			u.ctl.SetUpdating(ctx, true, p.Percent)
		}
	}
	res, err := u.Install(ctx, src, show)
	bar.End()
	u.ctl.SetUpdating(context.WithoutCancel(ctx), false, 100)
	if err != nil {
		if failed != nil {
			failed(err)
		}
		return err
	}
	fmt.Fprintf(e.stdout, "installed %s; it runs after the next reboot\n", res.Version)
	switch policy {
	case update.RebootNow:
		fmt.Fprintln(e.stdout, "rebooting now")
	case update.RebootWhenIdle:
		fmt.Fprintln(e.stdout, "rebooting when the speaker is idle (not mid-conversation, no timer ringing)")
	}
	return u.Agent().Restart(ctx, policy)
}

func updateStatus(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("update status", e, g)
	if err := parse(e, fs, args); err != nil {
		return err
	}
	u, err := newUpdater(ctx, e, g)
	if err != nil {
		return err
	}
	defer u.close()
	s, err := u.rauc.Status(ctx)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	booted := s.BootSlot
	if b, ok := s.Booted(); ok {
		booted += " (" + b.Name + ")"
	}
	fmt.Fprintf(w, "compatible\t%s\nbooted\t%s\nnext boot\t%s\nrunning\t%s\nrauc\t%s\n", s.Compatible, booted, dash(s.Primary), version, s.Operation)
	if s.LastError != "" {
		fmt.Fprintf(w, "rauc's last error\t%s\n", s.LastError)
	}
	if last, ok := u.State().Last(); ok {
		result := "installed " + last.Version
		if last.Error != "" {
			result = "failed: " + last.Error
		}
		fmt.Fprintf(w, "last update\t%s, %s (%s)\n", last.Time.In(boxZone(e, g)).Format("2006-01-02 15:04 MST"), result, last.Source)
	} else {
		fmt.Fprintf(w, "last update\tnone recorded\n")
	}
	if f, ok := (update.State{Dir: u.cfg.Update.Dir}).LastFailedBoot(); ok {
		fmt.Fprintf(w, "failed boot check\t%s, slot %s (%s): %s\n", f.Time.Local().Format("2006-01-02 15:04"), f.Slot, f.Version, f.Reason)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "SLOT\tBOOT\tSTATE\tBOOT-STATUS\tVERSION\tINSTALLED\tWRITE")
	for _, sl := range s.Slots {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", sl.Name, dash(sl.BootName), dash(sl.State), dash(sl.BootStatus), dash(sl.BundleVersion), dash(sl.Installed), dash(sl.Status))
	}
	return w.Flush()
}

// cmdHealth is the boot health check: it waits for the daemon to report
// ready, reads its self-test, and with --mark-good tells RAUC the booted
// slot is good. Anything else leaves the slot unmarked, and the boot
// loader's counter falls back to the other slot after its attempts.
func cmdHealth(ctx context.Context, e env, g *globals, args []string) (err error) {
	fs := flags("health", e, g)
	wait := fs.Duration("wait", 0, "how long to wait for hark to start and report ready (the boot check); 0 answers at once")
	mark := fs.Bool("mark-good", false, "mark the booted RAUC slot good when every check passes")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	// The boot check after an update is strict: settings the new image
	// does not load fail it, and the board goes back to the other slot.
	var cfg *config.Loaded
	if *mark {
		cfg, err = strictConfig(ctx, e, g)
	} else {
		cfg, _, err = loadConfig(e, g)
	}
	if err != nil {
		if *mark {
			// A configuration hark cannot start on, or settings it runs
			// without: the check fails, recorded, and a slot on trial
			// reboots, like any other failure.
			err = fmt.Errorf("%w; the slot is not marked good", err)
			fmt.Fprintln(e.stdout, failedCheck(ctx, bareConfig(e, g), err))
		}
		return err
	}
	if *mark { // why the slot was not marked good, and a reboot while it is on trial
		defer func() {
			if err != nil {
				fmt.Fprintln(e.stdout, failedCheck(ctx, cfg, err))
			}
		}()
	}
	ctl := control.Dial(cfg.ControlSocket)
	defer ctl.Close()
	s, err := ctl.Status(ctx)
	if *wait > 0 && (errors.Is(err, control.ErrNotRunning) || err == nil && !s.Ready) {
		// At boot the daemon may still be starting: wait for it.
		wctx, cancel := context.WithTimeout(ctx, *wait)
		defer cancel()
		for err == nil && !s.Ready || errors.Is(err, control.ErrNotRunning) {
			select {
			case <-wctx.Done():
				if err == nil {
					err = errors.New("hark never reported ready")
				}
				return fmt.Errorf("after %s: %w; the slot is not marked good", *wait, err)
			case <-time.After(time.Second):
			}
			s, err = ctl.Status(wctx)
		}
	}
	if errors.Is(err, control.ErrNotRunning) {
		return fmt.Errorf("hark is not running: nothing answers on %s (start it with hark run, or systemctl start hark)", cfg.ControlSocket)
	}
	if err != nil {
		return err
	}
	for _, c := range s.Checks {
		mark := "ok  "
		if !c.OK {
			mark = "FAIL"
		}
		fmt.Fprintf(e.stdout, "%s %-15s %s\n", mark, c.Name, c.Detail)
	}
	if ok, why := s.Healthy(); !ok {
		if *mark {
			return fmt.Errorf("%s; the slot is not marked good", why)
		}
		return errors.New(why)
	}
	for _, c := range s.Checks {
		if !c.OK && c.Data && c.Name == "settings" {
			fmt.Fprintln(e.stdout, "the settings check failed on the data partition, not the system: what did not load is left out; fix the file, or save a setting, which rewrites it without that (the original is kept aside)")
		} else if !c.OK && c.Data {
			fmt.Fprintf(e.stdout, "the %s check failed on the data partition, not the system: the slot stays good; the card needs repair or replacing\n", c.Name)
		}
	}
	if !*mark {
		fmt.Fprintln(e.stdout, "healthy")
		return nil
	}
	r, err := update.DialRAUC(ctx, cfg.Update.RAUCBus)
	if err != nil {
		return boardOnly(err)
	}
	defer r.Close()
	msg, err := update.Trial{State: update.State{Dir: cfg.Update.Dir}, RAUC: r}.Pass(ctx, time.Now())
	if err != nil {
		return boardOnly(err)
	}
	fmt.Fprintf(e.stdout, "healthy: %s\n", msg)
	return nil
}

// strictConfig is the configuration for the boot check (--mark-good). The
// check runs at every boot: while the booted slot is on trial after an
// update (update.State.OnTrial) the household's settings must all load, or
// the check fails and the image that refuses them is rolled back; on a
// slot that passed its check before they are the household's to fix, not
// the image's: what does not load is said on stderr, left out, and the
// check goes on (the daemon's settings check names it too). When RAUC
// cannot tell, the check stays strict.
func strictConfig(ctx context.Context, e env, g *globals) (*config.Loaded, error) {
	cfg, _, err := readConfig(e, g, true)
	if err == nil {
		return cfg, nil
	}
	l, _, lerr := readConfig(e, g, false)
	if lerr != nil {
		return nil, err // the configuration's own, which no trial excuses
	}
	trial, why := onTrial(ctx, l)
	if trial {
		return nil, fmt.Errorf("%w (%s)", err, why)
	}
	fmt.Fprintf(e.stderr, "hark: warning: %s, so the boot check goes on without the settings that do not load\n", why)
	for _, p := range l.SettingsProblems {
		fmt.Fprintf(e.stderr, "hark: warning: %s; left out until it is fixed (saving a setting rewrites the file without it)\n", p)
	}
	if len(l.SettingsProblems) == 0 {
		fmt.Fprintf(e.stderr, "hark: warning: %v\n", err)
	}
	return l, nil
}

// onTrial reports whether the booted slot is on trial, and why; a slot
// RAUC says nothing of is taken as on trial.
func onTrial(ctx context.Context, cfg *config.Loaded) (bool, string) {
	r, err := update.DialRAUC(ctx, cfg.Update.RAUCBus)
	if err != nil {
		return true, "RAUC cannot say whether the slot is on trial: " + err.Error()
	}
	defer r.Close()
	sys, err := r.Status(ctx)
	if err != nil {
		return true, "RAUC cannot say whether the slot is on trial: " + err.Error()
	}
	return update.State{Dir: cfg.Update.Dir}.OnTrial(sys)
}

// bareConfig is the configuration as far as it loads, for where a failed
// check is recorded when the whole does not load: the file's, or the
// defaults, with --data.
func bareConfig(e env, g *globals) *config.Loaded {
	l, err := config.Load(g.config, e.getenv)
	if err != nil {
		l = &config.Loaded{Config: config.Default(), Sources: map[string]string{}}
	}
	if g.data != "" {
		l.Override("data_dir", g.data, "flag --data")
	}
	l.Resolve(e.getenv) // its problems are known; it fills in the defaults
	return l
}

// failedCheck records why the boot check failed and reboots while the
// booted slot is on trial (update.Trial); it says what it did.
func failedCheck(ctx context.Context, cfg *config.Loaded, checkErr error) string {
	cmdline, _ := os.ReadFile("/proc/cmdline")
	slot := update.SlotFromCmdline(string(cmdline))
	tr := update.Trial{State: update.State{Dir: cfg.Update.Dir}}
	if slot != "" { // only a board its boot loader started from a slot reboots
		tr.Reboot = update.SystemReboot
	}
	if r, err := update.DialRAUC(ctx, cfg.Update.RAUCBus); err == nil {
		defer r.Close()
		tr.RAUC = r
	}
	why, err := tr.Fail(ctx, update.BootCheck{Time: time.Now().UTC(), Slot: slot, Version: version, Reason: checkErr.Error()})
	if err != nil {
		return why + ": " + err.Error()
	}
	return why
}
