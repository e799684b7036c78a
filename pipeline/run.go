package pipeline

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/harkbox/hark/pipeline/voice"
)

// Run drives turns from button events until ctx is done, which cancels what
// is under way, or until events is closed, which lets it finish. It
// publishes Idle first and whenever the box has nothing to do, and returns
// nil.
//
// A press starts listening when idle, ends the utterance while listening,
// silences a ringing alert, and cancels a turn in any other state and
// listens again (barge-in). Talk is a press, but while an alert rings it
// silences the alert and listens. Stop cancels everything. In hold mode the
// release ends the utterance, and a Stop (a long press) while talking is
// ignored.
//
// Alerts ring on time: one that comes due during a turn ends the turn.
// Alerts that come due while another rings are announced together once it
// is silenced, whether by a press, Stop or StopAlerts. An alert the speaker
// could not play is told when the speaker is back: after the next turn or
// ring, or within MissedProbe while idle.
func (p *Pipeline) Run(ctx context.Context, events <-chan Event) error {
	p.publish(voice.Status{State: voice.Idle})
	var cur *turn
	var ring *ringer
	cancelTurn := func() {
		if cur != nil {
			cur.cancel()
			<-cur.done // stages return promptly once their context is done
			cur = nil
		}
	}
	stopRing := func() {
		if ring != nil {
			ring.cancel()
			<-ring.done
			ring = nil
		}
	}
	// next starts what comes after a turn or a ring: a queued alert, the
	// follow-up window, what rang unheard (when tell), or idle.
	next := func(followUp, tell bool) {
		if a, ok := p.alerts.pop(); ok {
			ring = p.ring(ctx, a)
			return
		}
		if followUp {
			cur = p.start(ctx, true)
			return
		}
		if tell && p.alerts.anyMissed() {
			ring = p.tell(ctx)
			return
		}
		p.publish(voice.Status{State: voice.Idle, Turn: p.turns})
	}
	probe := time.NewTicker(MissedProbe)
	defer probe.Stop()
	for {
		var turnDone, ringDone <-chan struct{}
		if cur != nil {
			turnDone = cur.done
		}
		if ring != nil {
			ringDone = ring.done
		}
		select {
		case <-ctx.Done():
			cancelTurn()
			stopRing()
			return nil
		case <-turnDone:
			followUp := cur.followUp.Load()
			cur = nil
			next(followUp, true)
		case <-ringDone:
			told := ring.telling
			ring = nil
			next(false, !told)
		case <-p.alertCh:
			// An alert rings on time, whatever the turn is doing; one that
			// comes due while another rings waits for it to be silenced.
			if cur != nil {
				p.log.Info("an alert ends the turn", "turn_id", cur.id)
				cancelTurn()
			}
			if ring != nil && ring.telling {
				stopRing()
			}
			if ring == nil {
				next(false, false)
			}
		case <-probe.C:
			if cur == nil && ring == nil && p.alerts.anyMissed() {
				ring = p.tell(ctx)
			}
		case ev, ok := <-events:
			if !ok {
				if cur != nil {
					<-cur.done
					cur = nil
				}
				stopRing()
				p.publish(voice.Status{State: voice.Idle, Turn: p.turns})
				return nil
			}
			holding := p.opts.Talk == TalkHold && cur != nil && cur.listening.Load() && !cur.followUpTurn
			switch {
			case ev == Release:
				if holding {
					cur.endUtterance()
				}
			case ev == Stop && holding:
				// A long hold while talking is talking.
			case ev == Stop || ev == Abort:
				if cur != nil || ring != nil {
					p.log.Info("stop", "turn_id", p.turns)
					cancelTurn()
					p.StopAlerts()
					stopRing()
					next(false, false) // alerts nobody heard yet are still announced
				}
			case ring != nil && ev == Talk: // silence the alert and hear the words
				p.StopAlerts()
				stopRing()
				cur = p.start(ctx, false)
			case ring != nil: // a press silences the alert, and only that
				p.StopAlerts()
				stopRing()
				next(false, false)
			case cur == nil:
				cur = p.start(ctx, false)
			case cur.listening.Load():
				cur.endUtterance()
			default: // barge-in: drop the turn and listen again
				p.log.Info("barge-in", "turn_id", cur.id)
				cancelTurn()
				cur = p.start(ctx, false)
			}
		}
	}
}

// turn is one turn under way, as Run sees it.
type turn struct {
	id           uint64
	cancel       context.CancelFunc
	done         chan struct{} // closed when the turn's goroutine has returned
	end          chan struct{} // closed when the button ends the utterance
	endOnce      sync.Once
	listening    atomic.Bool
	followUp     atomic.Bool // the reply wants the microphone reopened
	followUpTurn bool        // this turn listens in the follow-up window
}

func (t *turn) endUtterance() { t.endOnce.Do(func() { close(t.end) }) }

// start begins a turn; a follow-up turn listens only for the follow-up
// window.
func (p *Pipeline) start(ctx context.Context, followUp bool) *turn {
	p.turns++
	tctx, cancel := context.WithCancel(ctx)
	t := &turn{id: p.turns, cancel: cancel, done: make(chan struct{}), end: make(chan struct{}), followUpTurn: followUp}
	t.listening.Store(true)
	go func() {
		defer close(t.done)
		defer cancel()
		p.runTurn(tctx, t, followUp)
	}()
	return t
}
