package notify

import (
	"context"
	"log/slog"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
)

// Watchdog pings systemd's watchdog (WatchdogSec=) a few times per period,
// but only while alive reports the audio loop making progress: a loop stuck
// in a driver call stops the pings, and systemd restarts Hark. Outside
// systemd, or without WatchdogSec, it does nothing.
func Watchdog(ctx context.Context, alive func() bool, log *slog.Logger) {
	period, err := daemon.SdWatchdogEnabled(false)
	if err != nil {
		log.Warn("systemd watchdog: bad settings", "err", err)
		return
	}
	if period == 0 {
		return
	}
	t := time.NewTicker(period / 3)
	defer t.Stop()
	stalled := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if !alive() {
			if !stalled {
				log.Error("the audio loop has stalled: no more watchdog pings, systemd will restart hark")
			}
			stalled = true
			continue
		}
		if stalled {
			log.Info("the audio loop is moving again")
			stalled = false
		}
		if _, err := daemon.SdNotify(false, daemon.SdNotifyWatchdog); err != nil {
			log.Warn("sd_notify watchdog failed", "err", err)
		}
	}
}
