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
	"sync/atomic"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/clock"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/sim"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/gpio/gesture"
	"github.com/harkbox/hark/internal/owner"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/voice"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/redact"
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
	// The clock is the board's: it runs on across restarts.
	if cfg.Board == "sim" {
		d.sim = clock.NewSim(res.BootClock)
		d.clock = d.sim
	} else {
		d.clock = systemClock(cfg, nil)
	}
	d.zone.Store(res.Location)
	log, closeLog, err := daemonLogger(cfg, o, screen, d.tail, d.level, logTime(d.clock, &d.zone))
	if err != nil {
		return err
	}
	defer closeLog()
	d.log = log
	// The web page's logged-in browsers stay logged in across a restart
	// (a setting applied), not across a factory reset.
	d.sessions = &web.Sessions{}
	if sys, ok := d.clock.(*clock.System); ok {
		sys.SetLog(log)
	}
	// reload reads the settings anew: at a restart, and after a factory
	// reset, whose data directory held the page's.
	reload := func() (err error) {
		if cfg, res, err = o.Load(); err != nil {
			return err
		}
		d.level.UnmarshalText([]byte(cfg.Log.Level))
		d.zone.Store(res.Location)
		return nil
	}
	if resetCutShort(cfg) {
		log.Warn("a factory reset was cut short; finishing it", "data_dir", cfg.DataDir)
		if err := factoryReset(cfg); err != nil {
			return fmt.Errorf("factory reset: %w", err)
		}
		if err := reload(); err != nil {
			return err
		}
	}
	for {
		err := d.run(ctx, cfg, res)
		switch {
		case errors.Is(err, ErrRestart):
			log.Info("starting again with the settings kept")
		case errors.Is(err, gesture.ErrFactoryReset):
			if err := factoryReset(cfg); err != nil {
				return fmt.Errorf("factory reset: %w", err)
			}
			d.sessions = &web.Sessions{}
			log.Warn("factory reset: everything the box remembered was erased; starting again", "data_dir", cfg.DataDir)
		default:
			return err
		}
		if err := reload(); err != nil {
			return fmt.Errorf("start again: %w", err)
		}
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
	clock  clock.Source
	sim    *clock.Sim                    // the simulated board's clock; nil on a board
	zone   atomic.Pointer[time.Location] // the household's, as last configured
}

// running is one run of the box: its parts, devices and pipeline.
type running struct {
	*daemon
	b       *Box
	dev     *devices
	mute    *muter
	synth   pipeline.Synthesizer
	p       *pipeline.Pipeline
	notice  func(string) // a line for the person at the terminal; nil on a board
	hinted  sync.Once    // the hint on reaching a model is shown once
	closers []func() error
}

// run runs the box once, until ctx is done, a restart or a factory reset.
func (d *daemon) run(ctx context.Context, cfg *config.Loaded, res config.Resolved) error {
	rec, err := clock.Load(cfg.DataDir)
	if err != nil {
		d.log.Warn("no uptime record: what came due while the box was off is rung without saying so", "err", err)
	}
	b, err := Open(cfg, res, Options{Version: d.o.Version, Clock: d.clock, LastAlive: rec.LastAlive(), ClockContinues: rec.Continues(d.clock), Log: d.log})
	if err != nil {
		return err
	}
	defer b.Close()
	for _, p := range cfg.SettingsProblems {
		d.log.Warn("a setting did not load: it is left out, at its value without the settings file", "file", p.File, "line", p.Line, "key", p.Key, "problem", p.Problem)
		if cfg.Board == "sim" {
			d.screen.Println("settings: " + p.String() + " (left out)") // the log is not on the screen
		}
	}
	if id, created, err := ensureIdentity(cfg.DataDir); err != nil {
		d.log.Warn("no device identity", "err", err)
	} else if created {
		d.log.Info("first start: this box's identity is made", "device", id)
	}
	sp := openSpeech(cfg, d.log)
	defer sp.close()
	r := &running{daemon: d, b: b, mute: &muter{settings: b.db.Settings(), log: d.log}}
	kit := deviceKit{cfg: cfg, log: d.log, mixer: b.mixer, mute: r.mute, in: d.o.Stdin, screen: d.screen, speech: sp, clock: d.sim, loc: b.location}
	if cfg.Board == "sim" {
		r.dev, err = kit.openSim()
	} else {
		r.dev, err = kit.openBoard()
	}
	if err != nil {
		return err
	}
	defer r.dev.close()
	defer func() {
		for _, c := range r.closers {
			c()
		}
	}()
	if err := r.pipeline(ctx); err != nil {
		return err
	}
	return r.serve(ctx)
}

