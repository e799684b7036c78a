package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command/lookup"
	"github.com/harkbox/hark/reply/command/mcp"

	ha "github.com/harkbox/hark/reply/command/home"

	"github.com/harkbox/hark/cmd/hark/internal/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/mixer"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/espeak"
	"github.com/harkbox/hark/pipeline/guard"
	"github.com/harkbox/hark/pipeline/whisper"
	"github.com/harkbox/hark/pipeline/wyoming"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/alert"
	"github.com/harkbox/hark/reply/center"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/command/weather"
	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/router"
	"github.com/harkbox/hark/storage"
)

// app is Hark's parts put together from the configuration. This file is the
// one place that knows which concrete type fills each interface.
type app struct {
	cfg      *config.Loaded
	res      config.Resolved
	log      *slog.Logger
	db       *storage.DB
	model    replyModel
	engine   *reply.Engine
	brain    *brain
	node     *center.Node // the command center this box asks, when it is a node
	house    *ha.Client   // Home Assistant, when HA_URL and HA_TOKEN are set
	commands *command.Registry
	// mcp keeps the MCP servers' tools in commands once started; mcpStop
	// closes them.
	mcp      *mcp.Hub
	mcpOnce  sync.Once
	mcpStop  context.CancelFunc
	web      atomic.Pointer[web.Server] // the web page, once the daemon serves it
	restart  func()                     // starts the daemon again; nil without one
	sessions *web.Sessions              // the web page's logged-in browsers, kept across a restart
	logLevel *slog.LevelVar             // the daemon's log level; nil in a one-shot command
	updates  updates                    // the daemon's firmware install
	// applied are the settings applied without a restart, key → value.
	appliedMu sync.Mutex
	applied   map[string]string
	alerts    *alert.Service
	mixer     *mixer.Mixer
	started   time.Time
	// notice shows the user one line outside the conversation (the
	// simulation's hint on reaching a model); nil elsewhere.
	notice func(string)
	hinted sync.Once // the hint on reaching a model is shown once
}

// newLogger writes text logs to w at the configured level, or at least at
// floor when that is higher.
func newLogger(w io.Writer, level string, floor slog.Level) *slog.Logger {
	var l slog.Level
	l.UnmarshalText([]byte(level)) // checked by config.Resolve
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: max(l, floor)}))
}

// openDB opens the data directory's store.
func openDB(cfg *config.Loaded, log *slog.Logger) (*storage.DB, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	reserve := int64(cfg.Storage.ReserveMiB) << 20
	db, err := storage.Open(cfg.DataDir, storage.Options{Profile: storage.Profile(cfg.Storage.Profile), Log: log, Floor: reserve, Ballast: 2 * reserve})
	if errors.Is(err, storage.ErrLocked) {
		return nil, fmt.Errorf("%w (is `hark run` using %s? stop it or pass another --data)", err, cfg.DataDir)
	}
	return db, err
}

// openApp opens the store, the schedule and the commands, and connects the
// reply engine to the model server.
func openApp(cfg *config.Loaded, res config.Resolved, log *slog.Logger) (*app, error) {
	db, err := openDB(cfg, log)
	if err != nil {
		return nil, err
	}
	a := &app{cfg: cfg, res: res, log: log, db: db, started: time.Now()}
	if err := a.wire(); err != nil {
		db.Close()
		return nil, err
	}
	return a, nil
}

// openOneShot loads the configuration and opens the app for a command that
// answers once and exits: routine Info lines would drown its output, so
// only warnings and errors are logged.
func openOneShot(e env, g *globals) (*app, error) {
	cfg, res, err := loadConfig(e, g)
	if err != nil {
		return nil, err
	}
	return openApp(cfg, res, newLogger(e.stderr, cfg.Log.Level, slog.LevelWarn))
}

