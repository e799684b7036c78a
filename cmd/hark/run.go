package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/harkbox/hark/cmd/hark/internal/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/notify"
	"github.com/harkbox/hark/device/sim"
	"github.com/harkbox/hark/pipeline"
)

// cmdRun runs the appliance until SIGINT or SIGTERM (or, in simulation,
// until standard input ends).
func cmdRun(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("run", e, g)
	simulate := fs.Bool("sim", false, "simulate the hardware on this computer (the default for board = \"sim\")")
	micWAV := fs.String("mic-wav", "", "WAV `file` to use as the microphone in simulation")
	if err := parse(fs, args); err != nil {
		return err
	}
	var overrides []override
	if *simulate {
		overrides = append(overrides, override{"board", "sim", "--sim"})
	}
	if *micWAV != "" {
		overrides = append(overrides, override{"sim.mic_wav", *micWAV, "--mic-wav"})
	}
	cfg, res, err := loadConfig(e, g, overrides...)
	if err != nil {
		return err
	}
	screen := sim.NewScreen(e.stdout, e.stdoutTTY)
	defer screen.End()
	log, closeLog, err := simLogger(cfg, screen, e.stdoutTTY)
	if err != nil {
		return err
	}
	defer closeLog()
	for {
		err := runBox(ctx, e, cfg, res, screen, log)
		if !errors.Is(err, errFactoryReset) {
			return err
		}
		if err := wipe(cfg.DataDir); err != nil {
			return fmt.Errorf("factory reset: %w", err)
		}
		log.Warn("factory reset: everything the box remembered was erased; starting again", "data_dir", cfg.DataDir)
	}
}

// errFactoryReset ends a runBox whose user held the button through the
// factory-reset countdown.
var errFactoryReset = errors.New("factory reset")

// runBox runs the appliance once: the store, speech, the devices, the
// pipeline and what follows it, until ctx is done or a factory reset.
func runBox(ctx context.Context, e env, cfg *config.Loaded, res config.Resolved, screen *sim.Screen, log *slog.Logger) error {
	a, err := openApp(cfg, res, log)
	if err != nil {
		return err
	}
	defer a.close()
	if id, created, err := ensureIdentity(cfg.DataDir); err != nil {
		log.Warn("no device identity", "err", err)
	} else if created {
		log.Info("first start: this box's identity is made", "device", id)
	}
	sp := a.openSpeech()
	defer sp.close()
	var dev *devices
	if cfg.Board == "sim" {
		dev, err = a.openSim(e.stdin, screen, sp)
	} else {
		dev, err = a.openBoard(e.stdin, screen, sp)
	}
	if err != nil {
		return err
	}
	defer dev.close()
	synth, why := a.synthesizer()
	if why != "" {
		log.Warn(why)
	}
	p, err := pipeline.New(pipeline.Options{
		Microphone:  dev.mic,
		Transcriber: dev.stt,
		Replier:     a.replier(),
		Synthesizer: synth,
		Speaker:     dev.speaker,
		Earcons:     dev.earcons,
		Talk:        pipeline.TalkMode(cfg.Listen.Mode),
		NoSpeech:    cfg.Listen.NoSpeech.Duration,
		FollowUp:    pipeline.FollowUp{Policy: pipeline.FollowUpPolicy(cfg.Pipeline.FollowUp), Window: cfg.Pipeline.FollowUpWindow.Duration},
		RingFor:     cfg.Pipeline.RingFor.Duration,
		Log:         log,
	})
	if err != nil {
		return err
	}
	a.alerts.p.Store(p)
	if dev.listener != nil {
		a.setMuted(ctx, dev, a.muted(ctx), false)
	}
	if cfg.Board == "sim" {
		screen.Println("hark: simulation; replies are saved in " + a.replyDir() + "; model " + cfg.Ollama.Model + " at " + cfg.Ollama.Host)
		screen.Println("      Enter = button, /stop = long press, /quit or Ctrl-D = leave")
	}

	rctx, reset := context.WithCancelCause(ctx)
	defer reset(nil)
	octx, stopObservers := context.WithCancel(rctx)
	var wg sync.WaitGroup
	events := dev.events
	if dev.gestures != nil {
		ev := make(chan pipeline.Event)
		events = ev
		wg.Go(func() { a.gestures(octx, dev, sayer(synth, dev.speaker), ev, reset) })
	}
	status := p.Subscribe(4)
	if dev.display != nil {
		f := p.Subscribe(16)
		wg.Go(func() { dev.display.Follow(octx, f) })
	}
	if dev.onScreen {
		f := p.Subscribe(256)
		wg.Go(func() { sim.Display(octx, f, screen) })
	}
	wg.Go(func() { notify.Run(octx, status, log) })
	wg.Go(func() { notify.Watchdog(octx, dev.audioAlive, log) })
	ctl := newBoxControl(a, dev)
	ctlFeed := p.Subscribe(4)
	wg.Go(func() { ctl.follow(octx, ctlFeed) })
	wg.Go(func() {
		if err := control.Serve(octx, cfg.ControlSocket, control.Handler(control.API{Box: ctl}), log); err != nil {
			log.Warn("no control socket: hark update and hark health cannot ask the box how it is", "err", err)
		}
	})
	wg.Go(func() { reportMemory(octx, log) })
	wg.Go(func() { a.engine.Maintain(octx, 30*time.Second) })
	wg.Go(func() {
		if err := a.schedule.Run(octx, ringer(p)); err != nil && octx.Err() == nil {
			log.Error("timers, alarms and reminders stopped", "err", err)
		}
	})
	for _, t := range dev.tasks {
		wg.Go(func() { t(octx) })
	}
	err = p.Run(rctx, events)
	stopObservers()
	wg.Wait()
	if errors.Is(context.Cause(rctx), errFactoryReset) {
		return errFactoryReset
	}
	log.Info("stopped")
	return err
}

func (a *app) replyDir() string { return filepath.Join(a.cfg.DataDir, "replies") }

// simLogger logs through the screen. On a terminal only warnings and errors
// are shown there, so the conversation stays readable, and everything at the
// configured level goes to hark.log in the data directory.
func simLogger(cfg *config.Loaded, screen *sim.Screen, tty bool) (*slog.Logger, func() error, error) {
	if !tty {
		return newLogger(screen, cfg.Log.Level, slog.LevelDebug), func() error { return nil }, nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("data directory: %w", err)
	}
	path := filepath.Join(cfg.DataDir, "hark.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("log file: %w", err)
	}
	var level slog.Level
	level.UnmarshalText([]byte(cfg.Log.Level))
	screen.Println("log: " + path)
	return slog.New(slog.NewMultiHandler(
		slog.NewTextHandler(screen, &slog.HandlerOptions{Level: max(level, slog.LevelWarn)}),
		slog.NewTextHandler(f, &slog.HandlerOptions{Level: level}),
	)), f.Close, nil
}
