package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"text/tabwriter"

	"github.com/harkbox/hark/device/box"
	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/reply/center"
	"github.com/harkbox/hark/storage"
)

// cmdCenter runs the household's command center, or manages the nodes
// that may use it.
func cmdCenter(ctx context.Context, e env, g *globals, args []string) error {
	fs := flags("center", e, g)
	listen := fs.String("listen", "", "`address` to serve nodes on (default [center] listen, \":8765\")")
	insecure := fs.Bool("insecure-http", false, "serve plain HTTP, for a trusted LAN only (default: HTTPS with the center's own certificate)")
	var en center.Enrolment
	fs.StringVar(&en.ID, "id", "", "with nodes add: the `id` the node already has (a Jarvis node's node_id)")
	fs.StringVar(&en.Key, "key", "", "with nodes add and --id: the `key` the node already has (its api_key)")
	fs.StringVar(&en.Room, "room", "", "with nodes add: the `room` the node stands in")
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
		c, err := box.OpenCenter(cfg, res, box.Options{Version: version, Log: log})
		if err != nil {
			return err
		}
		defer c.Close()
		return c.Serve(ctx, *insecure, func(line string) { fmt.Fprintln(e.stdout, "center: "+line) })
	case rest[0] == "nodes" && len(rest) >= 2:
		return centerNodes(ctx, e, cfg, log, rest[1:], en, fs)
	case rest[0] == "status" && len(rest) == 1:
		return centerStatus(ctx, e, cfg, log)
	}
	return usageError(e, fs, "")
}

func centerNodes(ctx context.Context, e env, cfg *config.Loaded, log *slog.Logger, args []string, en center.Enrolment, fs *flag.FlagSet) error {
	if args[0] != "add" && en != (center.Enrolment{}) {
		return usageError(e, fs, "--id, --key and --room go with nodes add")
	}
	nodes, err := box.OpenNodes(cfg, log)
	if err != nil {
		return err
	}
	defer nodes.Close()
	switch {
	case args[0] == "add" && len(args) == 2:
		if en.Key != "" && en.ID == "" {
			return usageError(e, fs, "--key needs --id: the node's id and key go together")
		}
		en.Name = args[1]
		cred, err := nodes.Enrol(ctx, en)
		if err != nil {
			return err
		}
		id, key, _ := strings.Cut(cred, ":")
		at := box.Advertised(cfg.Center.Listen)
		fmt.Fprintf(e.stdout, "Node %s added. On a Hark node, set in [center]:\n  url = \"https://%s\"\n  fingerprint = %q\n  key = (the line below; it is shown only now)\n"+
			"On a Jarvis node (served over plain HTTP with --insecure-http): node_id = %q, api_key = %q, jarvis_command_center_api_url = \"http://%s\"\n",
			id, at, nodes.Fingerprint, id, key, at)
		fmt.Fprintln(e.stdout, cred)
		return nil
	case args[0] == "list" && len(args) == 1:
		list, err := nodes.List(ctx)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			fmt.Fprintln(e.stdout, "no nodes")
			return nil
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tROOM\tADDED\tSTATE")
		for _, n := range list {
			state := "active"
			if n.Revoked {
				state = "revoked"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", n.ID, n.Name, n.Room, n.Added.Local().Format("2006-01-02 15:04"), state)
		}
		return tw.Flush()
	case args[0] == "revoke" && len(args) == 2:
		if err := nodes.Revoke(ctx, args[1]); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "node %s revoked\n", args[1])
		return nil
	}
	return usageError(e, fs, "nodes add NAME [--id ID --key KEY] [--room ROOM] | nodes list | nodes revoke ID")
}

func centerStatus(ctx context.Context, e env, cfg *config.Loaded, log *slog.Logger) error {
	nodes, err := box.OpenNodes(cfg, log)
	if errors.Is(err, storage.ErrLocked) {
		fmt.Fprintf(e.stdout, "center: running (its data directory %s is in use)\nlisten: %s\nfingerprint: %s\n", cfg.DataDir, cfg.Center.Listen, nodes.Fingerprint)
		return nil
	}
	if err != nil {
		return err
	}
	defer nodes.Close()
	list, err := nodes.List(ctx)
	if err != nil {
		return err
	}
	active := 0
	for _, n := range list {
		if !n.Revoked {
			active++
		}
	}
	fmt.Fprintf(e.stdout, "center: not running\nlisten: %s\nfingerprint: %s\nnodes: %d active, %d revoked\nmodel: %s at %s\n",
		cfg.Center.Listen, nodes.Fingerprint, active, len(list)-active, cfg.Ollama.Model, cfg.Ollama.Host)
	return nil
}