func (a *app) wire() error {
	cfg, log := a.cfg, a.log
	var err error
	if a.brain, err = openBrain(cfg, a.res, log); err != nil {
		return err
	}
	a.model = a.brain.model
	if a.alerts, err = alert.New(alert.Options{Store: a.db.Schedule(), Location: a.res.Location, Log: log}); err != nil {
		return err
	}
	a.mixer = mixer.New(a.db.Settings(), cfg.Audio.Volume)
	a.house = ha.NewClient(a.db.Secrets(cfg.Commands.SecretsKey))
	a.commands = command.NewRegistry(command.Options{
		Secrets:      a.db.Secrets(cfg.Commands.SecretsKey),
		Location:     a.res.Location,
		RefineWindow: cfg.Commands.RefineWindow.Duration,
		Lists:        a.house,
		Area:         cfg.Center.Room,
		Log:          log,
	})
	wc := weather.New(weather.Options{ForecastURL: cfg.Weather.ForecastURL, GeocodeURL: cfg.Weather.GeocodeURL, Units: cfg.Weather.Units})
	cmds := allCommands(builtin.Deps{Schedule: a.alerts, Alerts: a.alerts, Mixer: a.mixer, Memory: a.db.SealedFacts(a.db.Secrets(cfg.Commands.SecretsKey)), Diary: a.db.Diary(), Status: a},
		append([]*command.Command{weather.Command(wc, &home{settings: a.db.Settings(), client: wc, name: cfg.Weather.Location}),
			ha.Control(a.house), ha.State(a.house), ha.Service(a.house), ha.Query(a.house)}, lookups(cfg, a.db.Secrets(cfg.Commands.SecretsKey))...)...)
	if err := a.commands.Register(cmds...); err != nil {
		return err
	}
	if a.mcp, err = mcp.New(mcp.Options{Servers: a.res.MCP, Catalogue: a.commands, Secrets: a.db.Secrets(cfg.Commands.SecretsKey), Log: log}); err != nil {
		return err
	}
	o := a.brain.options()
	o.Commands, o.Dialogue, o.Diary, o.Facts = a.commands, a.db.Dialogue(), a.db.Diary(), a.db.Facts()
	o.Place, o.Location = cfg.Assistant.Place, a.res.Location
	if a.engine, err = reply.New(o); err != nil {
		return err
	}
	return a.wireNode()
}

// brain is what every reply engine of a box or a center shares: the model
// server's clients, the meter of its speed, and the configuration.
type brain struct {
	cfg   *config.Loaded
	log   *slog.Logger
	model replyModel
	aux   reply.Chatter
	// chain is the fallback chain of model servers, when one is
	// configured ([[ollama.endpoint]]); nil for one server.
	chain   *llm.Chain
	primary *llm.Client // the first server, or the only one
	meter   *cost.Meter // the model server's measured rates

	linkMu   sync.Mutex
	linkAt   time.Time     // when lastLink was asked
	lastLink control.Check // the model server's link, for the status
}

// replyModel is the model the replies ask: one server or a chain.
type replyModel interface {
	reply.Chatter
	reply.Shower
	Version(ctx context.Context) (string, error)
}

// openBrain connects to the configured model server, or the chain of them.
func openBrain(cfg *config.Loaded, res config.Resolved, log *slog.Logger) (*brain, error) {
	b := &brain{cfg: cfg, log: log}
	client := func(host *url.URL, model string) (*llm.Client, error) {
		return llm.New(llm.Options{Host: host, Model: model, KeepAlive: cfg.Ollama.KeepAlive.Duration, NumCtx: cfg.Ollama.NumCtx})
	}
	var err error
	if b.primary, err = client(res.OllamaURL, cfg.Ollama.Model); err != nil {
		return nil, err
	}
	b.model = b.primary
	if len(res.Endpoints) > 0 {
		var eps []*llm.Client
		for _, ep := range res.Endpoints {
			c, err := client(ep.URL, ep.Model)
			if err != nil {
				return nil, err
			}
			eps = append(eps, c)
		}
		if b.chain, err = llm.NewChain(llm.ChainOptions{Endpoints: eps, Log: log}); err != nil {
			return nil, err
		}
		b.model, b.primary = b.chain, eps[0]
	}
	b.aux = b.model
	if m := cfg.Ollama.AuxModel; m != "" && m != cfg.Ollama.Model {
		if b.aux, err = client(b.primary.Host(), m); err != nil {
			return nil, err
		}
	}
	if b.meter, err = cost.Open(filepath.Join(cfg.DataDir, "model-rates.json")); err != nil {
		log.Warn("model rates not restored; learning them again", "err", err)
	}
	return b, nil
}

// link is the model server's state as the status shows it: reachable, and
// the round trip of a version request, asked at most every 10 s.
func (b *brain) link(ctx context.Context) control.Check {
	b.linkMu.Lock()
	defer b.linkMu.Unlock()
	if time.Since(b.linkAt) < 10*time.Second {
		return b.lastLink
	}
	host := b.primary.Host().String()
	cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	began := time.Now()
	v, err := b.primary.Version(cctx)
	rtt := time.Since(began)
	b.lastLink = control.Check{Name: "model server", OK: err == nil,
		Detail: fmt.Sprintf("%s, Ollama %s, round trip %v", host, v, rtt.Round(time.Millisecond))}
	if err != nil {
		b.lastLink.Detail = fmt.Sprintf("%s, unreachable: %v", host, err)
	}
	b.linkAt = time.Now()
	return b.lastLink
}

// watch checks the chain's servers in the background, until ctx is done.
func (b *brain) watch(ctx context.Context) {
	if b.chain != nil {
		b.chain.Watch(ctx)
	}
}