// pipeline makes the turn state machine over the devices.
func (r *running) pipeline(ctx context.Context) error {
	cfg := r.b.cfg
	synth, why := synthesizer(cfg, r.log)
	if w, ok := synth.(interface {
		Warm()
		Close() error
	}); ok {
		w.Warm() // a voice server that is down is known before the first reply
		r.closers = append(r.closers, w.Close)
	}
	if why != "" {
		r.log.Warn(why)
		if cfg.Board == "sim" {
			r.screen.Println(why) // the log is not on the screen
		}
	}
	r.synth = synth
	var err error
	r.p, err = pipeline.New(pipeline.Options{
		// The offline core judges whether the words so far are a whole
		// request, so the utterance can end sooner.
		Speculate:   cfg.Listen.Speculate,
		Completer:   r.b.commands,
		Lang:        r.b.Lang(),
		Decide:      r.b.decideSpoken,
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
		Turns:       func(t voice.Turn) { r.b.turns.voice(ctx, t) },
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
		r.screen.Println("      Enter = button, /stop = long press, /clock sync or /clock <RFC 3339> = the board's clock, /quit or Ctrl-D = leave")
		if !r.b.clock.Synced() {
			line, _ := r.b.clock.(*clock.Sim).Command("", r.b.location())
			r.screen.Println(line + " ([sim] boot_clock; /clock sync sets it as NTP would)")
		}
	}
	return nil
}

// reply answers a voice turn through the box, and shows the hint on
// reaching a model once.
func (r *running) reply(ctx context.Context, q pipeline.Query, say func(string)) (pipeline.Outcome, error) {
	held := &heldExchange{}
	res, followUp, err := r.b.answer(holding(ctx, held), replyQuery(q), say)
	r.b.turns.replied(q.Turn, res, held)
	if h := r.b.modelHint(err); h != "" && r.notice != nil {
		r.hinted.Do(func() { r.notice("hint: " + h) })
	}
	return pipeline.Outcome{FollowUp: followUp}, err
}

// replyQuery is a voice turn's query for the reply engine.
func replyQuery(q pipeline.Query) reply.Query { return reply.Query{Text: q.Text, Language: q.Language} }

// say says text outside a turn: the storage notice, the gestures' lines.
// A sentence the speaker could not play is logged, without its words
// (one is the access point's password).
func (r *running) say(ctx context.Context, text string) {
	if err := pipeline.Announce(ctx, r.synth, r.dev.speaker, text); err != nil && ctx.Err() == nil {
		r.log.Warn("the box could not say a sentence of its own", "err", err)
	}
}

// logTime stamps the log's lines on the box's clock, in the household's
// zone (labelled with its offset): the time a person reads in hark logs and
// on the page is the box's own.
func logTime(c clock.Source, zone *atomic.Pointer[time.Location]) func([]string, slog.Attr) slog.Attr {
	return func(groups []string, a slog.Attr) slog.Attr {
		if a.Key == slog.TimeKey && len(groups) == 0 {
			a.Value = slog.TimeValue(c.Now().In(zone.Load()))
		}
		return a
	}
}

// daemonLogger is the daemon's log. On a board it goes to standard error
// (the journal). In simulation the terminal is the box's screen, so the log
// goes to hark.log in the data directory and reaches the terminal only
// with --verbose. Either way its last lines are kept for the API. No line
// keeps the password of an address (redact.LogHandler): a configured URL
// with one, quoted by an error, is no one's to read in the log.
func daemonLogger(cfg *config.Loaded, o RunOptions, screen *sim.Screen, tail *control.LogTail, level *slog.LevelVar, stamp func(groups []string, a slog.Attr) slog.Attr) (*slog.Logger, func() error, error) {
	opts := &slog.HandlerOptions{Level: level, ReplaceAttr: stamp}
	if cfg.Board != "sim" {
		return hidingLogger(io.MultiWriter(o.Stderr, tail), opts), func() error { return nil }, nil
	}
	path := filepath.Join(cfg.DataDir, "hark.log")
	err := dataDir(cfg.DataDir)
	var f *os.File
	if err == nil {
		f, err = owner.OpenAppend(path)
	}
	if errors.Is(err, owner.ErrNotPrivate) {
		return nil, nil, err // someone else's directory, or a link for the log
	}
	if err != nil {
		// The data directory on a card that cannot be written: the box
		// runs on, its log on the screen.
		screen.Println("log: " + path + " cannot be written (" + err.Error() + "); the log goes here")
		return hidingLogger(io.MultiWriter(tail, screen), opts), func() error { return nil }, nil
	}
	w := io.Writer(io.MultiWriter(f, tail))
	if o.Verbose {
		w = io.MultiWriter(f, tail, screen)
	} else {
		screen.Println("log: " + path + " (--verbose shows it here)")
	}
	return hidingLogger(w, opts), f.Close, nil
}

// hidingLogger writes text lines to w without the passwords of addresses.
func hidingLogger(w io.Writer, opts *slog.HandlerOptions) *slog.Logger {
	return slog.New(redact.NewLogHandler(slog.NewTextHandler(w, opts)))
}
