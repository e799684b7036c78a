// Package notify tells systemd how Hark is doing through sd_notify: READY=1
// once the pipeline is armed and idle, then a STATUS= line as its state
// changes. Outside systemd (no NOTIFY_SOCKET) it does nothing.
package notify

import (
	"context"
	"log/slog"

	"github.com/coreos/go-systemd/v22/daemon"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/voice"
)

// Run reports the states on feed to systemd until ctx is done. It reads the
// newest state only, so it never holds the pipeline up.
func Run(ctx context.Context, feed *pipeline.Feed, log *slog.Logger) {
	ready := false
	for {
		st, err := feed.Latest(ctx)
		if err != nil {
			daemon.SdNotify(false, daemon.SdNotifyStopping)
			return
		}
		msg := "STATUS=" + st.State.String()
		if !ready && st.State == voice.Idle {
			msg = daemon.SdNotifyReady + "\n" + msg
			ready = true
		}
		if _, err := daemon.SdNotify(false, msg); err != nil {
			log.Warn("sd_notify failed", "err", err)
		}
	}
}
