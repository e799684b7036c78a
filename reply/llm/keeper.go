package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// A model server that is loading a model is not a hung one: it answers
// nothing until the model is in memory (13 to 20 s for a 1B model on a
// small CPU, longer from an SD card), and a client that gives up meanwhile
// makes it abort the load. The Keeper tells the two apart. It knows whether
// the model is loaded, from its own warm-up and from /api/ps (where a model
// another client is loading is listed too, told apart by its expiry: see
// Settling); it loads the model in the background, detached from whoever
// asked, so a budget or a cancelled question never abandons a load, and
// waits the same way for a load another client began; and, asked to, it
// keeps the model loaded: renewing it before it expires, and loading it
// again (with the system prompt) when another client's model evicts it.

// Resident is a model server as the Keeper sees it; *Client and *Chain are
// ones.
type Resident interface {
	// Model is the model kept.
	Model() string
	// Running lists the models the server holds or is loading.
	Running(ctx context.Context) ([]Loaded, error)
	// Load loads the model, or keeps it loaded for another keep-alive.
	Load(ctx context.Context) error
}

var (
	_ Resident = (*Client)(nil)
	_ Resident = (*Chain)(nil)
)

// Warm loads the model and fills the server's prompt cache with what every
// question starts with; the reply engine's Warm is one. Its answer's
// LoadDuration tells the load apart from the prompt.
type Warm func(ctx context.Context) (Response, error)

// Phase is where the model is.
type Phase int

// The phases.
const (
	// Unknown: the server was not asked yet, or did not answer.
	Unknown Phase = iota
	// Cold: the server does not hold the model.
	Cold
	// Loading: the model is being loaded: by the Keeper, or by another
	// client of the server, whose load the Keeper waits for.
	Loading
	// Ready: the server holds it.
	Ready
)

func (p Phase) String() string {
	switch p {
	case Cold:
		return "not loaded"
	case Loading:
		return "loading"
	case Ready:
		return "ready"
	}
	return "unknown"
}

// Readiness is what the Keeper knows of the model.
type Readiness struct {
	Model string
	Phase Phase
	// Since is when the load under way began, or when the model was found
	// ready, cold or unknown.
	Since time.Time
	// Load and Prompt are the last warm-up's: loading the model, then its
	// system prompt; zero when the Keeper has not warmed it up.
	Load, Prompt time.Duration
	// Warmed is when the last warm-up ended; zero before the first.
	Warmed time.Time
	// Err is why the server could not be asked, or the last load failed.
	Err error
}

// KeeperOptions configure a Keeper. Server is required.
type KeeperOptions struct {
	Server Resident
	// Ceiling bounds one load: a server still loading after it is taken
	// for a hung one; default 30 min. No reply's budget ever ends a load.
	Ceiling time.Duration
	Log     *slog.Logger
}

// Keeper keeps one model loaded on its server and knows whether it is. It
// is safe for concurrent use.
type Keeper struct {
	o   KeeperOptions
	log *slog.Logger

	mu      sync.Mutex
	st      Readiness
	cur     *load         // the load under way, or nil
	changed chan struct{} // closed and replaced on every change
	expires time.Time     // when the server said it would unload the model
	closed  bool
	wg      sync.WaitGroup
}

// load is one load under way: done is closed when it ends, with err set;
// cancel ends it (Close).
type load struct {
	done   chan struct{}
	err    error
	cancel context.CancelFunc
	// join is set for a load another client began: the Keeper's request
	// waits for it. waited is set once that outlasted joinGrace: the model
	// was loading, and is warmed up once in memory.
	join, waited bool
}

// settleGap separates the two listings of /api/ps that tell a model being
// loaded from one in memory (see Settling).
const settleGap = 20 * time.Millisecond

// joinGrace is how long the Keeper's request for a model whose listing
// moves may take before the model is taken for loading: one in memory,
// answering its first request, is given at once.
const joinGrace = 250 * time.Millisecond

