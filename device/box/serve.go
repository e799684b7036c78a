package box

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/notify"
	"github.com/harkbox/hark/device/sim"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/gpio/gesture"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/reply/alert"
	"github.com/harkbox/hark/reply/llm"
)

// serve runs the pipeline and everything that follows it (the LEDs, the
// watchdog, the self-test, the API socket, the web page, the alerts, the
// model's upkeep) until ctx is done, a restart or a factory reset.
func (r *running) serve(ctx context.Context) error {
	b, dev := r.b, r.dev
	rctx, reset := context.WithCancelCause(ctx)
	defer reset(nil)
	octx, stopObservers := context.WithCancel(rctx)
	var wg sync.WaitGroup
	pg := &page{listen: b.cfg.Web.Listen}
	events := dev.events
	if dev.gestures != nil {
		ev := make(chan pipeline.Event)
		events = ev
		wg.Go(func() { r.gestures(octx, ev, reset, pg) })
	}
	r.follow(octx, &wg)
	status := r.health()
	b.busy = status.Begin // every turn the box answers keeps it from idle
	defer func() { b.busy = nil }()
	wg.Go(func() { notify.Watchdog(octx, status.Alive, r.log) })
	wg.Go(func() { r.watchStorage(octx, status) })
	ctlFeed := r.p.Subscribe(4)
	wg.Go(func() { status.Follow(octx, ctlFeed) })
	up := newUpdates(b.cfg, b.version, status, r.log)
	defer up.close()
	api := b.api(status, r.tail, pg, &live{level: r.level, restart: func() { reset(ErrRestart) }}, up)
	wg.Go(func() { r.serveWeb(octx, api, pg) })
	wg.Go(func() {
		if err := control.Serve(octx, b.cfg.ControlSocket, control.Handler(api), r.log); err != nil {
			r.log.Warn("no API socket: the hark commands cannot reach the running box", "err", err)
		}
	})
	r.upkeep(octx, &wg, status)
	for _, t := range dev.tasks {
		wg.Go(func() { t(octx) })
	}
	err := r.p.Run(rctx, events)
	stopObservers()
	wg.Wait()
	switch cause := context.Cause(rctx); {
	case errors.Is(cause, ErrRestart):
		return ErrRestart
	case errors.Is(cause, gesture.ErrFactoryReset):
		return gesture.ErrFactoryReset
	}
	r.log.Info("stopped")
	return err
}

// follow shows the pipeline's states on the LEDs, the terminal and
// systemd, until ctx is done.
func (r *running) follow(ctx context.Context, wg *sync.WaitGroup) {
	if r.dev.display != nil {
		f := r.p.Subscribe(16)
		wg.Go(func() { r.dev.display.Follow(ctx, f) })
	}
	if r.dev.onScreen {
		f := r.p.Subscribe(256)
		wg.Go(func() { sim.Display(ctx, f, r.screen) })
	}
	f := r.p.Subscribe(4)
	var detail func() string
	if _, ok := r.b.answerer.(engineAnswerer); ok {
		detail = func() string { return "model " + r.b.brain.readiness().String() }
	}
	wg.Go(func() { notify.Run(ctx, f, detail, r.log) })
}

// health is the box's self-test and status.
func (r *running) health() *health.Box {
	var mic health.Mic
	if r.dev.listener != nil {
		mic = r.dev.listener
	}
	var updating func(bool)
	if r.dev.display != nil {
		updating = r.dev.display.SetUpdating
	}
	b := r.b
	var model func() *control.ModelStatus
	var queue func() *control.QueueStatus
	if _, ok := b.answerer.(engineAnswerer); ok {
		model, queue = b.brain.readiness, b.brain.queueStatus
	}
	return health.New(health.Options{
		Model:     model,
		Queue:     queue,
		Version:   b.version,
		Storage:   storageCheck(b.db.Settings()),
		Full:      b.db.Writable,
		Mic:       mic,
		Listening: r.dev.listening,
		Updating:  updating,
		DataDir:   b.cfg.DataDir,
		Started:   b.started,
		Links:     b.links,
		Log:       r.log,
	})
}

