package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/harkbox/hark/cmd/hark/internal/config"
	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/espeak"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/storage"
)

// app is Hark's parts put together from the configuration. This file is the
// one place that knows which concrete type fills each interface.
type app struct {
	cfg    *config.Loaded
	log    *slog.Logger
	db     *storage.DB
	model  *llm.Client
	engine *reply.Engine
}

// newLogger writes text logs to w at the configured level, or at least at
// floor when that is higher.
func newLogger(w io.Writer, level string, floor slog.Level) *slog.Logger {
	var l slog.Level
	l.UnmarshalText([]byte(level)) // checked by config.Resolve
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: max(l, floor)}))
}

// openApp opens the store and connects the reply engine to the model server.
func openApp(cfg *config.Loaded, res config.Resolved, log *slog.Logger) (*app, error) {
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	db, err := storage.Open(cfg.DataDir, storage.Options{Profile: storage.Profile(cfg.Storage.Profile), Log: log})
	if err != nil {
		if errors.Is(err, storage.ErrLocked) {
			return nil, fmt.Errorf("%w (is `hark run` using %s? stop it or pass another --data)", err, cfg.DataDir)
		}
		return nil, err
	}
	model, err := llm.New(llm.Options{
		Host:      res.OllamaURL,
		Model:     cfg.Ollama.Model,
		KeepAlive: cfg.Ollama.KeepAlive.Duration,
		NumCtx:    cfg.Ollama.NumCtx,
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	engine, err := reply.New(reply.Options{
		Model:             model,
		ModelName:         cfg.Ollama.Model,
		Dialogue:          db.Dialogue(),
		Name:              cfg.Assistant.Name,
		Location:          res.Location,
		ChatTimeout:       cfg.Ollama.ChatTimeout.Duration,
		ConversationLapse: cfg.Assistant.ConversationLapse.Duration,
		HistoryTurns:      cfg.Assistant.HistoryTurns,
		HistoryChars:      cfg.Assistant.HistoryChars,
		Log:               log,
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return &app{cfg: cfg, log: log, db: db, model: model, engine: engine}, nil
}

func (a *app) close() error { return a.db.Close() }

// replier is the reply engine as the pipeline sees it.
func (a *app) replier() pipeline.Replier {
	return pipeline.ReplierFunc(func(ctx context.Context, q pipeline.Query, say func(string)) error {
		_, err := a.engine.Reply(ctx, reply.Query{Text: q.Text, Language: q.Language}, say)
		return err
	})
}

// synthesizer returns the configured speech engine, or nil with the reason
// speech is off.
func (a *app) synthesizer() (pipeline.Synthesizer, string) {
	if a.cfg.TTS.Engine == "off" {
		return nil, "speech is off (tts.engine = \"off\"): replies are printed only"
	}
	e, err := espeak.New(espeak.Options{Voice: a.cfg.TTS.Voice, Rate: a.cfg.TTS.Rate, Pitch: a.cfg.TTS.Pitch})
	if err != nil {
		return nil, "espeak-ng is not installed, so speech is off: replies are printed only (apt-get install espeak-ng)"
	}
	return e, ""
}

// transcriber returns the built-in speech-to-text engine, or nil when this
// build has none.
func (a *app) transcriber() pipeline.Transcriber { return nil }
