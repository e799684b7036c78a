// Package box is the running box as a library: its parts put together from
// the configuration (the store, the model server, the reply engine, the
// commands, the alerts, the mixer, the MCP servers), their lifecycle (Run,
// a restart that applies settings, a factory reset), and one small type per
// /api/v1 resource, each holding only what it uses.
//
// The role is chosen once, when the box is built: Open makes a speaker,
// or a node of the command center when [center] url is set; OpenCenter
// makes the household's command center. cmd/hark is the only importer: it
// loads the configuration, calls in, and prints.
package box

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/clock"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/mixer"
	"github.com/harkbox/hark/internal/owner"
	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/alert"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	ha "github.com/harkbox/hark/reply/command/home"
	"github.com/harkbox/hark/reply/command/weather"
	"github.com/harkbox/hark/reply/schedule"
	"github.com/harkbox/hark/storage"
)

// Options are what the configuration does not say about a box.
type Options struct {
	// Version is the firmware's, for the status, the update agent and the
	// model's device_status.
	Version string
	// Clock is the box's wall clock, which the schedule, the commands and
	// the reply engine read; nil is the computer's (the daemon gives the
	// board's, or the simulation's).
	Clock clock.Source
	// LastAlive is when the box was last known to run before this start
	// (its uptime record); zero when unknown.
	LastAlive time.Time
	// ClockContinues says the clock reads on from the one the uptime
	// record was written on: the same boot.
	ClockContinues bool
	Log            *slog.Logger
	// Once says the box answers one command and closes (a command run
	// without the daemon): its store reads every table whole as it opens
	// (storage.Options.CheckAll), as the re-read a minute later that a
	// running box makes never comes.
	Once bool
}

// Box is a speaker or a node: the store and everything that answers,
// schedules and rings. Open it, Run it (the daemon) or ask its API once
// (a one-shot command), and Close it.
type Box struct {
	cfg     *config.Loaded
	res     config.Resolved
	version string
	log     *slog.Logger
	started time.Time
	clock   clock.Source
	// zone is the household's time zone: res.Location until the page
	// sets another (setLocation).
	zone atomic.Pointer[time.Location]

	db       *storage.DB
	brain    *brain
	commands *command.Registry
	alerts   *alert.Service
	mixer    *mixer.Mixer
	mcp      *mcpServers
	// answerer answers every turn: the box's own engine, or the center's
	// through the node, as the configuration chose once.
	answerer answerer
	closers  []func() // what the box's API opened
	// busy counts a turn being answered until the func it returns is
	// called, while the daemon runs (its status's Begin); nil otherwise.
	busy  func() (end func())
	turns *turnLog // the last turns, for the page's live view
	// named is the host name mDNS claimed for the page; nil before.
	named atomic.Pointer[string]
	// settings is what of the household's settings did not load.
	settings *settingsFault
}

// Open opens the data directory's store and connects the parts: a node of
// the center in [center] url when one is set, a speaker otherwise.
func Open(cfg *config.Loaded, res config.Resolved, o Options) (*Box, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	db, err := openStoreFor(cfg, o.Log, o.Once)
	if err != nil {
		return nil, err
	}
	if o.Clock == nil {
		o.Clock = systemClock(cfg, o.Log)
	}
	b := &Box{cfg: cfg, res: res, version: o.Version, log: o.Log, started: time.Now(), clock: o.Clock, db: db, settings: &settingsFault{problems: cfg.SettingsProblems}}
	b.zone.Store(res.Location)
	b.turns = newTurnLog(db.Dialogue(), b.log.Warn)
	if err := b.wire(o.LastAlive, o.ClockContinues); err != nil {
		db.Close()
		return nil, err
	}
	return b, nil
}

// openStore opens the data directory's store.
func openStore(cfg *config.Loaded, log *slog.Logger) (*storage.DB, error) {
	return openStoreFor(cfg, log, false)
}

// openStoreFor opens the data directory's store; once, for one command
// (see Options.Once).
func openStoreFor(cfg *config.Loaded, log *slog.Logger, once bool) (*storage.DB, error) {
	if err := dataDir(cfg.DataDir); errors.Is(err, owner.ErrNotPrivate) {
		return nil, err
	} else if err != nil {
		// A card read-only or not there: the store holds in memory.
		log.Warn("no data directory", "err", err)
	}
	reserve := int64(cfg.Storage.ReserveMiB) << 20
	db, err := storage.Open(cfg.DataDir, storage.Options{Profile: storage.Profile(cfg.Storage.Profile), Log: log, Floor: reserve, Ballast: 2 * reserve,
		Mount: cfg.Storage.Mount, CheckAll: once})
	if errors.Is(err, storage.ErrLocked) {
		return nil, fmt.Errorf("%w (%s is held by `hark run`, or by a hark command still running: stop it, wait for it to end, or pass another --data)", err, cfg.DataDir)
	}
	return db, err
}

