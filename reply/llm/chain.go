package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"sync"
	"time"
)

// Switched is said when another server takes over an answer that had
// begun.
const Switched = "Sorry, my model server dropped out. Let me start again with another one."

// ChainOptions configure a Chain.
type ChainOptions struct {
	// Endpoints, in order of preference: each a server and its model.
	Endpoints []*Client
	// Check is how often Watch asks each server whether it is up; default
	// 15 s.
	Check time.Duration
	// Stalls is how many requests in a row a server may leave unanswered,
	// its caller's budget spent (ErrStalled) before the server said a
	// word, before it is taken for hung and skipped; default 2. A hung
	// server still answers the health check's version request, so it is
	// back only when it answers a question again.
	Stalls int
	Log    *slog.Logger
}

// Chain is a fallback chain of model servers: every request goes to the
// first one that is up, a failure moves it to the next, and a server that
// failed is skipped (its circuit open) until it answers a health check
// again, so a dead server costs nothing. A server that takes requests and
// says nothing (its model hung) is skipped too, once its callers gave up
// on it Stalls times in a row. It is a Chatter and a Shower, as a Client
// is.
type Chain struct {
	o  ChainOptions
	mu sync.Mutex
	st []endpointState
	// answering is the endpoint that answered last.
	answering int
}

type endpointState struct {
	down    bool
	since   time.Time
	lastErr string
	rtt     time.Duration
	// stalls counts the requests in a row its callers gave up on before
	// it said a word; hung is set when they reached Stalls, and only an
	// answer clears it.
	stalls int
	hung   bool
}

// NewChain returns a Chain over o.Endpoints, all taken to be up.
func NewChain(o ChainOptions) (*Chain, error) {
	if len(o.Endpoints) == 0 {
		return nil, errors.New("llm: a chain needs at least one model server")
	}
	if o.Check == 0 {
		o.Check = 15 * time.Second
	}
	if o.Stalls == 0 {
		o.Stalls = 2
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Chain{o: o, st: make([]endpointState, len(o.Endpoints))}, nil
}

// EndpointStatus is one server of the chain as `hark status` shows it.
type EndpointStatus struct {
	Host, Model string
	Up          bool
	Answering   bool
	Since       time.Time // when it went down
	Err         string
	RTT         time.Duration // of the last health check that answered
}

// Status is every server of the chain.
func (c *Chain) Status() []EndpointStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]EndpointStatus, len(c.st))
	for i, s := range c.st {
		ep := c.o.Endpoints[i]
		out[i] = EndpointStatus{Host: ep.Host().String(), Model: ep.Model(), Up: !s.down, Answering: i == c.answering,
			Since: s.since, Err: s.lastErr, RTT: s.rtt}
	}
	return out
}

// Current is the server and model that answered last (the first, before
// any did).
func (c *Chain) Current() (host *url.URL, model string) {
	c.mu.Lock()
	ep := c.o.Endpoints[c.answering]
	c.mu.Unlock()
	return ep.Host(), ep.Model()
}

// Model is the current model's name.
func (c *Chain) Model() string { _, m := c.Current(); return m }

// Next is the server and model the next request goes to: the first that
// is up (the first, when none is).
func (c *Chain) Next() (host *url.URL, model string) {
	ep := c.next()
	return ep.Host(), ep.Model()
}

// order is the endpoints to try: those up, in order; when none is, all of
// them (a server may be back before its health check says so).
func (c *Chain) order() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var up, all []int
	for i, s := range c.st {
		all = append(all, i)
		if !s.down {
			up = append(up, i)
		}
	}
	if len(up) == 0 {
		return all
	}
	return up
}

// mark notes what a request or a health check found of a server: up (err
// nil), or down with err.
func (c *Chain) mark(i int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &c.st[i]
	switch {
	case err == nil:
		if s.down {
			c.o.Log.Info("model server is back", "host", c.o.Endpoints[i].Host().String(), "model", c.o.Endpoints[i].Model())
		}
		s.down, s.lastErr = false, ""
		if s.hung {
			s.hung, s.stalls = false, 0
		}
	case !s.down:
		c.o.Log.Warn("model server failed; the next one answers until it is back", "host", c.o.Endpoints[i].Host().String(),
			"model", c.o.Endpoints[i].Model(), "err", err)
		s.down, s.since, s.lastErr = true, time.Now(), err.Error()
	default:
		s.lastErr = err.Error()
	}
}

// heard notes that a server said something: whatever its callers gave up
// on before, it is not hung.
func (c *Chain) heard(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.st[i].stalls = 0
}

// stalled counts a request whose caller gave up before the server said a
// word; at Stalls in a row the server is taken for hung.
func (c *Chain) stalled(i int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s := &c.st[i]
	if s.stalls++; s.stalls < c.o.Stalls || s.hung {
		return
	}
	c.o.Log.Warn("model server takes questions and says nothing; the next one answers until it answers again",
		"host", c.o.Endpoints[i].Host().String(), "model", c.o.Endpoints[i].Model(), "unanswered", s.stalls)
	if !s.down {
		s.down, s.since = true, time.Now()
	}
	s.hung, s.lastErr = true, fmt.Sprintf("said nothing to %d questions in a row", s.stalls)
}

