package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/harkbox/hark/cmd/hark/internal/config"
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
	if cfg.Board != "sim" {
		return fmt.Errorf("board %q: this build has no hardware drivers; run with --sim", cfg.Board)
	}

	screen := sim.NewScreen(e.stdout, e.stdoutTTY)
	defer screen.End()
	log, closeLog, err := simLogger(cfg, screen, e.stdoutTTY)
	if err != nil {
		return err
	}
	defer closeLog()
	a, err := openApp(cfg, res, log)
	if err != nil {
		return err
	}
	defer a.close()

	sp := a.openSpeech()
	defer sp.close()
	term := sim.NewTerminal(e.stdin, screen)
	var mic pipeline.Microphone = term
	var stt pipeline.Transcriber = sim.Typed{}
	switch {
	case sp.stt != nil && cfg.Sim.MicWAV != "":
		m, err := sim.NewWAVMic(cfg.Sim.MicWAV, cfg.Sim.Realtime)
		if err != nil {
			return err
		}
		mic, stt = m, sp.stt
		screen.Println(sp.note)
		screen.Println("microphone: " + cfg.Sim.MicWAV + " (played as if spoken at each press)")
	case sp.stt != nil:
		screen.Println(sp.note + "; with no --mic-wav, type what you would say")
	case cfg.Sim.MicWAV != "":
		screen.Println(sp.note + ": ignoring --mic-wav; type what you would say")
	default:
		screen.Println(sp.note + ": type what you would say")
	}
	synth, why := a.synthesizer()
	if why != "" {
		log.Warn(why)
	}
	replies := filepath.Join(cfg.DataDir, "replies")
	p, err := pipeline.New(pipeline.Options{
		Microphone:  mic,
		Transcriber: stt,
		Replier:     a.replier(),
		Synthesizer: synth,
		Speaker: sim.NewWAVSpeaker(sim.SpeakerOptions{
			Dir: replies, Rate: cfg.Sim.SpeakerRate, Channels: cfg.Sim.SpeakerChannels,
			Realtime: cfg.Sim.Realtime, Keep: cfg.Sim.KeepReplies, Gain: a.mixer.Gain,
		}),
		FollowUp: pipeline.FollowUp{Policy: pipeline.FollowUpPolicy(cfg.Pipeline.FollowUp), Window: cfg.Pipeline.FollowUpWindow.Duration},
		RingFor:  cfg.Pipeline.RingFor.Duration,
		Log:      log,
	})
	if err != nil {
		return err
	}
	a.alerts.p.Store(p)
	screen.Println("hark: simulation; replies are saved in " + replies + "; model " + cfg.Ollama.Model + " at " + cfg.Ollama.Host)
	screen.Println("      Enter = button, /stop = long press, /quit or Ctrl-D = leave")

	display, status := p.Subscribe(256), p.Subscribe(4)
	octx, stopObservers := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { sim.Display(octx, display, screen) })
	wg.Go(func() { notify.Run(octx, status, log) })
	wg.Go(func() { term.Run(octx) })
	wg.Go(func() { reportMemory(octx, log) })
	wg.Go(func() { a.engine.Maintain(octx, 30*time.Second) })
	wg.Go(func() {
		if err := a.schedule.Run(octx, ringer(p)); err != nil {
			log.Error("timers, alarms and reminders stopped", "err", err)
		}
	})
	err = p.Run(ctx, term.Events())
	stopObservers()
	wg.Wait()
	log.Info("stopped")
	return err
}

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