// options are a reply engine's options from the configuration; the caller
// adds the commands, the memory, the place and the time zone.
func (b *brain) options() reply.Options {
	cfg, r := b.cfg, b.cfg.Reply
	return reply.Options{
		Language:          string(boxLang(cfg.Whisper.Language)),
		Model:             b.model,
		Aux:               b.aux,
		Info:              b.model,
		ModelName:         b.primary.Model(),
		AuxModelName:      cfg.Ollama.AuxModel,
		Server:            b.primary.Host().String(),
		Meter:             b.meter,
		Policy:            cost.Policy{Share: r.AuxShare},
		ToolTokens:        r.ToolTokens,
		ToolStyle:         r.ToolStyle,
		Name:              cfg.Assistant.Name,
		PlannerOff:        !r.Planner,
		Router:            router.Strategy(r.Router),
		RouterMax:         r.RouterMax,
		MemoryDigest:      reply.Mode(r.MemoryDigest),
		ToolDigest:        reply.Mode(r.ToolDigest),
		MemoryResults:     r.MemoryResults,
		ChatTimeout:       cfg.Ollama.ChatTimeout.Duration,
		ReplyBudget:       cfg.Ollama.ReplyBudget.Duration,
		PlannerTimeout:    r.PlannerTimeout.Duration,
		AuxTimeout:        r.AuxTimeout.Duration,
		DigestTimeout:     r.DigestTimeout.Duration,
		MaxTurns:          cfg.Assistant.MaxTurns,
		ToolSearchMax:     max(r.ToolSearchMax, 0),
		ConversationLapse: cfg.Assistant.ConversationLapse.Duration,
		HistoryTurns:      cfg.Assistant.HistoryTurns,
		HistoryChars:      cfg.Assistant.HistoryChars,
		CarryTurns:        r.CarryTurns,
		CarryChars:        r.CarryChars,
		Log:               b.log,
	}
}

// close saves the model rates learned.
func (b *brain) close() {
	if err := b.meter.Save(); err != nil {
		b.log.Warn("model rates not saved", "err", err)
	}
}

// lookups are the web lookups the configuration turns on.
func lookups(cfg *config.Loaded, secrets command.Secrets) []*command.Command {
	return lookup.Commands(lookup.Options{SearXNG: cfg.Lookup.SearXNG, Brave: cfg.Lookup.BraveSearch, Secrets: secrets,
		Wikipedia: cfg.Lookup.Wikipedia, FetchPages: cfg.Lookup.FetchPages})
}

// allCommands is every command the assistant has: the built-ins and the
// weather, with stop last.
func allCommands(d builtin.Deps, more ...*command.Command) []*command.Command {
	cmds := builtin.All(d)
	out := append(cmds[:len(cmds)-1:len(cmds)-1], more...)
	return append(out, cmds[len(cmds)-1])
}

// close waits for diary entries being written, saves the model rates
// learned, then closes the store.
func (a *app) close() error {
	if a.mcpStop != nil {
		a.mcpStop()
		a.mcp.Wait()
	}
	a.engine.Close()
	a.brain.close()
	if a.updates.rauc != nil {
		a.updates.rauc.Close()
	}
	return a.db.Close()
}

// replier is the reply engine as the pipeline sees it.
func (a *app) replier() pipeline.Replier {
	return pipeline.ReplierFunc(func(ctx context.Context, q pipeline.Query, say func(string)) (pipeline.Outcome, error) {
		_, followUp, err := a.answer(ctx, reply.Query{Text: q.Text, Language: q.Language}, say)
		if h := a.modelHint(err); h != "" && a.notice != nil {
			a.hinted.Do(func() { a.notice("hint: " + h) })
		}
		return pipeline.Outcome{FollowUp: followUp}, err
	})
}

// synthesizer returns the configured speech engine, or nil with the reason
// speech is off.
func (a *app) synthesizer() (pipeline.Synthesizer, string) {
	if a.cfg.TTS.Engine == "off" {
		return nil, "speech is off (tts.engine = \"off\"): replies are printed only"
	}
	e, err := espeak.New(espeak.Options{Voice: a.cfg.TTS.Voice, Rate: a.cfg.TTS.Rate, Pitch: a.cfg.TTS.Pitch, Voices: a.cfg.TTS.EspeakVoices, Log: a.log})
	if w := a.cfg.TTS.Wyoming; w != "" {
		u, _ := url.Parse(w) // checked by config.Resolve
		v := &wyoming.Voice{Addr: u.Host, Voices: a.cfg.TTS.Voices}
		if err != nil {
			return v, "espeak-ng is not installed: a sentence the Wyoming voice fails is not spoken (apt-get install espeak-ng)"
		}
		return &pipeline.VoiceFallback{Primary: v, Backup: e, Deadline: a.cfg.TTS.Deadline.Duration, Log: a.log}, ""
	}
	if err != nil {
		return nil, "espeak-ng is not installed, so speech is off: replies are printed only (apt-get install espeak-ng)"
	}
	return e, ""
}