// failover reports an error that another server may not have: no
// connection, a cut stream, a failure of the server's own (5xx, or a model
// runner that died mid-answer), a model it lacks. A refusal of the request
// itself (4xx) would be the same anywhere.
func failover(err error) bool {
	return errors.Is(err, ErrUnreachable) || errors.Is(err, ErrStreamCut) || errors.Is(err, ErrServerFailed) ||
		errors.Is(err, ErrModelNotFound)
}

// Chat asks the first server that is up; when it fails in a way another
// server may not, the next one is asked, and if the first had begun its
// answer, onChunk gets a Notice saying so first. When ctx ends with
// ErrStalled as its cause before the server said a word, the server is
// counted as silent (see ChainOptions.Stalls).
func (c *Chain) Chat(ctx context.Context, req Request, onChunk func(Chunk) error) (Response, error) {
	var lastErr error
	began := false
	for _, i := range c.order() {
		if lastErr != nil && began && onChunk != nil {
			if err := onChunk(Chunk{Notice: Switched}); err != nil {
				return Response{}, err
			}
		}
		heard := false // this server said a word (of a streamed answer)
		wrapped := onChunk
		if onChunk != nil {
			wrapped = func(ch Chunk) error {
				heard = true
				began = began || ch.Content != "" || len(ch.ToolCalls) > 0
				return onChunk(ch)
			}
		}
		resp, err := c.o.Endpoints[i].Chat(ctx, req, wrapped)
		switch {
		case err == nil:
			c.mark(i, nil)
			c.heard(i)
			c.mu.Lock()
			c.answering = i
			c.mu.Unlock()
			return resp, nil
		case ctx.Err() != nil:
			// The caller gave up: a barge-in, or its budget spent on a
			// server that said nothing, which counts against it.
			if heard {
				c.heard(i)
			} else if errors.Is(context.Cause(ctx), ErrStalled) {
				c.stalled(i)
			}
			return resp, err
		case !failover(err):
			c.heard(i) // it answered, if only to refuse
			return resp, err
		}
		c.mark(i, err)
		lastErr = err
	}
	return Response{}, fmt.Errorf("llm: every model server failed, the last with: %w", lastErr)
}

// Show asks the current server about its model ("" for it).
func (c *Chain) Show(ctx context.Context, model string) (ModelInfo, error) {
	var lastErr error
	for _, i := range c.order() {
		info, err := c.o.Endpoints[i].Show(ctx, model)
		if err == nil || !failover(err) {
			return info, err
		}
		c.mark(i, err)
		lastErr = err
	}
	return ModelInfo{}, lastErr
}

// Watch checks every server every Check until ctx is done, closing the
// circuit of one that answers again and opening that of one that stopped.
func (c *Chain) Watch(ctx context.Context) {
	t := time.NewTicker(c.o.Check)
	defer t.Stop()
	for {
		c.CheckNow(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// CheckNow asks each server for its version once; one taken for hung is
// asked whether it answers again (see revive).
func (c *Chain) CheckNow(ctx context.Context) {
	for i, ep := range c.o.Endpoints {
		cctx, cancel := context.WithTimeout(ctx, DialTimeout+2*time.Second)
		began := time.Now()
		_, err := ep.Version(cctx)
		cancel()
		rtt := time.Since(began)
		c.mu.Lock()
		hung := c.st[i].hung
		c.mu.Unlock()
		if err == nil && hung {
			err = revive(ctx, ep, c.o.Check)
		}
		if ctx.Err() != nil {
			return
		}
		c.mark(i, err)
		if err == nil {
			c.mu.Lock()
			c.st[i].rtt = rtt
			c.mu.Unlock()
		}
	}
}

// revive asks a server taken for hung whether it answers again. One that
// no longer lists the model (it was unloaded, or the server restarted) has
// nothing left hanging: the next question loads the model afresh. One that
// still lists it, whatever its expiry says (Ollama never unloads a model
// with a request under way, hung or not, and lists it with the expiry it
// had), must answer a short question, a word is enough, within the
// interval of the health checks.
func revive(ctx context.Context, ep *Client, within time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	loaded, err := ep.Running(ctx)
	if err != nil {
		return err
	}
	if !lists(loaded, ep.Model()) {
		return nil
	}
	if _, err := ep.Chat(ctx, Request{Messages: []Message{{Role: RoleUser, Content: "Hello."}}, MaxTokens: 1}, nil); err != nil {
		return fmt.Errorf("llm: the model still says nothing: %w", err)
	}
	return nil
}

// Version asks the first server that answers for its version.
func (c *Chain) Version(ctx context.Context) (string, error) {
	var lastErr error
	for _, i := range c.order() {
		v, err := c.o.Endpoints[i].Version(ctx)
		if err == nil {
			return v, nil
		}
		c.mark(i, err)
		lastErr = err
	}
	return "", lastErr
}
