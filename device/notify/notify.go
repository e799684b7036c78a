// Package notify tells systemd how Hark is doing through sd_notify: READY=1
// once the pipeline is armed and idle, then a STATUS= line as its state
// changes, with what the box adds to it (the model loading, or ready).
// Outside systemd (no NOTIFY_SOCKET) it does nothing.
package notify

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/voice"
)

// refresh is how often the status line is looked at again between states,
// for a detail that changes by itself ("loading for 12 s").
var refresh = 5 * time.Second

// Run reports the states on feed to systemd until ctx is done: "STATUS=idle",
// or with detail's words after it when detail is set and says some
// ("STATUS=idle; model llama3.2:3b loading for 12 s"). It reads the newest
// state only, so it never holds the pipeline up.
func Run(ctx context.Context, feed *pipeline.Feed, detail func() string, log *slog.Logger) {
	ready, last := false, ""
	var st voice.Status
	seen := false
	for {
		wctx, cancel := context.WithTimeout(ctx, refresh)
		next, err := feed.Latest(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			daemon.SdNotify(false, daemon.SdNotifyStopping)
			return
		case errors.Is(err, context.DeadlineExceeded) && !seen:
			continue // no state yet
		case err == nil:
			st, seen = next, true
		}
		msg := "STATUS=" + st.State.String()
		if detail != nil {
			if d := detail(); d != "" {
				msg += "; " + d
			}
		}
		if !ready && st.State == voice.Idle {
			msg = daemon.SdNotifyReady + "\n" + msg
			ready = true
		}
		if msg == last {
			continue
		}
		last = msg
		if _, err := daemon.SdNotify(false, msg); err != nil {
			log.Warn("sd_notify failed", "err", err)
		}
	}
}
