package reply

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/llm"
)

// Before a turn asks the model, the model must be in the server's memory.
// A loading model is not a hung one: while the engine's Keeper loads it,
// the turn says a short line at once and waits for the load, bounded by
// the load budget rather than the reply budget, and the reply budget
// starts only when the model can answer. The load belongs to the Keeper,
// never to the turn: a question cancelled meanwhile, or one that gives up,
// leaves it going, so the next question finds the model ready.

// The lines said while a turn waits.
var (
	wakingUp    = locale.Key("One moment, I'm still waking up.")
	stillAsleep = locale.Key("My language model is still loading. Please ask me again in a minute.")
)

// probeTimeout bounds asking the server which models it holds; the reply
// budget counts it.
const probeTimeout = 2 * time.Second

// ErrStillLoading reports a model still loading after the load budget.
var ErrStillLoading = errors.New("reply: the model is still loading")

// Waiting says why a turn waits before the model answers it.
type Waiting int

// The reasons to wait.
const (
	// ForLoad: the model is being loaded into the server's memory.
	ForLoad Waiting = iota + 1
	// ForTurn: the model server is answering other turns.
	ForTurn
)

// Hold is a wait before the model answers: what the asker is told.
type Hold struct {
	Why Waiting
	// Line is the short sentence for the user, in the turn's language.
	Line string
	// Model is the model waited for; Since is when its load began, or
	// when the turn began waiting for its turn.
	Model string
	Since time.Time
	// Ahead is how many turns the server answers before this one (ForTurn).
	Ahead int
}

// hold tells the asker the turn is waiting: through the query's Hold, or
// else by saying the line, which is no sentence of the answer (it is not
// recorded, and the reply budget still waits for the answer's first).
func (t *turn) hold(h Hold) {
	if t.onHold != nil {
		t.onHold(h)
		return
	}
	t.say(h.Line)
}

// holdGrace is how long a load may take before the question says it
// waits for it.
const holdGrace = 250 * time.Millisecond

// ready waits until the chat model (and the small one, when it is another)
// is loaded. It returns the load's error, ErrStillLoading after the load
// budget, or ctx.Err(); a model whose state the server does not say is
// taken to be ready, and the reply budget then decides.
func (t *turn) ready(ctx context.Context) error {
	e := t.e
	said := false
	for _, k := range []struct {
		keeper *llm.Keeper
		warm   llm.Warm
	}{{e.o.Keeper, e.Warm}, {e.o.AuxKeeper, nil}} {
		if k.keeper == nil {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, probeTimeout)
		st := k.keeper.Ensure(pctx, k.warm)
		cancel()
		if st.Phase != llm.Loading {
			continue
		}
		// A load that ends at once is not waited for aloud: a model the
		// server does not have fails in milliseconds, and the household
		// hears that, not first that the box is waking up.
		gctx, cancel := context.WithTimeout(ctx, holdGrace)
		err := k.keeper.Wait(gctx)
		ended := gctx.Err() == nil
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case ended && err != nil:
			return err
		case ended:
			continue
		}
		if !said {
			t.hold(Hold{Why: ForLoad, Line: t.lang.T(wakingUp), Model: st.Model, Since: st.Since})
			said = true
		}
		e.log.Info("waiting for the model to load", "model", st.Model, "loading_ms", time.Since(st.Since).Milliseconds())
		wctx, cancel := context.WithDeadline(ctx, st.Since.Add(e.o.LoadBudget))
		err = k.keeper.Wait(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err() // the load goes on for the next question
		case errors.Is(wctx.Err(), context.DeadlineExceeded) && err != nil:
			return fmt.Errorf("%w: %s after the %v load budget", ErrStillLoading, st.Model, e.o.LoadBudget)
		case err != nil:
			return err
		}
	}
	if said {
		t.res.Timings.Loading = time.Since(t.began)
		t.restartBudget()
	}
	return nil
}

// noteModels has the Keepers note the models' expiries once the turn's
// requests have ended, in the background, so that the next turn's readiness
// check takes one listing.
func (e *Engine) noteModels(t *turn) {
	if t.res.Timings.ModelCalls == 0 {
		return
	}
	for _, k := range []*llm.Keeper{e.o.Keeper, e.o.AuxKeeper} {
		if k == nil {
			continue
		}
		e.wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
			defer cancel()
			k.Note(ctx)
		})
	}
}

// restartBudget starts the reply budget now: what came before was a wait
// for the model, not its silence.
func (t *turn) restartBudget() {
	t.origin = time.Now()
	budget := t.e.o.ReplyBudget + t.slack
	t.deadline = t.origin.Add(budget)
	t.auxDeadline = t.origin.Add(budget / 2)
}

// busy is said to the microphone's user whose turn waits for others'.
var busy = locale.Key("One moment, I'm answering someone else.")

// holdAfter is how long a turn waits for its turn before it says so.
const holdAfter = time.Second

// enter waits for the turn's turn in the engine's Queue: the reply budget
// starts when it comes, and a wait of more than holdAfter is told (the
// microphone's user hears busy). A turn let through on trial gets the
// chat time-out as slack on its budget: its first answer may wait inside
// the server for the others.
func (t *turn) enter(ctx context.Context) error {
	q := t.e.o.Queue
	if q == nil {
		return nil
	}
	p := llm.Asked
	if t.client == Microphone {
		p = llm.Spoken
	}
	tk := q.Join(t.client, p)
	t.ticket = tk
	if tk.Admitted() {
		if tk.Trial() {
			t.slack = t.e.o.ChatTimeout
			t.deadline, t.auxDeadline = t.deadline.Add(t.slack), t.auxDeadline.Add(t.slack/2)
		}
		return nil
	}
	told := make(chan struct{})
	timer := time.AfterFunc(holdAfter, func() {
		defer close(told)
		t.hold(Hold{Why: ForTurn, Line: t.lang.T(busy), Model: t.e.o.ModelName, Since: t.began, Ahead: tk.Ahead()})
	})
	err := tk.Wait(ctx)
	if !timer.Stop() {
		<-told // the line goes before the answer
	}
	if err != nil {
		return err
	}
	if tk.Trial() {
		t.slack = t.e.o.ChatTimeout
	}
	t.res.Timings.Queued = tk.Waited()
	t.restartBudget()
	return nil
}

// leave gives the turn's place in the Queue to the next.
func (t *turn) leave() {
	if t.ticket != nil {
		t.ticket.Leave()
	}
}
