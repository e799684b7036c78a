package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/builtin"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/storage"
)

// api is the daemon's API over this app's parts: the same handlers serve
// the daemon's socket and, in process, a command that finds no daemon.
func (a *app) api(box control.Box, logs control.Logs) control.API {
	return control.API{
		Box:      box,
		Alerts:   alertsAPI{a},
		Secrets:  secretsAPI{a.db.Secrets(a.cfg.Commands.SecretsKey)},
		Commands: commandsAPI{a},
		Memory:   memoryAPI{a.db},
		MCP:      mcpAPI{a},
		Web:      webAPI{a},
		Settings: settingsAPI{a},
		Updates:  updatesAPI{a, box},
		Asker:    askAPI{a},
		Logs:     logs,
	}
}

// connect returns a client of the running daemon's API, or, when no daemon
// runs, of this process's own handlers over the data directory; close
// releases it (and the store it opened).
// Without a daemon, only log lines at floor or above reach standard error.
// startingDaemon bounds the wait for the socket of a daemon that is
// starting.
const startingDaemon = 3 * time.Second

func connect(ctx context.Context, e env, g *globals, floor slog.Level) (*control.Client, func(), error) {
	cfg, res, err := loadConfig(e, g)
	if err != nil {
		return nil, nil, err
	}
	// A daemon that is starting holds the store before its socket
	// answers: then the socket is tried again for a few seconds.
	var a *app
	for deadline := time.Now().Add(startingDaemon); ; {
		c := control.Dial(cfg.ControlSocket)
		_, err = c.Status(ctx)
		if err == nil {
			return c, func() { c.Close() }, nil
		}
		c.Close()
		if !errors.Is(err, control.ErrNotRunning) {
			return nil, nil, fmt.Errorf("the running hark at %s: %w", cfg.ControlSocket, err)
		}
		a, err = openApp(cfg, res, newLogger(e.stderr, cfg.Log.Level, floor))
		if err == nil {
			break
		}
		if !errors.Is(err, storage.ErrLocked) || time.Now().After(deadline) || ctx.Err() != nil {
			return nil, nil, err
		}
		time.Sleep(100 * time.Millisecond)
	}
	lc := control.Local(control.Handler(a.api(stoppedBox{a}, nil)))
	return lc, func() { lc.Close(); a.close() }, nil
}

// stoppedBox is the box as a command sees it when no daemon runs.
type stoppedBox struct{ a *app }

func (b stoppedBox) Status(ctx context.Context) control.Status {
	var muted bool
	c := control.Check{Name: "storage", OK: true, Detail: "open"}
	if _, err := b.a.db.Settings().Get(ctx, mutedKey, &muted); err != nil {
		c = control.Check{Name: "storage", Detail: err.Error()}
	}
	return control.Status{State: "stopped", Version: version, Checks: []control.Check{c}}
}

func (stoppedBox) WaitIdle(context.Context) error { return nil }
func (stoppedBox) SetUpdating(bool, int)          {}

// apiError marks storage errors for the API's status codes.
func apiError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, storage.ErrLocked):
		return fmt.Errorf("%w: %w", control.ErrConflict, err)
	}
	return err
}

type alertsAPI struct{ a *app }

func (s alertsAPI) List(ctx context.Context, all bool) ([]control.Alert, error) {
	kinds := []storage.ItemKind{storage.Timer}
	if all {
		kinds = append(kinds, storage.Alarm, storage.Reminder)
	}
	items, err := s.a.alerts.Pending(ctx, kinds...)
	if err != nil {
		return nil, apiError(err)
	}
	out := make([]control.Alert, 0, len(items))
	for _, it := range items {
		out = append(out, control.Alert{ID: it.ID, Kind: string(it.Kind), Name: it.Name, Due: it.Due, Repeats: it.Kind == storage.Alarm && len(it.Days) > 0})
	}
	return out, nil
}