// watchStorage says once when the storage fills: the box keeps answering
// and ringing; it only cannot remember anything new.
func (r *running) watchStorage(ctx context.Context, status *health.Box) {
	status.WatchStorage(ctx, 10*time.Second, func(full bool, why error) {
		if r.dev.display != nil {
			r.dev.display.SetFull(full)
		}
		if !full {
			r.log.Info("storage has room again")
			return
		}
		say := r.b.Lang().T("My storage is full, so I can't remember anything new. Timers already set will still ring.")
		if r.notice != nil {
			r.notice(say)
		}
		r.log.Error("storage is full", "err", why)
		r.say(ctx, say)
	})
}

// upkeep is what runs beside the turns: the memory report, the engine's
// maintenance and warm-up, the model servers' watch, the MCP servers and
// the alerts.
func (r *running) upkeep(ctx context.Context, wg *sync.WaitGroup, status *health.Box) {
	b := r.b
	wg.Go(func() { reportMemory(ctx, r.log) })
	if e, ok := b.answerer.(engineAnswerer); ok {
		wg.Go(func() { e.engine.Maintain(ctx, 30*time.Second) })
		wg.Go(func() { b.brain.keepModels(ctx, e.engine.Warm) })
		wg.Go(func() { r.showModel(ctx, status) })
	}
	wg.Go(func() { b.brain.watch(ctx) })
	b.mcp.start(ctx, 0) // their tools join the catalogue as each server answers
	wg.Go(func() {
		if err := b.alerts.Run(ctx, ringer{r.p}); err != nil {
			r.log.Error("timers, alarms and reminders stopped", "err", err)
		}
	})
}

// showModel shows the model's loading on the LEDs, and chimes the first
// time it is ready after the box started (when [audio] earcon_ready is on
// and nobody is being answered), until ctx is done.
func (r *running) showModel(ctx context.Context, status *health.Box) {
	k := r.b.brain.keeper
	for {
		changed := k.Changed()
		st := k.State()
		if st.Phase == llm.Ready && !r.chimed {
			r.chimed = true
			if r.dev.earcons.Ready && status.Idle() {
				if err := pipeline.Chime(ctx, r.dev.speaker); err != nil {
					r.log.Debug("ready chime not played", "err", err)
				}
			}
		}
		if r.dev.display != nil {
			r.dev.display.SetStarting(st.Phase == llm.Loading)
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// serveWeb serves the web page on [web] listen until ctx is done, over
// the daemon's API.
func (r *running) serveWeb(ctx context.Context, api control.API, pg *page) {
	b, cfg := r.b, r.b.cfg.Web
	o := web.Options{API: api, Store: b.db.Settings(), Network: boxNetwork(b.cfg.Board == "sim", b.cfg.DataDir, r.log), Sessions: r.sessions,
		Version: b.version, AnyAddress: cfg.AnyAddress, IdleExpiry: cfg.IdleExpiry.Duration, Log: r.log}
	servePage(ctx, r.log, cfg.Listen, o, r.notice, func(s *web.Server) { pg.srv.Store(s) })
}

// gestures maps the board button for the pipeline: the long press, the
// double-press action and the factory-reset countdown, which calls reset.
func (r *running) gestures(ctx context.Context, out chan<- pipeline.Event, reset context.CancelCauseFunc, pg *page) {
	cfg, dev := r.b.cfg, r.dev
	gesture.Run(ctx, gesture.Options{
		DoubleAction: cfg.Button.DoubleAction,
		FactoryReset: cfg.Button.FactoryReset,
		ToggleMute:   func(ctx context.Context) { r.mute.set(ctx, dev, !dev.listener.Muted(), true) },
		Pending:      func(ctx context.Context) bool { return pg.sayCode(ctx, r.b.Lang(), r.say) },
		Say:          r.say,
		Lang:         r.b.Lang(),
		Reset:        reset,
		Log:          r.log,
	}, dev.gestures, out)
}

// ringer rings the alert service's alerts on the pipeline.
type ringer struct{ *pipeline.Pipeline }

func (r ringer) Ring(a alert.Alert) { r.Pipeline.Ring(pipeline.Alert(a)) }

var _ alert.Ringer = ringer{}
