package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/harkbox/hark/cmd/hark/internal/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/notify"
	"github.com/harkbox/hark/device/sim"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/gpio/gesture"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/reply/alert"
)

// cmdRun runs the appliance until SIGINT or SIGTERM (or, in simulation,
// until standard input ends).
func cmdRun(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("run", e, g)
	simulate := fs.Bool("sim", false, "simulate the hardware on this computer (the default for board = \"sim\")")
	micWAV := fs.String("mic-wav", "", "WAV `file` to use as the microphone in simulation")
	verbose := fs.Bool("verbose", false, "in simulation, show the log on the terminal too (it always goes to hark.log in the data directory)")
	if err := parse(e, fs, args); err != nil {
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
	tail := control.NewLogTail(500)
	level := new(slog.LevelVar)                // the page's log.level applies at once
	level.UnmarshalText([]byte(cfg.Log.Level)) // checked by config.Resolve
	log, closeLog, err := daemonLogger(cfg, e, screen, tail, *verbose, level)
	if err != nil {
		return err
	}
	defer closeLog()
	// The web page's logged-in browsers stay logged in across a restart
	// (a setting applied), not across a factory reset.
	sessions := &web.Sessions{}
	for {
		err := runBox(ctx, e, cfg, res, screen, log, tail, sessions, level)
		if errors.Is(err, errRestart) {
			if cfg, res, err = loadConfig(e, g, overrides...); err != nil {
				return fmt.Errorf("restart: %w", err)
			}
			level.UnmarshalText([]byte(cfg.Log.Level))
			log.Info("started again with the settings kept")
			continue
		}
		if !errors.Is(err, gesture.ErrFactoryReset) {
			return err
		}
		if err := wipe(cfg.DataDir); err != nil {
			return fmt.Errorf("factory reset: %w", err)
		}
		sessions = &web.Sessions{}
		log.Warn("factory reset: everything the box remembered was erased; starting again", "data_dir", cfg.DataDir)
	}
}

// runBox runs the appliance once: the store, speech, the devices, the
// pipeline and what follows it, until ctx is done or a factory reset.
func runBox(ctx context.Context, e env, cfg *config.Loaded, res config.Resolved, screen *sim.Screen, log *slog.Logger, tail *control.LogTail,
	sessions *web.Sessions, level *slog.LevelVar) error {
	a, err := openApp(cfg, res, log)
	if err != nil {
		return err
	}
	a.sessions, a.logLevel = sessions, level
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
		if cfg.Board == "sim" {
			screen.Println(why) // the log is not on the screen
		}
	}
	var whole pipeline.Completer // the offline core judges whether words are a whole request
	if a.commands != nil {
		whole = a.commands
	}
	p, err := pipeline.New(pipeline.Options{
		Lang:        a.lang(),
		Microphone:  dev.mic,
		Transcriber: dev.stt,
		Replier:     a.replier(),
		Synthesizer: synth,
		Speaker:     dev.speaker,
		Earcons:     dev.earcons,
		Talk:        pipeline.TalkMode(cfg.Listen.Mode),
		NoSpeech:    cfg.Listen.NoSpeech.Duration,
		Speculate:   cfg.Listen.Speculate,
		Completer:   whole,
		FollowUp:    pipeline.FollowUp{Policy: pipeline.FollowUpPolicy(cfg.Pipeline.FollowUp), Window: cfg.Pipeline.FollowUpWindow.Duration},
		RingFor:     cfg.Pipeline.RingFor.Duration,
		Log:         log,
	})
	if err != nil {
		return err
	}
	if dev.listener != nil {
		a.setMuted(ctx, dev, a.muted(ctx), false)
	}
	if cfg.Board == "sim" {
		a.notice = screen.Println
		screen.Println(fmt.Sprintf("hark: simulation; the last %d replies are saved in %s ([sim] keep_replies); model %s at %s",
			cfg.Sim.KeepReplies, a.replyDir(), cfg.Ollama.Model, cfg.Ollama.Host))
		screen.Println("      Enter = button, /stop = long press, /quit or Ctrl-D = leave")
	}

	rctx, reset := context.WithCancelCause(ctx)
	defer reset(nil)
	a.restart = func() { reset(errRestart) }
	octx, stopObservers := context.WithCancel(rctx)
	var wg sync.WaitGroup
	events := dev.events
	if dev.gestures != nil {
		ev := make(chan pipeline.Event)
		events = ev
		wg.Go(func() {
			a.gestures(octx, dev, func(ctx context.Context, text string) { pipeline.Announce(ctx, synth, dev.speaker, text) }, ev, reset)
		})
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
	var mic health.Mic
	if dev.listener != nil {
		mic = dev.listener
	}
	var updating func(bool)
	if dev.display != nil {
		updating = dev.display.SetUpdating
	}
	ctl := health.New(health.Options{
		Version: version,
		Storage: func(ctx context.Context) error {
			var m bool
			_, err := a.db.Settings().Get(ctx, mutedKey, &m)
			return err
		},
		Full:      a.db.Writable,
		Mic:       mic,
		Listening: dev.listening,
		Updating:  updating,
		Log:       log,
	})
	wg.Go(func() { notify.Watchdog(octx, ctl.Alive, log) })
	wg.Go(func() {
		ctl.WatchStorage(octx, 10*time.Second, func(full bool, why error) {
			if dev.display != nil {
				dev.display.SetFull(full)
			}
			if !full {
				log.Info("storage has room again")
				return
			}
			// Said once: the box keeps answering and ringing; it only
			// cannot remember anything new.
			say := a.lang().T("My storage is full, so I can't remember anything new. Timers already set will still ring.")
			if a.notice != nil {
				a.notice(say)
			}
			log.Error("storage is full", "err", why)
			pipeline.Announce(octx, synth, dev.speaker, say)
		})
	})
	ctlFeed := p.Subscribe(4)
	wg.Go(func() { ctl.Follow(octx, ctlFeed) })
	api := a.api(linked{Box: ctl, a: a}, tail)
	wg.Go(func() { a.serveWeb(octx, api) })
	wg.Go(func() {
		if err := control.Serve(octx, cfg.ControlSocket, control.Handler(api), log); err != nil {
			log.Warn("no API socket: the hark commands cannot reach the running box", "err", err)
		}
	})
	wg.Go(func() { reportMemory(octx, log) })
	wg.Go(func() { a.engine.Maintain(octx, 30*time.Second) })
	wg.Go(func() { a.brain.watch(octx) })
	a.startMCP(octx, 0) // their tools join the catalogue as each server answers
	if a.node == nil {
		wg.Go(func() { a.engine.Warm(octx) }) // the first question then pays only for its own words
	}
	wg.Go(func() {
		if err := a.alerts.Run(octx, ringer{p}); err != nil {
			log.Error("timers, alarms and reminders stopped", "err", err)
		}
	})
	for _, t := range dev.tasks {
		wg.Go(func() { t(octx) })
	}
	err = p.Run(rctx, events)
	stopObservers()
	wg.Wait()
	if errors.Is(context.Cause(rctx), errRestart) {
		return errRestart
	}
	if errors.Is(context.Cause(rctx), gesture.ErrFactoryReset) {
		return gesture.ErrFactoryReset
	}
	log.Info("stopped")
	return err
}

func (a *app) replyDir() string { return filepath.Join(a.cfg.DataDir, "replies") }

// daemonLogger is the daemon's log. On a board it goes to standard error
// (the journal). In simulation the terminal is the box's screen, so the log
// goes to hark.log in the data directory and reaches the terminal only
// with --verbose. Either way its last lines are kept for the API.
func daemonLogger(cfg *config.Loaded, e env, screen *sim.Screen, tail *control.LogTail, verbose bool, level *slog.LevelVar) (*slog.Logger, func() error, error) {
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Board != "sim" {
		return slog.New(slog.NewTextHandler(io.MultiWriter(e.stderr, tail), opts)), func() error { return nil }, nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("data directory: %w", err)
	}
	path := filepath.Join(cfg.DataDir, "hark.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("log file: %w", err)
	}
	w := io.Writer(io.MultiWriter(f, tail))
	if verbose {
		w = io.MultiWriter(f, tail, screen)
	} else {
		screen.Println("log: " + path + " (--verbose shows it here)")
	}
	return slog.New(slog.NewTextHandler(w, opts)), f.Close, nil
}

// ringer rings the alert service's alerts on the pipeline.
type ringer struct{ *pipeline.Pipeline }

func (r ringer) Ring(a alert.Alert) { r.Pipeline.Ring(pipeline.Alert(a)) }
