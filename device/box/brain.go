package box

import (
	"context"
	"log/slog"
	"net/url"
	"path/filepath"
	"sync"
	"time"

	"github.com/harkbox/hark/device/box/config"
	"github.com/harkbox/hark/device/control"
	"github.com/harkbox/hark/device/health"
	"github.com/harkbox/hark/reply"
	"github.com/harkbox/hark/reply/cost"
	"github.com/harkbox/hark/reply/llm"
	"github.com/harkbox/hark/reply/router"
)

// brain is what every reply engine of a speaker or a center shares: the
// model server's clients, the meter of its speed, and the configuration.
type brain struct {
	cfg   *config.Loaded
	log   *slog.Logger
	model replyModel
	aux   llm.Chatter
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
	llm.Chatter
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

// links are the model servers as the status shows them: the chain's, or
// the one server's as a version request found it, asked at most every
// 10 s.
func (b *brain) links(ctx context.Context) []control.Check {
	if b.chain != nil {
		var out []control.Check
		for _, ep := range b.chain.Status() {
			out = append(out, health.ModelLink(ep))
		}
		return out
	}
	b.linkMu.Lock()
	defer b.linkMu.Unlock()
	if time.Since(b.linkAt) >= 10*time.Second {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		began := time.Now()
		v, err := b.primary.Version(cctx)
		cancel()
		b.lastLink = health.ServerLink(b.primary.Host().String(), v, time.Since(began), err)
		b.linkAt = time.Now()
	}
	return []control.Check{b.lastLink}
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
