package main

import (
	"context"
	"os"
	"path/filepath"

	"github.com/harkbox/hark/gpio/gesture"
	"github.com/harkbox/hark/pipeline"
)

// mutedKey is where the microphone's mute is kept across reboots.
const mutedKey = "mic_muted"

// muted is the remembered mute.
func (a *app) muted(ctx context.Context) bool {
	var m bool
	if _, err := a.db.Settings().Get(ctx, mutedKey, &m); err != nil {
		a.log.Warn("could not read the microphone mute; it stays on", "err", err)
	}
	return m
}

// setMuted closes (or reopens) the capture, shows it on the LEDs and,
// when remember is set, keeps it for the next start.
func (a *app) setMuted(ctx context.Context, d *devices, m, remember bool) {
	d.listener.SetMuted(m)
	if d.display != nil {
		d.display.SetMuted(m)
	}
	if remember {
		if err := a.db.Settings().Set(ctx, mutedKey, m); err != nil {
			a.log.Error("could not remember the microphone mute", "err", err)
		}
	}
	a.log.Info("microphone", "muted", m)
}

// gestures maps the button of d for the pipeline: the long press, the
// double-press action and the factory-reset countdown, which calls reset.
func (a *app) gestures(ctx context.Context, d *devices, say func(context.Context, string), out chan<- pipeline.Event, reset context.CancelCauseFunc) {
	gesture.Run(ctx, gesture.Options{
		DoubleAction: a.cfg.Button.DoubleAction,
		FactoryReset: a.cfg.Button.FactoryReset,
		ToggleMute:   func(ctx context.Context) { a.setMuted(ctx, d, !d.listener.Muted(), true) },
		Pending:      func(ctx context.Context) bool { return a.sayWebCode(ctx, say) },
		Say:          say,
		Lang:         a.lang(),
		Reset:        reset,
		Log:          a.log,
	}, d.gestures, out)
}

// wipe empties the data directory: the store (dialogue, memory, timers,
// secrets, settings) and the reply files, keeping the directory itself.
func wipe(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			return err
		}
	}
	return nil
}