// speech is speech-to-text as the configuration asks for it.
type speech struct {
	stt   pipeline.Transcriber // nil when there is none: the simulation takes typed input
	local *whisper.Engine      // the warm whisper.cpp model, to close; nil without one
	note  string               // for the user: what listens, or why nothing does
	// engine names what listens, for the self-test; empty when nothing does.
	engine string
}

func (s speech) close() error {
	if s.local != nil {
		return s.local.Close()
	}
	return nil
}

// openSpeech loads the whisper.cpp model once (it stays warm until close)
// and puts a Wyoming server in front of it when one is configured. A model
// that will not load is reported, not fatal: typed and offline commands
// still work.
func (a *app) openSpeech() speech {
	w := a.cfg.Whisper
	var s speech
	var why string
	switch {
	case w.Model == "":
		why = "no speech-to-text model is set (whisper.model)"
	case !whisper.Built():
		why = "this build has no whisper.cpp (make build-whisper, or go build -tags whisper)"
	default:
		o := whisperOptions(a.cfg, a.commands.Commands(), a.log)
		// whisper.cpp aborts the process on some corrupt models: load it
		// in a child first, so that costs the box nothing.
		if exe, err := os.Executable(); err == nil {
			o.Probe = whisper.ProbeCommand{Path: exe, Args: []string{"probe-model"}}.Probe
		}
		e, err := whisper.New(o)
		if err != nil {
			why = "speech-to-text is off: " + err.Error()
			a.log.Error("speech-to-text model did not load", "model", w.Model, "err", err)
			break
		}
		s.local, s.stt = e, e
		if len(whisper.Features()) == 0 {
			a.log.Warn("whisper.cpp was built without SIMD or threading: transcription will be slow; rebuild it with make whisper")
		}
		s.note = fmt.Sprintf("speech-to-text: whisper.cpp, %s, loaded in %d ms", w.Model, e.LoadTime().Milliseconds())
		s.engine = "whisper.cpp, " + w.Model + " loaded"
	}
	if w.Remote != "" {
		remote := &wyoming.Client{Addr: w.Remote, Timeout: w.RemoteTimeout.Duration}
		if w.Language != "auto" {
			remote.Language = w.Language
		}
		if s.local != nil {
			s.stt = pipeline.Fallback{Primary: remote, Secondary: s.local, Log: a.log}
			s.note = "speech-to-text: Wyoming server " + w.Remote + ", falling back to whisper.cpp on the box"
			s.engine = "Wyoming server " + w.Remote + ", else " + s.engine
		} else {
			s.stt = remote
			s.note = "speech-to-text: Wyoming server " + w.Remote + " (no local fallback: " + why + ")"
			s.engine = "Wyoming server " + w.Remote
		}
	}
	if s.stt == nil {
		s.note = why
	} else {
		s.stt = guard.Transcriber{Engine: s.stt} // markers, sound descriptions and loops are no speech
	}
	return s
}

// whisperOptions is the [whisper] configuration for the engine, with an
// initial prompt from the assistant's name, the user's vocabulary and the
// commands' keywords, most important first.
func whisperOptions(cfg *config.Loaded, cmds []*command.Command, log *slog.Logger) whisper.Options {
	w := cfg.Whisper
	words := append([]string{cfg.Assistant.Name}, w.Vocabulary...)
	for _, c := range cmds {
		words = append(words, c.Keywords...)
	}
	return whisper.Options{
		Model:          w.Model,
		Threads:        w.Threads,
		Language:       w.Language,
		Prompt:         whisper.Prompt(words...),
		FullWindow:     w.FullWindow,
		BeamSize:       w.BeamSize,
		FlashAttention: w.FlashAttention,
		VADModel:       w.VADModel,
		NoSpeech:       float32(w.NoSpeech),
		MinConfidence:  float32(w.MinConfidence),
		Log:            log,
	}
}

// lang is the box's own language: what it says before it has heard anyone
// (the factory-reset countdown, a full disk, the web page's code) and
// what a typed request whose words do not tell is answered in.
func (a *app) lang() locale.Lang { return boxLang(a.cfg.Whisper.Language) }

// boxLang is the language whisper.language names; "auto" or a language
// without offline phrases is English.
func boxLang(whisper string) locale.Lang {
	l, _ := locale.Of(whisper)
	return l
}
