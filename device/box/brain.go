package box

import (
	"context"
	"log/slog"
	"net"
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
	// keeper keeps the chat model loaded and knows whether it is;
	// auxKeeper the small model's, when it is another (else nil). keep
	// says whether they load it again when the server evicts it: [ollama]
	// keep_warm, or always for the box's own server.
	keeper, auxKeeper *llm.Keeper
	keep              bool
	// queue is the fair queue in front of the model server, which every
	// engine of the box (or the center) shares.
	queue *llm.Queue

	linkMu   sync.Mutex
	linkAt   time.Time     // when lastLink was asked
	lastLink control.Check // the model server's link, for the status
}

// replyModel is the model the replies ask: one server or a chain.
type replyModel interface {
	llm.Chatter
	llm.Resident
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
	b.keeper = llm.NewKeeper(llm.KeeperOptions{Server: b.model, Log: log})
	if m := cfg.Ollama.AuxModel; m != "" && m != cfg.Ollama.Model {
		aux, err := client(b.primary.Host(), m)
		if err != nil {
			return nil, err
		}
		b.aux, b.auxKeeper = aux, llm.NewKeeper(llm.KeeperOptions{Server: aux, Log: log})
	}
	b.keep = cfg.Ollama.KeepWarm || loopback(b.primary.Host())
	b.queue = llm.NewQueue(llm.QueueOptions{Parallel: cfg.Ollama.Parallel, Log: log})
	if b.meter, err = cost.Open(filepath.Join(cfg.DataDir, "model-rates.json")); err != nil {
		log.Warn("model rates not restored; learning them again", "err", err)
	}
	return b, nil
}

// loopback reports a server on this machine: the box's own.
func loopback(u *url.URL) bool {
	h := u.Hostname()
	if ip := net.ParseIP(h); ip != nil {
		return ip.IsLoopback()
	}
	return h == "localhost"
}

// keepModels keeps the models loaded until ctx is done, warming the chat
// model up at once with warm (the first question then pays only for its
// own words) and looking at the server every interval.
func (b *brain) keepModels(ctx context.Context, warm llm.Warm) {
	every := b.cfg.Ollama.Watch.Duration
	var wg sync.WaitGroup
	if b.auxKeeper != nil {
		wg.Go(func() { b.auxKeeper.Keep(ctx, every, nil, b.keep) })
	}
	b.keeper.Keep(ctx, every, warm, b.keep)
	wg.Wait()
}

// readiness is the chat model's readiness for the status.
func (b *brain) readiness() *control.ModelStatus {
	return health.ModelReadiness(b.keeper.State(), time.Now())
}

// queueStatus is the model server's queue for the status.
func (b *brain) queueStatus() *control.QueueStatus { return health.QueueState(b.queue.Status()) }

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
		AnswerTokens:      cfg.Ollama.AnswerTokens,
		ReplyBudget:       cfg.Ollama.ReplyBudget.Duration,
		Keeper:            b.keeper,
		AuxKeeper:         b.auxKeeper,
		LoadBudget:        cfg.Ollama.LoadBudget.Duration,
		Queue:             b.queue,
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

// close ends the loads under way and saves the model rates learned.
func (b *brain) close() {
	b.keeper.Close()
	if b.auxKeeper != nil {
		b.auxKeeper.Close()
	}
	if err := b.meter.Save(); err != nil {
		b.log.Warn("model rates not saved", "err", err)
	}
}
