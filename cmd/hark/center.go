package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/web"
	ha "github.com/harkbox/hark/reply/command/home"
	"github.com/harkbox/hark/reply/command/mcp"

	"github.com/harkbox/hark/cmd/hark/internal/config"

	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/center"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/command/weather"
	"github.com/harkbox/hark/storage"
)

// cmdCenter runs the household's command center, or manages the nodes
// that may use it.
func cmdCenter(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("center", e, g)
	listen := fs.String("listen", "", "`address` to serve nodes on (default [center] listen, \":8765\")")
	insecure := fs.Bool("insecure-http", false, "serve plain HTTP, for a trusted LAN only (default: HTTPS with the center's own certificate)")
	if err := parse(e, fs, args); err != nil {
		return err
	}
	rest := fs.Args()
	cfg, res, err := loadConfig(e, g)
	if err != nil {
		return err
	}
	if *listen != "" {
		cfg.Center.Listen = *listen
	}
	log := newLogger(e.stderr, cfg.Log.Level, slog.LevelInfo)
	switch {
	case len(rest) == 0:
		return serveCenter(ctx, e, cfg, res, log, *insecure)
	case rest[0] == "nodes" && len(rest) >= 2:
		return centerNodes(ctx, e, cfg, log, rest[1:], fs)
	case rest[0] == "status" && len(rest) == 1:
		return centerStatus(ctx, e, cfg, log)
	}
	return usageError(e, fs, "")
}

// tlsDir keeps the center's certificate.
func tlsDir(dataDir string) string { return filepath.Join(dataDir, "center") }