// NewKeeper returns a Keeper that knows nothing yet.
func NewKeeper(o KeeperOptions) *Keeper {
	if o.Ceiling == 0 {
		o.Ceiling = 30 * time.Minute
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Keeper{o: o, log: o.Log.With("pkg", "llm", "model", o.Server.Model()), changed: make(chan struct{}),
		st: Readiness{Model: o.Server.Model(), Since: time.Now()}}
}

// State is what the Keeper knows now.
func (k *Keeper) State() Readiness {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.st
}

// Changed returns a channel closed at the next change of State.
func (k *Keeper) Changed() <-chan struct{} {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.changed
}

// set changes the state under k.mu and tells those waiting for a change.
func (k *Keeper) set(f func(st *Readiness)) {
	before := k.st
	f(&k.st)
	if !k.st.same(before) {
		close(k.changed)
		k.changed = make(chan struct{})
	}
}

// same reports whether r and o say the same; errors are compared by their
// words.
func (r Readiness) same(o Readiness) bool {
	words := func(err error) string {
		if err == nil {
			return ""
		}
		return err.Error()
	}
	return r.Model == o.Model && r.Phase == o.Phase && r.Since.Equal(o.Since) && r.Load == o.Load &&
		r.Prompt == o.Prompt && r.Warmed.Equal(o.Warmed) && words(r.Err) == words(o.Err)
}

// phase moves to p, noting since when, unless the model is there already.
func (st *Readiness) phase(p Phase, err error) {
	if st.Phase != p {
		st.Phase, st.Since = p, time.Now()
	}
	st.Err = err
}

// Probe asks the server whether it holds the model, unless a load is under
// way, and returns what it found: a model the server lists as loading for
// another client is Loading. A server that does not answer within ctx
// leaves the phase Unknown: only a reply's own budget can tell a silent
// server from a slow one.
func (k *Keeper) Probe(ctx context.Context) Readiness { return k.probe(ctx, false, nil) }

// Ensure is Probe, and a model the server does not hold is then loaded in
// the background with warm (a plain load when warm is nil). A load another
// client began is waited for in the background the same way, then warmed
// up; Ensure returns Loading once the wait outlasts joinGrace, and Ready
// when the model turned out to be in memory.
func (k *Keeper) Ensure(ctx context.Context, warm Warm) Readiness { return k.probe(ctx, true, warm) }

func (k *Keeper) probe(ctx context.Context, begin bool, warm Warm) Readiness {
	k.mu.Lock()
	if k.cur != nil {
		st := k.st
		k.mu.Unlock()
		return st
	}
	k.mu.Unlock()
	m, held, settling, err := k.listed(ctx)
	k.mu.Lock()
	if k.cur != nil { // a load began meanwhile
		st := k.st
		k.mu.Unlock()
		return st
	}
	var joined *load
	switch {
	case err != nil:
		k.set(func(st *Readiness) { st.phase(Unknown, fmt.Errorf("llm: ask which models are loaded: %w", err)) })
	case held && settling:
		// Another client is loading it, or it answers its first request
		// since its load: a request of the Keeper's own tells which.
		if begin {
			joined = k.start(warm, true)
		}
		if joined == nil {
			k.set(func(st *Readiness) { st.phase(Loading, nil) })
		}
	case held:
		k.set(func(st *Readiness) { st.phase(Ready, nil) })
		k.expires = m.Expires
	default:
		k.set(func(st *Readiness) { st.phase(Cold, nil) })
		if begin {
			k.start(warm, false)
		}
	}
	st := k.st
	k.mu.Unlock()
	if joined == nil {
		return st
	}
	t := time.NewTimer(joinGrace)
	defer t.Stop()
	select {
	case <-joined.done:
	case <-t.C:
	case <-ctx.Done():
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cur == joined {
		joined.waited = true
		k.set(func(st *Readiness) { st.phase(Loading, nil) })
	}
	return k.st
}

// listed asks the server whether it holds the model and, when it lists
// it, asks again settleGap later, to tell a model in memory from one being
// loaded (see Settling). When ctx ends between the two, or the second
// listing fails, the first stands.
func (k *Keeper) listed(ctx context.Context) (m Loaded, held, settling bool, err error) {
	name := k.o.Server.Model()
	loaded, err := k.o.Server.Running(ctx)
	if err != nil {
		return Loaded{}, false, false, err
	}
	if m, held = Holds(loaded, name, time.Now()); !held {
		return Loaded{}, false, false, nil
	}
	k.mu.Lock()
	seen := k.expires
	k.mu.Unlock()
	if m.Expires.Equal(seen) {
		// The expiry last seen standing still: no request ended and no
		// load began since, and one listing is enough.
		return m, true, false, nil
	}
	t := time.NewTimer(settleGap)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return m, true, false, nil
	}
	loaded, err = k.o.Server.Running(ctx)
	if err != nil {
		return m, true, false, nil
	}
	again, held := Holds(loaded, name, time.Now())
	if !held {
		return Loaded{}, false, false, nil
	}
	return again, true, Settling(m, again), nil
}

// Load loads the model in the background with warm (a plain load when
// warm is nil), unless a load is under way. Nothing the caller does ends
// it: only Close, or the Ceiling. The phase is Loading only when the model
// was found cold: a warm-up of a model in memory only fills the prompt
// cache, and one the server could not be asked about proves nothing
// (only a reply's budget can tell a silent server from a slow one).
func (k *Keeper) Load(warm Warm) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.start(warm, false)
}