// systemClock is the computer's clock: a board's is set once NTP has set
// it; a desktop's (the simulation, a USB board) always counts as set.
func systemClock(cfg *config.Loaded, log *slog.Logger) *clock.System {
	return clock.NewSystem(clock.SystemOptions{Trust: cfg.Board == "sim" || cfg.Board == "usb", Log: log})
}

// wire connects the model server, the schedule, the commands and the reply
// engine, and chooses the role.
func (b *Box) wire(lastAlive time.Time, continues bool) error {
	cfg := b.cfg
	var err error
	if b.brain, err = openBrain(cfg, b.res, b.log); err != nil {
		return err
	}
	b.alerts, err = alert.New(alert.Options{
		Schedule: schedule.Options{Store: b.db.Schedule(), Clock: b.clock, Location: b.res.Location, LastAlive: lastAlive, Continues: continues, Log: b.log},
		Missed:   b.db.Missed(),
	})
	if err != nil {
		return err
	}
	b.mixer = mixer.New(b.db.Settings(), cfg.Audio.Volume)
	secrets := b.db.Secrets(cfg.Commands.SecretsKey)
	resealFacts(context.Background(), b.db.SealedFacts(secrets), b.log)
	parts := b.parts()
	b.commands = command.NewRegistry(command.Options{
		Secrets:      secrets,
		Now:          b.clock.Now,
		Synced:       b.clock.Synced,
		Location:     b.res.Location,
		RefineWindow: cfg.Commands.RefineWindow.Duration,
		Lists:        parts.house, // the templates' names, areas and floors
		Area:         b.room(),
		Log:          b.log,
	})
	if err := b.commands.Register(catalogue.commands(onBox, parts)...); err != nil {
		return err
	}
	if b.mcp, err = newMCPServers(b.res.MCP, cfg.MCP.FirstTry.Duration, b.commands, secrets, filepath.Join(cfg.DataDir, "mcp-state.json"), b.log); err != nil {
		return err
	}
	if cfg.Center.URL != "" {
		b.answerer, err = b.nodeAnswerer()
		return err
	}
	o := b.brain.options()
	// A voice turn's exchange is kept once the turn says how much of the
	// reply was heard.
	o.Commands, o.Dialogue, o.Diary, o.Facts = b.commands, heardDialogue{b.db.Dialogue()}, b.db.Diary(), b.db.Facts()
	o.Place, o.Location, o.Now = cfg.Assistant.Place, b.res.Location, b.clock.Now
	if cfg.Assistant.Room != "" {
		o.Place = nodePlace(cfg.Assistant.Room, cfg.Assistant.Place)
	}
	engine, err := reply.New(o)
	if err != nil {
		return err
	}
	b.answerer = engineAnswerer{engine}
	return nil
}

// room is the room the speaker stands in: [center] room on a node, else
// [assistant] room. It is the Home Assistant area "turn on the lights"
// means, and the room the speaker's timers are set in.
func (b *Box) room() string {
	if b.cfg.Center.Room != "" {
		return b.cfg.Center.Room
	}
	return b.cfg.Assistant.Room
}

// Lang is the box's own language: what it says before it has heard anyone
// (the factory-reset countdown, a full disk, the web page's code).
func (b *Box) Lang() locale.Lang { return boxLang(b.cfg.Whisper.Language) }

// boxLang is the language [whisper] language names; "auto" or a language
// without offline phrases is English.
func boxLang(whisper string) locale.Lang {
	l, _ := locale.Of(whisper)
	return l
}

// CatchUpDiary writes the diary entries earlier conversations left
// unwritten (the daemon was stopped, the model server was down), until
// none is left, one fails (the engine logs it), ctx is done, or about d
// has passed: then the model call under way is let finish while the
// server works on it, and no other begins (reply.Engine.CatchUpFor). A
// one-shot command that opened the store itself calls it after its
// answer, before Close; the daemon writes them in the background. A node
// writes none: its conversations are its center's.
func (b *Box) CatchUpDiary(ctx context.Context, d time.Duration) {
	e, ok := b.answerer.(engineAnswerer)
	if !ok {
		return
	}
	if err := e.engine.CatchUpFor(ctx, d); err != nil && (ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)) {
		b.log.Info("diary entries left for later: no time to write them now", "err", err)
	}
}