func centerNodes(ctx context.Context, e env, cfg *config.Loaded, log *slog.Logger, args []string, fs *flag.FlagSet) error {
	db, err := openDB(cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	keys := center.NewKeys(db.Settings())
	switch {
	case args[0] == "add" && len(args) == 2:
		cred, err := keys.Add(ctx, args[1])
		if err != nil {
			return err
		}
		_, fp, err := center.Certificate(tlsDir(cfg.DataDir))
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "Node %s added. On the node, set in [center]:\n  url = \"https://%s\"\n  fingerprint = %q\n  key = (the line below; it is shown only now)\n",
			strings.SplitN(cred, ":", 2)[0], advertised(cfg.Center.Listen), fp)
		fmt.Fprintln(e.stdout, cred)
		return nil
	case args[0] == "list" && len(args) == 1:
		nodes, err := keys.List(ctx)
		if err != nil {
			return err
		}
		if len(nodes) == 0 {
			fmt.Fprintln(e.stdout, "no nodes")
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tADDED\tSTATE")
		for _, n := range nodes {
			state := "active"
			if n.Revoked {
				state = "revoked"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", n.ID, n.Name, n.Added.Local().Format("2006-01-02 15:04"), state)
		}
		return tw.Flush()
	case args[0] == "revoke" && len(args) == 2:
		if err := keys.Revoke(ctx, args[1]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "node %s revoked\n", args[1])
		return nil
	}
	return usageError(e, fs, "nodes add NAME | nodes list | nodes revoke ID")
}

// advertised is the listen address as a node would dial it.
func advertised(listen string) string {
	host, port, err := net.SplitHostPort(listen)
	if err != nil || host == "" || host == "0.0.0.0" || host == "::" {
		name, _ := os.Hostname()
		return net.JoinHostPort(name, port)
	}
	return listen
}

func centerStatus(ctx context.Context, e env, cfg *config.Loaded, log *slog.Logger) error {
	_, fp, err := center.Certificate(tlsDir(cfg.DataDir))
	if err != nil {
		return err
	}
	db, err := openDB(cfg, log)
	if errors.Is(err, storage.ErrLocked) {
		fmt.Fprintf(e.stdout, "center: running (its data directory %s is in use)\nlisten: %s\nfingerprint: %s\n", cfg.DataDir, cfg.Center.Listen, fp)
		return nil
	}
	if err != nil {
		return err
	}
	defer db.Close()
	nodes, err := center.NewKeys(db.Settings()).List(ctx)
	if err != nil {
		return err
	}
	active := 0
	for _, n := range nodes {
		if !n.Revoked {
			active++
		}
	}
	fmt.Fprintf(e.stdout, "center: not running\nlisten: %s\nfingerprint: %s\nnodes: %d active, %d revoked\nmodel: %s at %s\n",
		cfg.Center.Listen, fp, active, len(nodes)-active, cfg.Ollama.Model, cfg.Ollama.Host)
	return nil
}

// serveCenter runs the center until ctx is done.
func serveCenter(ctx context.Context, e env, cfg *config.Loaded, res config.Resolved, log *slog.Logger, insecure bool) error {
	db, err := openDB(cfg, log)
	if err != nil {
		return err
	}
	defer db.Close()
	b, err := openBrain(cfg, res, log)
	if err != nil {
		return err
	}
	defer b.close()
	wc := weather.New(weather.Options{ForecastURL: cfg.Weather.ForecastURL, GeocodeURL: cfg.Weather.GeocodeURL, Units: cfg.Weather.Units})
	mem := db.SealedFacts(db.Secrets(cfg.Commands.SecretsKey))
	house := ha.NewClient(db.Secrets(cfg.Commands.SecretsKey))
	own := func() []*command.Command {
		return append([]*command.Command{builtin.Time(), builtin.Calculate(), builtin.Convert(),
			builtin.Remember(mem), builtin.Forget(mem), builtin.SearchMemory(mem, db.Diary()),
			weather.Command(wc, &home{settings: db.Settings(), client: wc, name: cfg.Weather.Location}),
			ha.Control(house), ha.State(house)}, lookups(cfg, db.Secrets(cfg.Commands.SecretsKey))...)
	}
	// The MCP servers' tools are the household's: every conversation
	// that starts gets those connected then.
	houseTools := command.NewRegistry(command.Options{Log: log})
	hub, err := mcp.New(mcp.Options{Servers: res.MCP, Catalogue: beside{houseTools, own()},
		Secrets: db.Secrets(cfg.Commands.SecretsKey), Log: log})
	if err != nil {
		return err
	}
	hctx, stopHub := context.WithCancel(ctx)
	hub.Start(hctx)
	defer hub.Wait()
	defer stopHub()
	if hub.Len() > 0 { // the first conversations get the tools of the servers that start at once
		rctx, cancel := context.WithTimeout(ctx, mcpFirstTry)
		hub.Ready(rctx)
		cancel()
	}
	srv, err := center.NewServer(center.Options{
		Keys: center.NewKeys(db.Settings()),
		ServerTools: func(loc *time.Location) []*command.Command {
			return append(own(), houseTools.Commands()...)
		},
		Engine: func(c center.Conversation) (*reply.Engine, error) {
			o := b.options()
			o.Commands, o.Conversation, o.Location = c.Commands, c.ID, c.Location
			o.Dialogue, o.Diary, o.Facts = center.Dialogue{Store: db.Dialogue(), ID: c.ID}, db.Diary(), db.Facts()
			o.Place = place(c.Node.Room, cfg.Assistant.Place)
			return reply.New(o)
		},
		Lapse:   cfg.Assistant.ConversationLapse.Duration,
		Version: version,
		Log:     log,
	})
	if err != nil {
		return err
	}
	l, err := net.Listen("tcp", cfg.Center.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", cfg.Center.Listen, err)
	}
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	scheme, fp := "http", ""
	if !insecure {
		cert, f, err := center.Certificate(tlsDir(cfg.DataDir))
		if err != nil {
			l.Close()
			return err
		}
		scheme, fp = "https", f
		l = tls.NewListener(l, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	go srv.Expire(sctx)
	go b.watch(sctx)
	// The household's web page: the memory and conversations of every
	// node, the secrets, the center's health.
	pageDone := make(chan struct{})
	go func() {
		defer close(pageDone)
		api := control.API{Box: centerBox{db: db, b: b, started: time.Now()}, Memory: memoryAPI{db},
			Secrets: secretsAPI{db.Secrets(cfg.Commands.SecretsKey)}}
		servePage(sctx, log, cfg.Web.Listen, web.Options{API: api, Store: db.Settings(), Version: version,
			AnyAddress: cfg.Web.AnyAddress, IdleExpiry: cfg.Web.IdleExpiry.Duration, Log: log},
			func(line string) { fmt.Fprintln(e.stdout, "center: "+line) }, nil)
	}()
	defer func() { stop(); <-pageDone }()
	go func() {
		<-sctx.Done()
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		hs.Shutdown(shut)
	}()
	if insecure {
		fmt.Fprintf(e.stdout, "center: serving nodes on http://%s (plain HTTP: a trusted LAN only)\n", l.Addr())
	} else {
		fmt.Fprintf(e.stdout, "center: serving nodes on %s://%s, certificate %s\n", scheme, l.Addr(), fp)
	}
	log.Info("center started", "listen", l.Addr().String(), "tls", !insecure, "model", cfg.Ollama.Model)
	if err := hs.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// place is how the model is told where a node is: "the kitchen speaker",
// and the household's place when one is configured.
func place(room, household string) string {
	p := "a speaker"
	if room != "" {
		p = "the " + room + " speaker"
	}
	if household != "" {
		p += ", " + household
	}
	return p
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

// centerBox is the center as its web page's status shows it.
type centerBox struct {
	db      *storage.DB
	b       *brain
	started time.Time
}

func (c centerBox) Status(ctx context.Context) control.Status {
	st := control.Check{Name: "storage", OK: true, Detail: "open"}
	if err := c.db.Writable(); err != nil {
		st = control.Check{Name: "storage", Detail: err.Error()}
	}
	s := control.Status{State: "serving the household's speakers", Ready: true, Version: version, Checks: []control.Check{st}, Started: c.started}
	if c.b.chain != nil {
		for _, ep := range c.b.chain.Status() {
			s.Links = append(s.Links, modelLink(ep))
		}
	} else {
		s.Links = append(s.Links, c.b.link(ctx))
	}
	return s
}

func (centerBox) WaitIdle(context.Context) error { return nil }
func (centerBox) SetUpdating(bool, int)          {}
