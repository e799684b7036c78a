package llm

import (
	"context"
	"log/slog"
	"slices"
	"sync"
	"time"
)

// A model server answers a few requests at once (Ollama one, by default);
// the rest wait inside it, in an order nobody chose, while their reply
// budgets run out. The Queue keeps that wait in Hark instead, where it is
// fair and seen: a turn holds a place from its first model call to its
// end; the box's own microphone goes first, then everyone else by turns
// (the asker with the fewest turns under way, then the one served longest
// ago, then the oldest turn), and background work last. How many turns go
// to the server at once is the configured parallelism, or else learned
// from the server's own answers to calls made while others were under way:
// one whose total time is mostly its own prompt and output ran alongside
// them; one that mostly waited did not.

// Priority says whose turn comes first.
type Priority int

// The priorities, lowest first.
const (
	// Background is work nobody waits for: a finished conversation's
	// diary entry.
	Background Priority = iota
	// Asked is a turn from elsewhere: hark ask, a web session, a node.
	Asked
	// Spoken is the box's own microphone: the person in the room.
	Spoken
)

// MaxParallel is the most turns the Queue lets through at once when it
// learns the server's parallelism.
const MaxParallel = 8

// How the Queue learns: a trial lets one turn more through at most every
// trialEvery, and a server found to make turns wait is not tried again
// for ceilingFor.
const (
	trialEvery = 10 * time.Minute
	ceilingFor = time.Hour
)

// QueueOptions configure a Queue.
type QueueOptions struct {
	// Parallel is how many answers the server makes at once ([ollama]
	// parallel); 0 learns it from its answers, starting at one.
	Parallel int
	Log      *slog.Logger
}

// Queue is a fair queue in front of one model server. It is safe for
// concurrent use.
type Queue struct {
	o   QueueOptions
	log *slog.Logger

	mu       sync.Mutex
	limit    int
	inFlight []*Ticket
	waiting  []*Ticket
	seq      uint64
	grants   uint64
	served   map[string]uint64  // each asker's last turn let through, by grants
	waits    [Spoken + 1]window // the last waits, by priority
	tried    time.Time          // the last trial
	ceiling  int                // the most found to run at once without waiting; 0 unknown
	capped   time.Time          // when the ceiling was found
	calls    uint64             // model calls begun
	active   map[uint64]bool    // the model calls under way
	ended    map[uint64]served  // the calls that ended in the last minute
}

// served is a call as the server answered it, on this clock: when it was
// sent, how long the server took, and how much of that it waited.
type served struct {
	began         time.Time
	total, waited time.Duration
	ended         time.Time
}

// NewQueue returns an empty Queue.
func NewQueue(o QueueOptions) *Queue {
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Queue{o: o, log: o.Log.With("pkg", "llm"), limit: max(o.Parallel, 1), served: map[string]uint64{},
		active: map[uint64]bool{}, ended: map[uint64]served{}}
}

// Ticket is one turn's place in the Queue.
type Ticket struct {
	q        *Queue
	client   string
	priority Priority
	seq      uint64
	arrived  time.Time
	granted  chan struct{}

	// Set when the turn is let through, under q.mu.
	waited time.Duration
	trial  bool
	done   bool
}

// Join puts a turn of client in the Queue; Wait then waits for its turn,
// and Leave ends it.
func (q *Queue) Join(client string, p Priority) *Ticket {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.seq++
	t := &Ticket{q: q, client: client, priority: p, seq: q.seq, arrived: time.Now(), granted: make(chan struct{})}
	q.waiting = append(q.waiting, t)
	q.dispatch()
	return t
}

// Wait returns once it is the turn's turn, or ctx.Err() when ctx ends
// first (the turn then leaves the Queue).
func (t *Ticket) Wait(ctx context.Context) error {
	select {
	case <-t.granted:
		return nil
	case <-ctx.Done():
		t.Leave()
		return ctx.Err()
	}
}

// Admitted reports whether the turn has been let through.
func (t *Ticket) Admitted() bool {
	select {
	case <-t.granted:
		return true
	default:
		return false
	}
}

