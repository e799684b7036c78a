package box

import (
	"context"
	"errors"
	"log/slog"

	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/storage"
)

// mutedKey is where the microphone's mute is kept across reboots.
const mutedKey = "mic_muted"

// muter mutes and unmutes the microphone and remembers it.
type muter struct {
	settings *storage.Settings
	log      *slog.Logger
}

// muted is the remembered mute.
func (m *muter) muted(ctx context.Context) bool {
	var on bool
	if _, err := m.settings.Get(ctx, mutedKey, &on); err != nil {
		m.log.Warn("could not read the microphone mute; it stays on", "err", err)
	}
	return on
}

// set closes (or reopens) the capture, shows it on the LEDs and, when
// remember is set, keeps it for the next start.
func (m *muter) set(ctx context.Context, d *devices, on, remember bool) {
	d.listener.SetMuted(on)
	if d.display != nil {
		d.display.SetMuted(on)
	}
	if remember {
		if err := m.settings.Set(ctx, mutedKey, on); err != nil {
			m.log.Error("could not remember the microphone mute", "err", err)
		}
	}
	m.log.Info("microphone", "muted", on)
}

// storageCheck makes one real read of the store and reports its health,
// for the self-test: a card that cannot save, or damaged files set aside
// at start, fail it as the data partition's fault.
func storageCheck(db *storage.DB) func(ctx context.Context) error {
	return func(ctx context.Context) error {
		var m bool
		_, err := db.Settings().Get(ctx, mutedKey, &m)
		h := db.Health()
		switch {
		case !h.OK() && (h.Data || h.Condition == storage.Saving):
			return &health.DataFault{Err: errors.New(h.String())}
		case !h.OK():
			return errors.New(h.String())
		}
		return err
	}
}
