package box

import (
	"context"
	"errors"
	"net/netip"
	"sync"
	"time"

	"github.com/harkbox/hark/device/clock"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/notify"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/gpio/gesture"
	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/locale/intent"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/reply/alert"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/storage"
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
	wg.Go(func() { r.watchStore(octx) })
	ctlFeed := r.p.Subscribe(4)
	wg.Go(func() { status.Follow(octx, ctlFeed) })
	up := newUpdates(b.cfg, b.version, status, r.log)
	up.loc = b.location
	defer up.close()
	lv := &live{level: r.level, restart: func() { reset(ErrRestart) }, pipe: r.p, earcons: dev.earcons != (pipeline.Earcons{}) || b.cfg.Board != "sim"}
	if e, ok := b.answerer.(engineAnswerer); ok {
		lv.persona = e.engine.SetPersona
	}
	lv.zone = func(ctx context.Context, loc *time.Location) { r.setLocation(ctx, loc, pg) }
	lv.voice = liveVoice(r.synth)
	lv.rename = func(name, room string) { pg.rename(name, room, r.log) }
	api := b.api(status, r.tail, pg, lv, up)
	if r.synth != nil {
		api.Voice = voiceResource{r.synth}
	}
	wg.Go(func() { r.serveWeb(octx, api, pg) })
	wg.Go(func() {
		if err := control.Serve(octx, b.cfg.ControlSocket, control.Handler(api), r.log); err != nil {
			r.log.Warn("no API socket: the hark commands cannot reach the running box", "err", err)
		}
	})
	r.upkeep(octx, &wg, status)
	r.keepTime(octx, &wg)
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
	if r.dev.lights != nil {
		f := r.p.Subscribe(256)
		wg.Go(func() { r.dev.lights.Follow(ctx, f) })
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
		Storage:   storageCheck(b.db),
		Full:      b.db.Writable,
		Mic:       mic,
		Listening: r.dev.listening,
		Devices:   r.dev.faults,
		Settings:  b.settings.err,
		Updating:  updating,
		DataDir:   b.cfg.DataDir,
		Started:   b.started,
		Clock:     b.clockStatus,
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

// What the box says about its storage card: once when it cannot save,
// once when it is back, once at start when damaged files were set aside.
var (
	storeFault     = locale.Key("I can't save anything right now: my storage card has a problem. I'll keep answering and timers will still ring, but anything new will be forgotten if I restart.")
	storeBack      = locale.Key("My storage works again, and I've saved what I was holding.")
	storeRecovered = locale.Key("Some of my memory files were damaged. I set them aside and recovered what I could.")
)

// watchStore follows the store's health until ctx is done: the LEDs show a
// card that cannot save, and the box says so once, plainly, and once more
// when it is back. Timers and answers go on either way.
func (r *running) watchStore(ctx context.Context) {
	db := r.b.db
	holding, recovered := false, false
	for {
		changed := db.Changed()
		h := db.Health()
		if r.dev.display != nil {
			r.dev.display.SetStorageFault(!h.OK())
		}
		switch {
		case h.Condition == storage.Holding && !holding:
			r.tell(ctx, storeFault)
		case h.Condition == storage.Saving && holding:
			r.tell(ctx, storeBack)
		case h.Recovered != nil && !recovered:
			r.tell(ctx, storeRecovered)
		}
		holding, recovered = h.Condition == storage.Holding, h.Recovered != nil
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// tell says a sentence of the box's own outside a turn, and shows it on
// the simulation's screen.
func (r *running) tell(ctx context.Context, key string) {
	say := r.b.Lang().T(key)
	r.log.Warn("telling the household", "said", say) // a failure to say it follows, if any
	if r.notice != nil {
		r.notice(say)
	}
	r.say(ctx, say)
}

// upkeep is what runs beside the turns: the memory report, the engine's
// maintenance and warm-up, the model servers' watch, the MCP servers and
// the alerts.
func (r *running) upkeep(ctx context.Context, wg *sync.WaitGroup, status *health.Box) {
	b := r.b
	r.log.Debug("memory limit", "bytes", limitMemory(b.cfg.MemoryLimitMiB))
	wg.Go(func() { reportMemory(ctx, r.log) })
	if e, ok := b.answerer.(engineAnswerer); ok {
		wg.Go(func() { e.engine.Maintain(ctx, 30*time.Second) })
		wg.Go(func() { b.brain.keepModels(ctx, e.engine.Warm) })
		wg.Go(func() { r.showModel(ctx, status) })
	}
	wg.Go(func() { b.brain.watch(ctx) })
	wg.Go(func() { r.prepareCommands() })
	b.mcp.start(ctx, false) // their tools join the catalogue as each server answers
	wg.Go(func() {
		if err := b.alerts.Run(ctx, ringer{r.p}); err != nil {
			r.log.Error("timers, alarms and reminders stopped", "err", err)
		}
	})
}

// prepareCommands compiles the offline commands' templates for the box's
// language now, so that the first request after a start is not the one
// that waits for them (tens of milliseconds here, several times that on a
// board).
func (r *running) prepareCommands() {
	began := time.Now()
	if _, err := intent.Load(string(r.b.Lang())); err != nil {
		r.log.Warn("the offline commands cannot be understood in the box's language", "lang", r.b.Lang(), "err", err)
		return
	}
	r.log.Info("offline commands ready", "lang", r.b.Lang(), "took", time.Since(began).Round(time.Millisecond))
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
		if r.dev.lights != nil {
			r.dev.lights.SetStarting(st.Phase == llm.Loading)
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}

// keepTime follows the box's clock: a board's steps (NTP setting a clock
// that booted behind), the uptime record on the data partition, and the
// dialogue's times, moved with each step.
func (r *running) keepTime(ctx context.Context, wg *sync.WaitGroup) {
	if sys, ok := r.clock.(*clock.System); ok {
		wg.Go(func() { sys.Run(ctx) })
	}
	wg.Go(func() { clock.Keep(ctx, r.b.cfg.DataDir, r.clock, time.Minute, r.log) })
	wg.Go(func() {
		clock.Follow(ctx, r.clock, func(step time.Duration) {
			r.log.Info("clock", "now", r.clock.Now().In(r.b.location()).Format(time.RFC3339), "synchronised", r.clock.Synced(), "step_ms", step.Milliseconds())
			if step == 0 {
				return
			}
			if n, err := r.b.db.Dialogue().Restamp(ctx, step); err != nil {
				r.log.Warn("the conversation's times were not moved with the clock", "err", err)
			} else if n > 0 {
				r.log.Info("conversation times moved with the clock", "exchanges", n)
			}
		})
	})
}

// serveWeb serves the web page on [web] listen until ctx is done, over
// the daemon's API.
func (r *running) serveWeb(ctx context.Context, api control.API, pg *page) {
	b, cfg := r.b, r.b.cfg.Web
	n := boxNetwork(b.cfg.Board == "sim", b.cfg.DataDir, b.cfg.Sim.NoNetwork, r.log)
	o := web.Options{API: api, Store: b.db.Settings(), Network: n, Sessions: r.sessions,
		Version: b.version, AnyAddress: cfg.AnyAddress, IdleExpiry: cfg.IdleExpiry.Duration, Location: b.location(), Log: r.log}
	var wg sync.WaitGroup
	defer wg.Wait()
	hs := r.hotspot(n, func(addr netip.Addr) string { return joinedPage(cfg, addr) })
	if hs != nil {
		o.Hotspot = hs
		pg.hotspot.Store(hs)
		wg.Go(func() { hs.Run(ctx) })
	}
	ready := func(s *web.Server) {
		pg.srv.Store(s)
		s.SetLocation(b.location()) // a zone set while the page was starting
		if hs != nil {
			serveCaptive(ctx, s, hs.Own().Address.Addr().String(), r.log)
		}
	}
	pageServing{cfg: cfg, dataDir: b.cfg.DataDir, log: r.log, show: r.notice, ready: ready,
		instance: instanceName(b.cfg.Assistant.Name, b.cfg.Assistant.Room), announced: pg.named.Store, claimed: b.setHostName}.serve(ctx, o)
}

// setLocation applies the household's new time zone at once: the box's
// parts, the web page and the log's times.
func (r *running) setLocation(ctx context.Context, loc *time.Location, pg *page) {
	r.b.setLocation(ctx, loc)
	r.zone.Store(loc)
	if s := pg.srv.Load(); s != nil {
		s.SetLocation(loc)
	}
}

// gestures maps the board button for the pipeline: the long press, the
// double-press action and the factory-reset countdown, which calls reset.
func (r *running) gestures(ctx context.Context, out chan<- pipeline.Event, reset context.CancelCauseFunc, pg *page) {
	cfg, dev := r.b.cfg, r.dev
	gesture.Run(ctx, gesture.Options{
		DoubleAction: cfg.Button.DoubleAction,
		FactoryReset: cfg.Button.FactoryReset,
		ToggleMute:   func(ctx context.Context) { r.mute.set(ctx, dev, !dev.listener.Muted(), true) },
		Pending: func(ctx context.Context) bool {
			ap := sayHotspot(ctx, pg.hotspot.Load(), r.b.Lang(), r.say) // the way onto the network first
			return pg.sayCode(ctx, r.b.Lang(), r.say) || ap
		},
		Recover: func(ctx context.Context) { pg.recover(ctx, r.b.Lang(), r.say, r.log) },
		Say:     r.say,
		Lang:    r.b.Lang(),
		Reset:   reset,
		Log:     r.log,
	}, dev.gestures, out)
}

// ringer rings the alert service's alerts on the pipeline.
type ringer struct{ *pipeline.Pipeline }

func (r ringer) Ring(a alert.Alert) { r.Pipeline.Ring(pipelineAlert(a)) }

func (r ringer) Tell(a alert.Alert) { r.Pipeline.Tell(pipelineAlert(a)) }

// pipelineAlert is a as the pipeline rings and tells it.
func pipelineAlert(a alert.Alert) pipeline.Alert {
	return pipeline.Alert{ID: a.ID, Announcement: a.Announcement, Language: a.Language, Missed: a.Missed, MissedAt: a.MissedAt, Stale: a.Stale,
		Done: a.Done, Unheard: a.Unheard, Told: a.Told}
}

var _ alert.Ringer = ringer{}
