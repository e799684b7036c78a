package pipeline

import (
	"context"
	"sync"
	"sync/atomic"
)

// Run drives turns from button events until ctx is done, which cancels the
// turn under way, or until events is closed, which lets it finish. It
// publishes Idle first and whenever a turn ends, and returns nil.
func (p *Pipeline) Run(ctx context.Context, events <-chan Event) error {
	p.publish(Status{State: Idle})
	var cur *turn
	cancelTurn := func() {
		if cur != nil {
			cur.cancel()
			<-cur.done // stages return promptly once their context is done
			cur = nil
		}
	}
	for {
		var done <-chan struct{}
		if cur != nil {
			done = cur.done
		}
		select {
		case <-ctx.Done():
			cancelTurn()
			return nil
		case <-done:
			cur = nil
			p.publish(Status{State: Idle, Turn: p.turns})
		case ev, ok := <-events:
			if !ok {
				if cur != nil {
					<-cur.done
					p.publish(Status{State: Idle, Turn: p.turns})
				}
				return nil
			}
			switch ev {
			case Press:
				switch {
				case cur == nil:
					cur = p.start(ctx)
				case cur.listening.Load():
					cur.endUtterance()
				default: // barge-in: drop the turn and listen again
					p.log.Info("barge-in", "turn_id", cur.id)
					cancelTurn()
					cur = p.start(ctx)
				}
			case Stop:
				if cur != nil {
					p.log.Info("stop", "turn_id", cur.id)
					cancelTurn()
					p.publish(Status{State: Idle, Turn: p.turns})
				}
			}
		}
	}
}

// turn is one turn under way, as Run sees it.
type turn struct {
	id        uint64
	cancel    context.CancelFunc
	done      chan struct{} // closed when the turn's goroutine has returned
	end       chan struct{} // closed when the button ends the utterance
	endOnce   sync.Once
	listening atomic.Bool
}

func (t *turn) endUtterance() { t.endOnce.Do(func() { close(t.end) }) }

func (p *Pipeline) start(ctx context.Context) *turn {
	p.turns++
	tctx, cancel := context.WithCancel(ctx)
	t := &turn{id: p.turns, cancel: cancel, done: make(chan struct{}), end: make(chan struct{})}
	t.listening.Store(true)
	go func() {
		defer close(t.done)
		defer cancel()
		p.runTurn(tctx, t)
	}()
	return t
}