// Add sets a timer, alarm or reminder by the rules the voice commands keep:
// a timer of up to 24 hours, an alarm or reminder in the future.
func (s alertsAPI) Add(ctx context.Context, na control.NewAlert) (control.Alert, error) {
	var it storage.Item
	var err error
	switch na.Kind {
	case "timer":
		if na.In <= 0 || na.In > builtin.MaxTimer {
			return control.Alert{}, fmt.Errorf("%w: a timer runs for more than no time and up to 24 hours", control.ErrInvalid)
		}
		it, err = s.a.alerts.AddTimer(ctx, na.Name, na.In)
	case "alarm":
		if na.At.IsZero() || !na.At.After(time.Now()) {
			return control.Alert{}, fmt.Errorf("%w: the alarm's time has already passed", control.ErrInvalid)
		}
		at := na.At.In(s.a.res.Location)
		it, err = s.a.alerts.AddAlarm(ctx, na.Name, at.Hour(), at.Minute(), nil, at)
	case "reminder":
		if strings.TrimSpace(na.Name) == "" {
			return control.Alert{}, fmt.Errorf("%w: a reminder needs something to remind of", control.ErrInvalid)
		}
		if na.At.IsZero() || !na.At.After(time.Now()) {
			return control.Alert{}, fmt.Errorf("%w: the reminder's time has already passed", control.ErrInvalid)
		}
		it, err = s.a.alerts.AddReminder(ctx, na.Name, na.At)
	default:
		return control.Alert{}, fmt.Errorf("%w: %q is not a timer, alarm or reminder", control.ErrInvalid, na.Kind)
	}
	if err != nil {
		return control.Alert{}, apiError(err)
	}
	return control.Alert{ID: it.ID, Kind: string(it.Kind), Name: it.Name, Due: it.Due}, nil
}

func (s alertsAPI) Cancel(ctx context.Context, id string) error {
	if _, ok, err := s.a.db.Schedule().Get(ctx, id); err != nil {
		return apiError(err)
	} else if !ok {
		return fmt.Errorf("%w: no timer, alarm or reminder %q", control.ErrNotFound, id)
	}
	if _, err := s.a.alerts.Cancel(ctx, id); err != nil {
		return fmt.Errorf("%w: %w", control.ErrConflict, err)
	}
	return nil
}

type secretsAPI struct{ s *storage.Secrets }

func (s secretsAPI) Names(ctx context.Context) ([]string, error) {
	n, err := s.s.Names(ctx)
	return n, apiError(err)
}

func (s secretsAPI) Set(ctx context.Context, name, value string) error {
	if strings.TrimSpace(name) == "" || strings.ContainsAny(name, "/ \t\n") {
		return fmt.Errorf("%w: %q is not a secret's name (letters, digits and _ only)", control.ErrInvalid, name)
	}
	return apiError(s.s.Set(ctx, name, value))
}

func (s secretsAPI) Unset(ctx context.Context, name string) error {
	return apiError(s.s.Unset(ctx, name))
}

type commandsAPI struct{ a *app }

func (c commandsAPI) List(ctx context.Context) ([]control.CommandInfo, error) {
	secrets := c.a.db.Secrets(c.a.cfg.Commands.SecretsKey)
	var out []control.CommandInfo
	for _, cmd := range c.a.commands.Commands() {
		info := control.CommandInfo{Name: cmd.Name, Setup: cmd.Setup != nil}
		for _, p := range cmd.Parameters {
			info.Parameters = append(info.Parameters, control.Param{Name: p.Name, Type: p.Type, Required: p.Required})
		}
		for _, s := range cmd.Secrets {
			v, err := secrets.Get(ctx, s.Key)
			state := "set"
			switch {
			case err != nil:
				state = "unreadable"
			case v == "":
				state = "not set"
			}
			info.Secrets = append(info.Secrets, control.SecretState{Key: s.Key, Required: s.Required, State: state})
		}
		out = append(out, info)
	}
	return out, nil
}

