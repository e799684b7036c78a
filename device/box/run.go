package box

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/sim"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/gpio/gesture"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/reply"
)

// RunOptions are the daemon's terminal and how it reads its configuration.
type RunOptions struct {
	// Version is the firmware's.
	Version string
	// Load reads the configuration: at the start, and anew at each
	// restart that applies settings.
	Load func() (*config.Loaded, config.Resolved, error)
	// Stdin is the simulation's keyboard (and a usb board's button).
	Stdin io.Reader
	// Stdout is the simulation's screen; StdoutTTY says it is a terminal.
	Stdout, Stderr io.Writer
	StdoutTTY      bool
	// Verbose shows the simulation's log on its screen too.
	Verbose bool
}

// Run runs the appliance until ctx is done (or, in simulation, until
// standard input ends): the store, speech, the devices, the pipeline and
// what follows it. A restart that applies settings reads the configuration
// again; a factory reset empties the data directory and starts afresh.
func Run(ctx context.Context, o RunOptions) error {
	cfg, res, err := o.Load()
	if err != nil {
		return err
	}
	screen := sim.NewScreen(o.Stdout, o.StdoutTTY)
	defer screen.End()
	d := &daemon{o: o, screen: screen, tail: control.NewLogTail(500), level: new(slog.LevelVar)}
	d.level.UnmarshalText([]byte(cfg.Log.Level)) // checked by config.Resolve; the page's log.level applies at once
	log, closeLog, err := daemonLogger(cfg, o, screen, d.tail, d.level)
	if err != nil {
		return err
	}
	defer closeLog()
	d.log = log
	// The web page's logged-in browsers stay logged in across a restart
	// (a setting applied), not across a factory reset.
	d.sessions = &web.Sessions{}
	for {
		err := d.run(ctx, cfg, res)
		if errors.Is(err, ErrRestart) {
			if cfg, res, err = o.Load(); err != nil {
				return fmt.Errorf("restart: %w", err)
			}
			d.level.UnmarshalText([]byte(cfg.Log.Level))
			log.Info("started again with the settings kept")
			continue
		}
		if !errors.Is(err, gesture.ErrFactoryReset) {
			return err
		}
		if err := wipe(cfg.DataDir); err != nil {
			return fmt.Errorf("factory reset: %w", err)
		}
		d.sessions = &web.Sessions{}
		log.Warn("factory reset: everything the box remembered was erased; starting again", "data_dir", cfg.DataDir)
	}
}

// daemon is what outlives one run of the box: its terminal, log and the
// web page's sessions.
type daemon struct {
	o        RunOptions
	screen   *sim.Screen
	log      *slog.Logger
	tail     *control.LogTail
	level    *slog.LevelVar
	sessions *web.Sessions
	// chimed is set once the ready chime has played, or had its chance:
	// the first time the model is ready after the box started.
	chimed bool
}

// running is one run of the box: its parts, devices and pipeline.
type running struct {
	*daemon
	b      *Box
	dev    *devices
	mute   *muter
	synth  pipeline.Synthesizer
	p      *pipeline.Pipeline
	notice func(string) // a line for the person at the terminal; nil on a board
	hinted sync.Once    // the hint on reaching a model is shown once
}

// run runs the box once, until ctx is done, a restart or a factory reset.
func (d *daemon) run(ctx context.Context, cfg *config.Loaded, res config.Resolved) error {
	b, err := Open(cfg, res, Options{Version: d.o.Version, Log: d.log})
	if err != nil {
		return err
	}
	defer b.Close()
	if id, created, err := ensureIdentity(cfg.DataDir); err != nil {
		d.log.Warn("no device identity", "err", err)
	} else if created {
		d.log.Info("first start: this box's identity is made", "device", id)
	}
	sp := openSpeech(cfg, d.log)
	defer sp.close()
	r := &running{daemon: d, b: b, mute: &muter{settings: b.db.Settings(), log: d.log}}
	kit := deviceKit{cfg: cfg, log: d.log, mixer: b.mixer, mute: r.mute, in: d.o.Stdin, screen: d.screen, speech: sp}
	if cfg.Board == "sim" {
		r.dev, err = kit.openSim()
	} else {
		r.dev, err = kit.openBoard()
	}
	if err != nil {
		return err
	}
	defer r.dev.close()
	if err := r.pipeline(ctx); err != nil {
		return err
	}
	return r.serve(ctx)
}