// Ahead is how many turns go before this one: those under way and those
// waiting that will be let through first.
func (t *Ticket) Ahead() int {
	q := t.q
	q.mu.Lock()
	defer q.mu.Unlock()
	if !slices.Contains(q.waiting, t) {
		return 0
	}
	n := len(q.inFlight)
	for _, o := range q.waiting {
		if o != t && q.before(o, t) {
			n++
		}
	}
	return n
}

// Waited is how long the turn waited for its turn.
func (t *Ticket) Waited() time.Duration {
	t.q.mu.Lock()
	defer t.q.mu.Unlock()
	return t.waited
}

// Trial reports a turn let through beyond the parallelism learned so far,
// to learn whether the server answers more at once: its first answer may
// wait inside the server for the others.
func (t *Ticket) Trial() bool {
	t.q.mu.Lock()
	defer t.q.mu.Unlock()
	return t.trial
}

// Leave ends the turn's place, waiting or under way; a second Leave does
// nothing.
func (t *Ticket) Leave() {
	q := t.q
	q.mu.Lock()
	defer q.mu.Unlock()
	if t.done {
		return
	}
	t.done = true
	q.waiting = slices.DeleteFunc(q.waiting, func(o *Ticket) bool { return o == t })
	q.inFlight = slices.DeleteFunc(q.inFlight, func(o *Ticket) bool { return o == t })
	q.dispatch()
}

// before reports whether a goes before b: the higher priority, then the
// asker with fewer turns under way, then the one served longest ago, then
// the one that came first.
func (q *Queue) before(a, b *Ticket) bool {
	if a.priority != b.priority {
		return a.priority > b.priority
	}
	if na, nb := q.under(a.client), q.under(b.client); na != nb {
		return na < nb
	}
	if sa, sb := q.served[a.client], q.served[b.client]; sa != sb {
		return sa < sb
	}
	return a.seq < b.seq
}

// under counts the turns of client under way.
func (q *Queue) under(client string) int {
	n := 0
	for _, t := range q.inFlight {
		if t.client == client {
			n++
		}
	}
	return n
}

// dispatch lets turns through while there is room, and one more as a
// trial when the parallelism is being learned; under q.mu.
func (q *Queue) dispatch() {
	for len(q.waiting) > 0 {
		next := q.waiting[0]
		for _, t := range q.waiting[1:] {
			if q.before(t, next) {
				next = t
			}
		}
		trial := false
		if len(q.inFlight) >= q.limit {
			if !q.mayTry(next) {
				return
			}
			trial = true
			q.tried = time.Now()
			q.log.Info("letting one more turn through to learn whether the model server answers more at once", "parallel", q.limit)
		}
		q.waiting = slices.DeleteFunc(q.waiting, func(o *Ticket) bool { return o == next })
		q.inFlight = append(q.inFlight, next)
		next.trial = trial
		next.waited = time.Since(next.arrived)
		q.waits[next.priority].add(next.waited)
		q.grants++
		if len(q.served) > 1000 { // one-off askers come and go
			clear(q.served)
		}
		q.served[next.client] = q.grants
		close(next.granted)
	}
}

// mayTry reports whether next may go through beyond the limit as a trial:
// only a turn from elsewhere (never the microphone's, which must not wait
// inside the server), while learning, rarely, and not soon after the
// server was found to make turns wait.
func (q *Queue) mayTry(next *Ticket) bool {
	switch {
	case q.o.Parallel > 0, next.priority != Asked, q.limit >= MaxParallel, len(q.inFlight) > q.limit:
		return false
	case !q.tried.IsZero() && time.Since(q.tried) < trialEvery:
		return false
	case q.ceiling > 0 && q.ceiling <= q.limit && time.Since(q.capped) < ceilingFor:
		return false
	}
	return true
}

// Call is one model call of a turn, which the Queue learns from.
type Call struct {
	q      *Queue
	id     uint64
	began  time.Time
	others []uint64 // the calls under way when it began
}

// Begin notes a model call of the turn; End it with the answer.
func (t *Ticket) Begin() *Call {
	q := t.q
	q.mu.Lock()
	defer q.mu.Unlock()
	q.calls++
	c := &Call{q: q, id: q.calls, began: time.Now()}
	for id := range q.active {
		c.others = append(c.others, id)
	}
	q.active[c.id] = true
	return c
}