func (c commandsAPI) Setup(ctx context.Context, name string, io control.SetupIO) error {
	cmd, ok := c.a.commands.Lookup(name)
	if !ok {
		return fmt.Errorf("%w: no command called %q (hark commands lists them)", control.ErrNotFound, name)
	}
	if cmd.Setup == nil {
		io.Say(cmd.Name + " needs no setup")
		return nil
	}
	return apiError(cmd.Setup(ctx, io))
}

var _ command.SetupIO = control.SetupIO(nil)

type memoryAPI struct{ db *storage.DB }

func (m memoryAPI) Facts(ctx context.Context) ([]control.Fact, error) {
	facts, err := m.db.Facts().All(ctx)
	if err != nil {
		return nil, apiError(err)
	}
	out := make([]control.Fact, 0, len(facts))
	for _, f := range facts {
		out = append(out, control.Fact{ID: f.ID, Text: f.Text, At: f.At})
	}
	return out, nil
}

func (m memoryAPI) Forget(ctx context.Context, id string) error {
	facts, err := m.db.Facts().All(ctx)
	if err != nil {
		return apiError(err)
	}
	for _, f := range facts {
		if f.ID == id {
			return apiError(m.db.Facts().Delete(ctx, id))
		}
	}
	return fmt.Errorf("%w: no fact %q", control.ErrNotFound, id)
}

func (m memoryAPI) Conversations(ctx context.Context) ([]control.Conversation, error) {
	convs, err := m.db.Dialogue().Conversations(ctx)
	if err != nil {
		return nil, apiError(err)
	}
	out := make([]control.Conversation, 0, len(convs))
	for _, c := range convs {
		cv := control.Conversation{ID: c.ID}
		for _, x := range c.Exchanges {
			cv.Exchanges = append(cv.Exchanges, control.Exchange{At: x.At, User: x.User, Assistant: x.Assistant})
		}
		out = append(out, cv)
	}
	return out, nil
}

func (m memoryAPI) DeleteConversation(ctx context.Context, id string) error {
	n, err := m.db.Dialogue().DeleteConversation(ctx, id)
	if err != nil {
		return apiError(err)
	}
	if n == 0 {
		return fmt.Errorf("%w: no conversation %q", control.ErrNotFound, id)
	}
	return nil
}

type askAPI struct{ a *app }

func (s askAPI) Ask(ctx context.Context, q control.Question, say func(string)) (any, error) {
	s.a.startMCP(ctx, mcpFirstTry)
	res, _, err := s.a.answer(ctx, reply.Query{Text: q.Text, Language: q.Language}, say)
	if err != nil {
		if h := s.a.modelHint(err); h != "" {
			err = control.WithHint(err, h)
		}
	}
	return res, err
}

// modelHint is one short line on how to reach a model, for an error that
// says it cannot be reached; empty for other errors.
func (a *app) modelHint(err error) string {
	switch {
	case errors.Is(err, llm.ErrUnreachable):
		return fmt.Sprintf("no model server answers at %s: start Ollama there (ollama serve), or point Hark at one with OLLAMA_HOST or [ollama] host", a.res.OllamaURL)
	case errors.Is(err, reply.ErrTooSlow):
		return fmt.Sprintf("the model server at %s took the question but said nothing within [ollama] reply_budget (%v): it may still be loading %s, or be too slow for this box (a smaller model, or a longer reply_budget)", a.res.OllamaURL, a.cfg.Ollama.ReplyBudget.Duration, a.cfg.Ollama.Model)
	case errors.Is(err, llm.ErrModelNotFound):
		return fmt.Sprintf("the server at %s does not have %s: ollama pull %s", a.res.OllamaURL, a.cfg.Ollama.Model, a.cfg.Ollama.Model)
	}
	return ""
}

// dueIn says when an alert is due, or how late it is.
func dueIn(due, now time.Time) string {
	left := due.Sub(now).Round(time.Second)
	if left < 0 {
		return "overdue by " + (-left).String()
	}
	return left.String()
}
