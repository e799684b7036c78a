package box

import (
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/device/probe"
)

// API is the box's resources as a one-shot command serves them to itself
// when no daemon runs: every resource the daemon has but the web page, and
// a status that says the box is stopped.
func (b *Box) API() control.API {
	status := health.New(health.Options{Version: b.version, Storage: storageCheck(b.db), State: "stopped", Clock: b.clockStatus, Log: b.log})
	up := newUpdates(b.cfg, b.version, status, b.log)
	up.loc = b.location
	b.closers = append(b.closers, up.close)
	return b.api(status, nil, &page{listen: b.cfg.Web.Listen}, nil, up)
}

// api is the box's resources over box's status, with the daemon's log
// tail, web page, live settings and updates.
func (b *Box) api(box control.Box, logs control.Logs, pg *page, lv *live, up *updates) control.API {
	secrets := b.db.Secrets(b.cfg.Commands.SecretsKey)
	return control.API{
		Box:      box,
		Alerts:   alertsResource{b.alerts},
		Secrets:  secretsResource{secrets},
		Commands: commandsResource{reg: b.commands, secrets: secrets},
		Memory:   newMemoryResource(b.db),
		MCP:      mcpResource{b.mcp},
		Web:      webResource{p: pg, store: b.db.Settings()},
		Settings: settingsResource{cfg: b.cfg, live: lv, mixer: b.mixer, fault: b.settings, log: b.log},
		Updates:  updatesResource{up},
		Asker:    askResource{mcp: b.mcp, answer: b.answer, hint: b.modelHint, engine: b.engine(), turns: b.turns},
		Logs:     logs,
		Probe:    probe.Models{},
		Turns:    b.turns,
	}
}