// pipeline makes the turn state machine over the devices.
func (r *running) pipeline(ctx context.Context) error {
	cfg := r.b.cfg
	synth, why := synthesizer(cfg, r.log)
	if why != "" {
		r.log.Warn(why)
		if cfg.Board == "sim" {
			r.screen.Println(why) // the log is not on the screen
		}
	}
	r.synth = synth
	var err error
	r.p, err = pipeline.New(pipeline.Options{
		Lang:        r.b.Lang(),
		Microphone:  r.dev.mic,
		Transcriber: r.dev.stt,
		Replier:     pipeline.ReplierFunc(r.reply),
		Synthesizer: synth,
		Speaker:     r.dev.speaker,
		Earcons:     r.dev.earcons,
		Talk:        pipeline.TalkMode(cfg.Listen.Mode),
		NoSpeech:    cfg.Listen.NoSpeech.Duration,
		FollowUp:    pipeline.FollowUp{Policy: pipeline.FollowUpPolicy(cfg.Pipeline.FollowUp), Window: cfg.Pipeline.FollowUpWindow.Duration},
		RingFor:     cfg.Pipeline.RingFor.Duration,
		Log:         r.log,
	})
	if err != nil {
		return err
	}
	if r.dev.listener != nil {
		r.mute.set(ctx, r.dev, r.mute.muted(ctx), false)
	}
	if cfg.Board == "sim" {
		r.notice = r.screen.Println
		r.screen.Println(fmt.Sprintf("hark: simulation; the last %d replies are saved in %s ([sim] keep_replies); model %s at %s",
			cfg.Sim.KeepReplies, replyDir(cfg.DataDir), cfg.Ollama.Model, cfg.Ollama.Host))
		r.screen.Println("      Enter = button, /stop = long press, /quit or Ctrl-D = leave")
	}
	return nil
}

// reply answers a voice turn through the box, and shows the hint on
// reaching a model once.
func (r *running) reply(ctx context.Context, q pipeline.Query, say func(string)) (pipeline.Outcome, error) {
	_, followUp, err := r.b.answer(ctx, replyQuery(q), say)
	if h := r.b.modelHint(err); h != "" && r.notice != nil {
		r.hinted.Do(func() { r.notice("hint: " + h) })
	}
	return pipeline.Outcome{FollowUp: followUp}, err
}

// replyQuery is a voice turn's query for the reply engine.
func replyQuery(q pipeline.Query) reply.Query { return reply.Query{Text: q.Text, Language: q.Language} }

// say says text outside a turn: the storage notice, the gestures' lines.
func (r *running) say(ctx context.Context, text string) {
	pipeline.Announce(ctx, r.synth, r.dev.speaker, text)
}

// daemonLogger is the daemon's log. On a board it goes to standard error
// (the journal). In simulation the terminal is the box's screen, so the log
// goes to hark.log in the data directory and reaches the terminal only
// with --verbose. Either way its last lines are kept for the API.
func daemonLogger(cfg *config.Loaded, o RunOptions, screen *sim.Screen, tail *control.LogTail, level *slog.LevelVar) (*slog.Logger, func() error, error) {
	opts := &slog.HandlerOptions{Level: level}
	if cfg.Board != "sim" {
		return slog.New(slog.NewTextHandler(io.MultiWriter(o.Stderr, tail), opts)), func() error { return nil }, nil
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("box: data directory: %w", err)
	}
	path := filepath.Join(cfg.DataDir, "hark.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("box: log file: %w", err)
	}
	w := io.Writer(io.MultiWriter(f, tail))
	if o.Verbose {
		w = io.MultiWriter(f, tail, screen)
	} else {
		screen.Println("log: " + path + " (--verbose shows it here)")
	}
	return slog.New(slog.NewTextHandler(w, opts)), f.Close, nil
}