// Close stops the MCP servers, waits for diary entries being written,
// saves the model rates learned, then closes the store.
func (b *Box) Close() error {
	for _, c := range b.closers {
		c()
	}
	b.mcp.stop()
	b.answerer.close()
	b.brain.close()
	lost := b.notSaved()
	return errors.Join(lost, b.db.Close())
}

// Recovered is what the store found damaged and set aside as it opened;
// nil when nothing was.
func (b *Box) Recovered() *storage.Recovery { return b.db.Health().Recovered }

// ErrNotSaved reports, from Close, changes the store never took: held in
// memory while it could not save, they are lost with the process.
var ErrNotSaved = errors.New("box: not saved")

// notSaved says what Close loses of what the household told or set: the
// facts, secrets and settings the store holds in memory and the timers,
// alarms and reminders it refused; nil for none. The record of the talk
// alone (a question asked) is ErrTalkNotKept.
func (b *Box) notSaved() error {
	h := b.db.Health()
	why := h.Why()
	if why == "" {
		why = "the store refused them"
	}
	n := h.Told + len(b.alerts.Unsaved())
	switch {
	case n > 0:
		return fmt.Errorf("%w: %d change(s) made now are lost: %s", ErrNotSaved, n, why)
	case h.Held > 0:
		return fmt.Errorf("%w: %s", ErrTalkNotKept, why)
	}
	return nil
}

// ErrTalkNotKept reports, from Close, that only the record of the talk
// (the conversation, the diary) could not be saved: nothing the
// household told or set is lost, so a command warns and does not fail.
var ErrTalkNotKept = errors.New("box: the conversation is not kept")

// clockStatus is the box's clock as the status shows it.
func (b *Box) clockStatus() control.Clock {
	loc := b.location()
	return control.Clock{Now: b.clock.Now().In(loc), Zone: loc.String(), Synced: b.clock.Synced()}
}

// location is the household's time zone now.
func (b *Box) location() *time.Location { return b.zone.Load() }

// setLocation makes loc the household's time zone at once for the parts
// that tell or read the time: the alarms (each moves to the same hour in
// the new zone), the commands, and the replies (the engine's prompt, or
// the zone a node tells its center).
func (b *Box) setLocation(ctx context.Context, loc *time.Location) {
	b.zone.Store(loc)
	b.alerts.SetLocation(ctx, loc)
	b.commands.SetLocation(loc)
	switch a := b.answerer.(type) {
	case engineAnswerer:
		a.engine.SetLocation(loc)
	case nodeAnswerer:
		a.node.SetTimezone(loc.String())
	}
}

// uptime is how long the box has been open.
func (b *Box) uptime() time.Duration { return time.Since(b.started) }

// parts are what the box's commands act on.
func (b *Box) parts() parts {
	cfg := b.cfg
	secrets := b.db.Secrets(cfg.Commands.SecretsKey)
	wc := newWeather(cfg)
	place := &home{settings: b.db.Settings(), client: wc, name: cfg.Weather.Location}
	house := ha.NewClient(secrets)
	return parts{
		builtin: builtin.Deps{Schedule: b.alerts, Alerts: b.alerts, Mixer: b.mixer, Memory: b.db.SealedFacts(secrets), Diary: b.db.Diary(), Status: deviceStatus{b},
			Setup: setUp{house: house, home: place}},
		weather: wc,
		home:    place,
		house:   house,
		lookup:  lookupOptions(cfg, secrets),
	}
}

// newWeather is the weather service the configuration names.
func newWeather(cfg *config.Loaded) *weather.Client {
	return weather.New(weather.Options{ForecastURL: cfg.Weather.ForecastURL, GeocodeURL: cfg.Weather.GeocodeURL, Units: cfg.Weather.Units})
}

// dataDir makes the data directory, readable by this user only, or checks
// the one there is: this user's, writable by no one else (a directory
// made beforehand by someone else could hold their key or a link for the
// log).
func dataDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("box: data directory: %w", err)
	}
	if err := owner.CheckDir(dir); err != nil {
		return fmt.Errorf("box: data directory: %w", err)
	}
	return nil
}
