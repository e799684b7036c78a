package box

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/mdns"
	"github.com/harkbox/hark/device/web"
	"github.com/harkbox/hark/internal/listener"
	"github.com/harkbox/hark/pipeline/media"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/center"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	ha "github.com/harkbox/hark/reply/command/home"
	"github.com/harkbox/hark/storage"
)

// Center is the household's command center (`hark center`): the reply
// engine and the household's memory for many speaker nodes, beside the
// model server.
type Center struct {
	cfg     *config.Loaded
	res     config.Resolved
	version string
	log     *slog.Logger
	db      *storage.DB
	brain   *brain
	// own are the center's own commands, made anew for each conversation.
	own func() []*command.Command
	mcp *mcpServers
	// house keeps the MCP servers' tools, which every conversation that
	// starts gets.
	house *command.Registry
	// diary writes the diary entry of every node conversation once it
	// lapses (the engines of the conversations write none): an engine
	// over the whole dialogue that answers nobody.
	diary *reply.Engine
	// watch looks at the model servers, and announce serves the mDNS
	// responder of the center (and of its page, when it is announced),
	// beside the nodes' server until Serve's context ends: the brain's
	// watch and the package's serveMDNS (tests replace them).
	watch    func(ctx context.Context)
	announce func(ctx context.Context, log *slog.Logger, r *mdns.Responder)
}