// start begins a load under k.mu, unless one is under way or the Keeper
// is closed, and returns it; join waits for a load another client began.
func (k *Keeper) start(warm Warm, join bool) *load {
	if k.cur != nil || k.closed {
		return nil
	}
	// Detached from every caller: only Close and the Ceiling end it.
	ctx, cancel := context.WithTimeout(context.Background(), k.o.Ceiling)
	l := &load{done: make(chan struct{}), cancel: cancel, join: join}
	k.cur = l
	if k.st.Phase == Cold {
		k.set(func(st *Readiness) { st.phase(Loading, nil) })
	}
	k.wg.Go(func() {
		defer cancel()
		k.run(ctx, l, warm)
	})
	return l
}

// run is one load. A load another client began is waited for with a
// request of no words, which the server answers once the model is in
// memory; when that was at once, the model was loaded already, and is
// ready as it is.
func (k *Keeper) run(ctx context.Context, l *load, warm Warm) {
	began := time.Now()
	var resp Response
	var err error
	var joined time.Duration
	if l.join {
		k.log.Info("waiting for the model, which the server is loading")
		err = k.o.Server.Load(ctx)
		joined = time.Since(began)
		k.mu.Lock()
		if err == nil && !l.waited {
			defer k.mu.Unlock()
			k.end(l, nil)
			k.set(func(st *Readiness) { st.phase(Ready, nil) })
			return
		}
		k.mu.Unlock()
	} else {
		k.log.Info("loading the model")
	}
	switch {
	case err != nil:
	case warm != nil:
		resp, err = warm(ctx)
	case !l.join:
		err = k.o.Server.Load(ctx)
		resp.LoadDuration = time.Since(began)
	}
	took := time.Since(began)
	k.mu.Lock()
	defer k.mu.Unlock()
	k.end(l, err)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			l.err = fmt.Errorf("llm: the model was still loading after %v: %w", k.o.Ceiling, err)
		}
		k.log.Warn("loading the model failed", "dur_ms", took.Milliseconds(), "err", err)
		k.set(func(st *Readiness) { st.phase(Unknown, l.err) })
		return
	}
	load := min(joined+resp.LoadDuration, took)
	k.log.Info("model ready", "load_ms", load.Milliseconds(), "prompt_ms", (took - load).Milliseconds())
	k.set(func(st *Readiness) {
		st.phase(Ready, nil)
		st.Load, st.Prompt, st.Warmed = load, took-load, time.Now()
	})
}

// end ends load l with err, under k.mu.
func (k *Keeper) end(l *load, err error) {
	l.err = err
	k.cur = nil
	close(l.done)
}

// Wait waits for the load under way, if any, and returns its error; it
// returns ctx.Err() when ctx ends first, leaving the load going.
func (k *Keeper) Wait(ctx context.Context) error {
	k.mu.Lock()
	l := k.cur
	k.mu.Unlock()
	if l == nil {
		return nil
	}
	select {
	case <-l.done:
		return l.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Keep warms the model up at once (the first question then pays only for
// its own words), then every interval until ctx is done asks the server
// whether it still holds the model: when reload is set, a model the server
// evicted is loaded again with warm, and one about to expire is renewed.
// A warm-up that failed is tried again at each interval either way.
func (k *Keeper) Keep(ctx context.Context, every time.Duration, warm Warm, reload bool) {
	pctx, cancel := context.WithTimeout(ctx, DialTimeout+2*time.Second)
	k.Probe(pctx)
	cancel()
	k.Load(warm)
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		k.mu.Lock()
		warmed := !k.st.Warmed.IsZero()
		k.mu.Unlock()
		pctx, cancel := context.WithTimeout(ctx, DialTimeout+2*time.Second)
		st := k.probe(pctx, reload || !warmed, warm)
		cancel()
		if reload && st.Phase == Ready {
			k.renew(ctx, every)
		}
	}
}

// Note lists the models once and keeps the model's expiry, after a request
// of the caller's own has ended (a reply): the next Probe or Ensure then
// finds it standing still in one listing, not two settleGap apart, and the
// reply after pays nothing for telling a load from a model in memory.
func (k *Keeper) Note(ctx context.Context) {
	loaded, err := k.o.Server.Running(ctx)
	if err != nil {
		return
	}
	m, held := Holds(loaded, k.o.Server.Model(), time.Now())
	k.mu.Lock()
	defer k.mu.Unlock()
	if held && k.cur == nil && k.st.Phase == Ready {
		k.expires = m.Expires
	}
}

// renew keeps the model loaded for another keep-alive when the server
// would unload it within two intervals.
func (k *Keeper) renew(ctx context.Context, every time.Duration) {
	k.mu.Lock()
	exp := k.expires
	k.mu.Unlock()
	if exp.IsZero() || time.Until(exp) > 2*every+time.Minute {
		return
	}
	rctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := k.o.Server.Load(rctx); err != nil {
		k.log.Warn("keeping the model loaded failed", "err", err)
	}
}

// Close ends the load under way, if any, and waits for it.
func (k *Keeper) Close() {
	k.mu.Lock()
	k.closed = true
	if k.cur != nil {
		k.cur.cancel()
	}
	k.mu.Unlock()
	k.wg.Wait()
}
