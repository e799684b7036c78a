package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/harkbox/hark/gpio/button"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/pcm"
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

// buttonMap turns the board button's gestures into the pipeline's events:
// press and release, the long press that stops everything, the
// double-press action, and the very long hold that starts the
// factory-reset countdown, which calls reset when it runs out.
type buttonMap struct {
	doubleAction string // "mute", "stop" or "none"
	factoryReset bool
	toggleMute   func(ctx context.Context)
	say          func(ctx context.Context, text string)
	reset        context.CancelCauseFunc
	log          *slog.Logger
}

// gestures maps the button of d for the pipeline.
func (a *app) gestures(ctx context.Context, d *devices, say func(context.Context, string), out chan<- pipeline.Event, reset context.CancelCauseFunc) {
	buttonMap{
		doubleAction: a.cfg.Button.DoubleAction,
		factoryReset: a.cfg.Button.FactoryReset,
		toggleMute:   func(ctx context.Context) { a.setMuted(ctx, d, !d.listener.Muted(), true) },
		say:          say,
		reset:        reset,
		log:          a.log,
	}.run(ctx, d.gestures, out)
}

func (m buttonMap) run(ctx context.Context, in <-chan button.Event, out chan<- pipeline.Event) {
	send := func(ev pipeline.Event) {
		select {
		case out <- ev:
		case <-ctx.Done():
		}
	}
	for {
		var g button.Event
		select {
		case <-ctx.Done():
			return
		case g = <-in:
		}
		switch g.Gesture {
		case button.Press:
			send(pipeline.Press)
		case button.Release:
			send(pipeline.Release)
		case button.LongPress:
			send(pipeline.Stop)
		case button.DoublePress:
			switch m.doubleAction {
			case "mute":
				m.toggleMute(ctx)
			case "stop":
				send(pipeline.Stop)
			}
		case button.VeryLongPress:
			if !m.factoryReset {
				continue
			}
			send(pipeline.Abort)
			if countdown(ctx, m.say, in, 5) {
				m.log.Warn("factory reset: the button was held through the countdown")
				m.reset(errFactoryReset)
				return
			}
		}
	}
}

// countdown says the factory-reset countdown, a number a second, and
// reports whether it ran out; letting go of the button cancels it.
func countdown(ctx context.Context, say func(context.Context, string), gestures <-chan button.Event, seconds int) bool {
	say(ctx, fmt.Sprintf("Factory reset in %d seconds. Let go of the button to cancel.", seconds))
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for n := seconds; n > 0; {
		select {
		case <-ctx.Done():
			return false
		case g := <-gestures:
			if g.Gesture == button.Release {
				say(ctx, "Factory reset cancelled.")
				return false
			}
		case <-tick.C:
			n--
			if n > 0 {
				say(ctx, fmt.Sprint(n))
			}
		}
	}
	say(ctx, "Resetting.")
	return true
}

// sayer speaks a sentence outside any turn, on the speaker, waiting until
// it has been played; it does nothing without speech.
func sayer(synth pipeline.Synthesizer, spk pipeline.Speaker) func(context.Context, string) {
	return func(ctx context.Context, text string) {
		if synth == nil || spk == nil {
			return
		}
		b, err := synth.Synthesize(ctx, text)
		if err != nil {
			return
		}
		pb, err := spk.Open(ctx)
		if err != nil {
			return
		}
		rate, ch := pb.Format()
		pb.Write(ctx, pcm.Convert(b, rate, ch))
		pb.Close(ctx)
	}
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