// End notes the call's answer (r is ignored when err is set) and learns
// from it how many calls the server answers at once: a call that waited
// inside the server while others were under way says it answers fewer
// than were; calls that did not wait, and whose times at the server
// overlapped by at least half, say it answers them together.
func (c *Call) End(r Response, err error) {
	q := c.q
	q.mu.Lock()
	defer q.mu.Unlock()
	now := time.Now()
	delete(q.active, c.id)
	for id, o := range q.ended {
		if now.Sub(o.ended) > time.Minute {
			delete(q.ended, id)
		}
	}
	if err != nil || r.Duration <= 0 {
		return
	}
	me := served{began: c.began, total: r.Duration, waited: r.Duration - r.LoadDuration - r.PromptDuration - r.EvalDuration, ended: now}
	q.ended[c.id] = me
	if q.o.Parallel > 0 {
		return
	}
	if len(c.others) > 0 && me.waited >= max(100*time.Millisecond, me.total/5) {
		q.ceiling, q.capped = len(c.others), now
		if q.limit > q.ceiling {
			q.limit = max(1, q.ceiling)
			q.log.Info("the model server makes turns wait; fewer go to it at once", "parallel", q.limit)
		}
		return
	}
	n := 1
	for id, o := range q.ended {
		if id != c.id && me.together(o) {
			n++
		}
	}
	if n > q.limit {
		q.limit = min(n, MaxParallel)
		q.log.Info("the model server answers turns at once", "parallel", q.limit)
	}
}

// together reports two calls the server answered at the same time:
// neither waited, each did real work (a call of a few milliseconds says
// nothing: two of them one after the other look simultaneous), and their
// times at the server overlap by at least half of the shorter's work.
func (a served) together(b served) bool {
	const work = 250 * time.Millisecond
	quiet := func(s served) bool {
		return s.waited < max(100*time.Millisecond, s.total/5) && s.total-s.waited >= work
	}
	if !quiet(a) || !quiet(b) {
		return false
	}
	end, start := a.began.Add(a.total), a.began
	if e := b.began.Add(b.total); e.Before(end) {
		end = e
	}
	if b.began.After(start) {
		start = b.began
	}
	return end.Sub(start) > min(a.total-a.waited, b.total-b.waited)/2
}

// QueueStatus is the Queue as the status shows it.
type QueueStatus struct {
	// Parallel is how many turns go to the server at once; Learned says
	// it was learned rather than configured.
	Parallel int
	Learned  bool
	// InFlight are the turns under way; Waiting those waiting their turn.
	InFlight, Waiting int
	// Spoken and Asked are the recent waits of the microphone's turns and
	// of the others'.
	Spoken, Asked Waits
}

// Waits are the waits of recent turns.
type Waits struct {
	Turns    int
	P50, P95 time.Duration
	Longest  time.Duration
}

// Status is the Queue now.
func (q *Queue) Status() QueueStatus {
	q.mu.Lock()
	defer q.mu.Unlock()
	return QueueStatus{Parallel: q.limit, Learned: q.o.Parallel == 0, InFlight: len(q.inFlight), Waiting: len(q.waiting),
		Spoken: q.waits[Spoken].stats(), Asked: q.waits[Asked].stats()}
}

// window keeps the last waits.
type window struct {
	d    []time.Duration
	next int
}

const windowLen = 200

func (w *window) add(d time.Duration) {
	if len(w.d) < windowLen {
		w.d = append(w.d, d)
		return
	}
	w.d[w.next] = d
	w.next = (w.next + 1) % windowLen
}

func (w *window) stats() Waits {
	if len(w.d) == 0 {
		return Waits{}
	}
	s := slices.Clone(w.d)
	slices.Sort(s)
	at := func(p float64) time.Duration { return s[min(len(s)-1, int(p*float64(len(s))))] }
	return Waits{Turns: len(s), P50: at(0.5), P95: at(0.95), Longest: s[len(s)-1]}
}