// OpenCenter opens the center's store and connects it to the model server.
func OpenCenter(cfg *config.Loaded, res config.Resolved, o Options) (*Center, error) {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	db, err := openStore(cfg, o.Log)
	if err != nil {
		return nil, err
	}
	c := &Center{cfg: cfg, res: res, version: o.Version, log: o.Log, db: db, announce: serveMDNS}
	if c.brain, err = openBrain(cfg, res, o.Log); err != nil {
		db.Close()
		return nil, err
	}
	c.watch = c.brain.watch
	d := c.brain.options()
	d.Dialogue, d.Diary, d.Location = db.Dialogue(), db.Diary(), res.Location
	if c.diary, err = reply.New(d); err != nil {
		c.brain.close()
		db.Close()
		return nil, err
	}
	secrets := db.Secrets(cfg.Commands.SecretsKey)
	resealFacts(context.Background(), db.SealedFacts(secrets), o.Log)
	wc := newWeather(cfg)
	c.own = func() []*command.Command {
		return catalogue.commands(onCenter, parts{
			builtin: builtin.Deps{Memory: db.SealedFacts(secrets), Diary: db.Diary()},
			weather: wc, home: &home{settings: db.Settings(), client: wc, name: cfg.Weather.Location},
			house: ha.NewClient(secrets), lookup: lookupOptions(cfg, secrets),
		})
	}
	c.house = command.NewRegistry(command.Options{Log: o.Log})
	if c.mcp, err = newMCPServers(res.MCP, cfg.MCP.FirstTry.Duration, beside{c.house, c.own()}, secrets, filepath.Join(cfg.DataDir, "mcp-state.json"), o.Log); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close stops the MCP servers and the diary, saves the model rates and
// closes the store.
func (c *Center) Close() error {
	c.mcp.stop()
	c.diary.Close()
	c.brain.close()
	return c.db.Close()
}

// beside is a catalogue whose names must not clash with other commands'.
type beside struct {
	*command.Registry
	others []*command.Command
}

func (b beside) Lookup(name string) (*command.Command, bool) {
	for _, c := range b.others {
		if c.Name == name {
			return c, true
		}
	}
	return b.Registry.Lookup(name)
}

// Serve serves the nodes on [center] listen until ctx is done, over HTTPS
// with the center's own certificate (plain HTTP when insecure), and the
// household's web page on [web] listen. show, when set, tells the person
// at the terminal where it serves. It returns once what it ran has ended:
// the replies under way stopped, the conversations' engines closed (within
// stopWait), the look at the model servers and the mDNS answers done, so
// that the store and the brain can close after it.
func (c *Center) Serve(ctx context.Context, insecure bool, show func(string)) error {
	cfg := c.cfg
	// The first conversations get the tools of the MCP servers that start
	// at once; a slower one joins later.
	c.mcp.start(ctx, true)
	services, closeMedia := c.media()
	defer closeMedia()
	srv, err := c.nodes(services)
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", cfg.Center.Listen)
	if err != nil {
		return fmt.Errorf("box: center: listen on %s: %w", cfg.Center.Listen, err)
	}
	l = listener.Capped(l, perAddress, inAll)
	fp := ""
	if !insecure {
		cert, f, err := center.Certificate(tlsDir(cfg.DataDir))
		if err != nil {
			l.Close()
			return err
		}
		fp = f
		l = tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	var kept sync.WaitGroup
	kept.Go(func() { c.watch(sctx) })
	c.upkeep(sctx, srv, &kept)
	if warm, err := c.warmEngine(); err != nil {
		c.log.Warn("the model's warm-up is not possible; it loads with the first question", "err", err)
	} else {
		kept.Go(func() { c.brain.keepModels(sctx, warm.Warm); warm.Close() })
	}
	var also []mdns.Service // announced by the page's responder
	if cfg.Web.MDNS && reachable(cfg.Center.Listen) {
		// nodes find the center; the fingerprint lets them check it
		svc := mdns.Service{Instance: instanceName("Hark center", cfg.Assistant.Room), Type: "_hark._tcp", Port: portOf(l.Addr()),
			Text: []string{"fingerprint=" + fp, "tls=" + strconv.FormatBool(!insecure)}}
		if pageAnnounced(cfg.Web) {
			// one responder, one host name claimed for the center and
			// its page
			also = append(also, svc)
		} else {
			kept.Go(func() {
				c.announce(sctx, c.log, &mdns.Responder{Host: hostLabel(), Services: []mdns.Service{svc}, Log: c.log})
			})
		}
	}
	pageDone := make(chan struct{})
	go func() {
		defer close(pageDone)
		c.servePage(sctx, show, also)
	}()
	defer func() { stop(); <-pageDone; kept.Wait() }()
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute, IdleTimeout: 2 * time.Minute,
		MaxHeaderBytes: maxHeader, ErrorLog: serverLog(c.log)}
	kept.Go(func() {
		<-sctx.Done()
		c.stopServing(srv, hs)
	})
	if show != nil {
		if insecure {
			show(fmt.Sprintf("serving nodes on http://%s (plain HTTP: a trusted LAN only)", l.Addr()))
		} else {
			show(fmt.Sprintf("serving nodes on https://%s, certificate %s", l.Addr(), fp))
		}
	}
	c.log.Info("center started", "listen", l.Addr().String(), "tls", !insecure, "model", cfg.Ollama.Model)
	if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// nodes is the server of the nodes' conversations, doing for them what
// media does.
func (c *Center) nodes(media center.Media) (*center.Server, error) {
	return center.NewServer(center.Options{
		Media:       media,
		Location:    c.res.Location,
		Keys:        center.NewKeys(c.db.Settings()),
		ServerTools: func(*time.Location) []*command.Command { return append(c.own(), c.house.Commands()...) },
		Engine:      c.engine,
		Lapse:       c.cfg.Assistant.ConversationLapse.Duration,
		Version:     c.version,
		Log:         c.log,
	})
}

// upkeep runs beside the nodes' server, in wg, until ctx is done: it ends
// the conversations nobody used for the lapse (stopServing closes the
// rest); and it writes the diary entries of those that lapsed, and of
// those a center before this one left, as a box's engine does.
func (c *Center) upkeep(ctx context.Context, srv *center.Server, wg *sync.WaitGroup) {
	wg.Go(func() { srv.Expire(ctx) })
	wg.Go(func() { c.diary.Maintain(ctx, 30*time.Second) })
}

// stopWait bounds the stop of the nodes' server: the conversations'
// replies stopped and their engines closed, then the requests answered.
const stopWait = 5 * time.Second

// stopServing stops the nodes' server within stopWait: the conversations
// first, so that no reply goes on and the requests waiting for one are
// answered (the center is stopping), then the HTTP server.
func (c *Center) stopServing(srv *center.Server, hs *http.Server) {
	ctx, cancel := context.WithTimeout(context.Background(), stopWait)
	defer cancel()
	if err := srv.Close(ctx); err != nil {
		c.log.Warn("the center stops with replies still unwinding", "err", err)
	}
	if err := hs.Shutdown(ctx); err != nil {
		c.log.Warn("the center stops with requests of nodes still open", "err", err)
	}
}

// media is what the center does for nodes too small to do it: its own
// whisper.cpp model and voice, as a box loads them, and its model for
// plain chats.
func (c *Center) media() (center.Media, func() error) {
	m := center.Media{Model: c.brain.model, ModelName: c.cfg.Ollama.Model}
	if synth, why := synthesizer(c.cfg, c.log); synth != nil {
		m.Voice = media.Voice{Synth: synth}
	} else {
		c.log.Info("the center has no voice: nodes get text to speak themselves", "why", why)
	}
	sp := openSpeech(c.cfg, c.log)
	if sp.stt != nil {
		m.Transcriber = media.Transcriber{Engine: sp.stt}
	} else {
		c.log.Info("the center has no speech-to-text for its nodes", "why", sp.note)
	}
	return m, sp.close
}

// engine is the reply engine of one node's conversation.
func (c *Center) engine(cv center.Conversation) (*reply.Engine, error) {
	o := c.brain.options()
	o.Commands, o.Conversation, o.Location = cv.Commands, cv.ID, cv.Location
	o.Dialogue, o.Diary, o.Facts = center.Dialogue{Store: c.db.Dialogue(), ID: cv.ID}, c.db.Diary(), c.db.Facts()
	o.Diarist = c.diary
	o.Place = nodePlace(cv.Node.Room, c.cfg.Assistant.Place)
	return reply.New(o)
}

// warmEngine is the engine whose warm-up loads the model with the system
// prompt of a conversation with the center's own tools, which every node
// conversation shares most of.
func (c *Center) warmEngine() (*reply.Engine, error) {
	loc := c.res.Location
	reg := command.NewRegistry(command.Options{Location: loc, Log: c.log})
	if err := reg.Register(append(c.own(), c.house.Commands()...)...); err != nil {
		return nil, err
	}
	return c.engine(center.Conversation{ID: "warm-up", Location: loc, Commands: reg})
}

// servePage serves the household's web page: the memory and conversations
// of every node, the secrets, the center's health. Its mDNS responder
// announces also beside the page, or alone when the page cannot be served.
func (c *Center) servePage(ctx context.Context, show func(string), also []mdns.Service) {
	cfg := c.cfg
	api := control.API{Box: c.status(), Memory: newMemoryResource(c.db), Secrets: secretsResource{c.db.Secrets(cfg.Commands.SecretsKey)}}
	pageServing{cfg: cfg.Web, dataDir: cfg.DataDir, log: c.log, show: show, also: also, announce: c.announce,
		codeFile: filepath.Join(cfg.DataDir, "web", "setup-code")}.serve(ctx, web.Options{API: api, Store: c.db.Settings(),
		Version: c.version, AnyAddress: cfg.Web.AnyAddress, IdleExpiry: cfg.Web.IdleExpiry.Duration, Log: c.log})
}

// status is the center's health, as its page shows it: with the box's
// settings check, which fails while what of the household's settings
// file did not load at the start is left out.
func (c *Center) status() *health.Box {
	settings := &settingsFault{problems: c.cfg.SettingsProblems}
	return health.New(health.Options{Version: c.version, Storage: storageCheck(c.db), Full: c.db.Writable, Settings: settings.err,
		State: "serving the household's speakers", Ready: true, DataDir: c.cfg.DataDir, Started: time.Now(), Links: c.brain.links,
		Model: c.brain.readiness, Queue: c.brain.queueStatus, Log: c.log})
}

// nodePlace is how the model is told where a node is: "the kitchen speaker",
// and the household's place when one is configured.
func nodePlace(room, household string) string {
	p := "a speaker"
	if room != "" {
		p = "the " + room + " speaker"
	}
	if household != "" {
		p += ", " + household
	}
	return p
}

// tlsDir keeps the center's certificate.
func tlsDir(dataDir string) string { return filepath.Join(dataDir, "center") }

// Nodes are the center's enrolled nodes and the certificate they pin, for
// `hark center nodes` and `hark center status` while the center does not
// run: ErrLocked (wrapped) while it does.
type Nodes struct {
	*center.Keys
	// Fingerprint is the center's certificate's, which nodes pin.
	Fingerprint string
	db          *storage.DB
}

// OpenNodes opens the center's store for its node keys, making the
// center's certificate on the first call.
func OpenNodes(cfg *config.Loaded, log *slog.Logger) (*Nodes, error) {
	_, fp, err := center.Certificate(tlsDir(cfg.DataDir))
	if err != nil {
		return nil, err
	}
	db, err := openStore(cfg, log)
	if err != nil {
		return &Nodes{Fingerprint: fp}, err
	}
	return &Nodes{Keys: center.NewKeys(db.Settings()), Fingerprint: fp, db: db}, nil
}

// Close closes the store.
func (n *Nodes) Close() error { return n.db.Close() }

// Advertised is a listen address as a node would dial it: the machine's
// name when it listens on every address.
func Advertised(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil || host == "" || host == "0.0.0.0" || host == "::" {
		name, _ := os.Hostname()
		return net.JoinHostPort(name, port)
	}
	return listen
}
