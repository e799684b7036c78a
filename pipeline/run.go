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
// listens again (barge-in). In the follow-up window a press ends what was
// said in it; before any word it listens for the answer as a press when
// idle does. Talk is a press, but while an alert rings it silences the
// alert and listens. Stop cancels everything. In hold mode the release
// ends the utterance, and a Stop (a long press) while talking is ignored.
//
// Alerts ring on time: one that comes due during a turn ends the turn.
// Alerts that come due while another rings are announced together once it
// is silenced, whether by a press, Stop or StopAlerts. An alert the speaker
// could not play is told when the speaker is back: after the next turn or
// ring, or within MissedProbe while idle; one from before this run (Tell)
// at once when idle.
func (p *Pipeline) Run(ctx context.Context, events <-chan Event) error {
	p.publish(voice.Status{State: voice.Idle})
	var l loop
	probe := time.NewTicker(MissedProbe)
	defer probe.Stop()
	for {
		select {
		case <-ctx.Done():
			l.cancelTurn()
			l.stopRing()
			return nil
		case <-l.turnDone():
			p.turnOver(ctx, &l)
		case <-l.ringDone():
			// After a telling, what was handed over while it told is told
			// at once; what it kept (the speaker or the voice failed)
			// waits for the probe, or the next turn or ring.
			told := l.ring.telling
			l.ring = nil
			p.next(ctx, &l, false, !told || p.alerts.takeHanded())
		case <-p.alertCh:
			p.alertDue(ctx, &l)
		case <-probe.C:
			p.tellIdle(ctx, &l)
		case <-p.tellCh:
			p.tellIdle(ctx, &l)
		case ev, ok := <-events:
			if !ok {
				if l.cur != nil {
					<-l.cur.done
					l.cur = nil
				}
				l.stopRing()
				p.publish(voice.Status{State: voice.Idle, Turn: p.turns})
				return nil
			}
			p.press(ctx, &l, ev)
		}
	}
}

// loop is what Run has under way: at most one turn and one ringing alert.
type loop struct {
	cur  *turn
	ring *ringer
}

// turnDone is closed when the turn under way returns; nil (never ready)
// with none.
func (l *loop) turnDone() <-chan struct{} {
	if l.cur == nil {
		return nil
	}
	return l.cur.done
}

// ringDone is closed when the ringing alert is done; nil with none.
func (l *loop) ringDone() <-chan struct{} {
	if l.ring == nil {
		return nil
	}
	return l.ring.done
}

func (l *loop) cancelTurn() {
	if l.cur != nil {
		l.cur.cancel()
		<-l.cur.done // stages return promptly once their context is done
		l.cur = nil
	}
}

func (l *loop) stopRing() {
	if l.ring != nil {
		l.ring.cancel()
		<-l.ring.done
		l.ring = nil
	}
}

// turnOver starts what comes after the turn under way returned: the
// recording of the answer the button asked for in the follow-up window
// (see press), or next.
func (p *Pipeline) turnOver(ctx context.Context, l *loop) {
	t := l.cur
	l.cur = nil
	if t.answer && t.unheard.Load() {
		l.cur = p.start(ctx, false)
		if t.answerEnded {
			l.cur.endUtterance()
		}
		return
	}
	p.next(ctx, l, t.followUp.Load(), true)
}

// next starts what comes after a turn or a ring: a queued alert, the
// follow-up window, what rang unheard (when tell), or idle.
func (p *Pipeline) next(ctx context.Context, l *loop, followUp, tell bool) {
	if a, ok := p.alerts.pop(); ok {
		l.ring = p.ring(ctx, a)
		return
	}
	if followUp {
		l.cur = p.start(ctx, true)
		return
	}
	if tell && p.alerts.anyMissed() {
		l.ring = p.tell(ctx)
		return
	}
	p.publish(voice.Status{State: voice.Idle, Turn: p.turns})
}

// tellIdle tells what rang unheard, if any, when the box is idle.
func (p *Pipeline) tellIdle(ctx context.Context, l *loop) {
	if l.cur == nil && l.ring == nil && p.alerts.anyMissed() {
		l.ring = p.tell(ctx)
	}
}

// alertDue rings an alert on time, whatever the turn is doing; one that
// comes due while another rings waits for it to be silenced.
func (p *Pipeline) alertDue(ctx context.Context, l *loop) {
	if l.cur != nil {
		p.log.Info("an alert ends the turn", "turn_id", l.cur.id)
		l.cancelTurn()
	}
	if l.ring != nil && l.ring.telling {
		l.ring.yield() // what it did not tell yet is told after
		<-l.ring.done
		l.ring = nil
	}
	if l.ring == nil {
		p.next(ctx, l, false, false)
	}
}

// press acts on a button event (see Run).
//
// A press in the follow-up window ends its recording: words said in it
// are the answer. When there were none the user pressed to answer, as
// they would anywhere else, so the turn that recorded the window is
// marked, and once it is over (turnOver) the answer is recorded as after
// any press: in hold mode until the release, in tap mode until silence or
// the next press. A release (or press) that comes before that recording
// began ends it as soon as it begins.
func (p *Pipeline) press(ctx context.Context, l *loop, ev Event) {
	t := l.cur
	awaiting := t != nil && t.awaitingAnswer()
	holding := p.opts.Talk == TalkHold && t != nil &&
		(awaiting && !t.answerEnded || t.listening.Load() && !t.followUpTurn)
	switch {
	case ev == Release:
		switch {
		case holding && awaiting:
			t.answerEnded = true
		case holding:
			t.endUtterance()
		}
	case ev == Stop && holding:
		// A long hold while talking is talking.
	case ev == Stop || ev == Abort:
		if l.cur != nil || l.ring != nil {
			p.log.Info("stop", "turn_id", p.turns)
			l.cancelTurn()
			p.StopAlerts()
			l.stopRing()
			p.next(ctx, l, false, false) // alerts nobody heard yet are still announced
		}
	case l.ring != nil && ev == Talk: // silence the alert and hear the words
		p.StopAlerts()
		l.stopRing()
		l.cur = p.start(ctx, false)
	case l.ring != nil: // a press silences the alert, and only that
		p.StopAlerts()
		l.stopRing()
		p.next(ctx, l, false, false)
	case t == nil:
		l.cur = p.start(ctx, false)
	case awaiting:
		t.answerEnded = true // pressed again before the answer's recording began
	case t.listening.Load() && t.followUpTurn:
		t.answer = true
		t.endUtterance()
	case t.listening.Load():
		t.endUtterance()
	default: // barge-in: drop the turn and listen again
		p.log.Info("barge-in", "turn_id", l.cur.id)
		l.cancelTurn()
		l.cur = p.start(ctx, false)
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
	// unheard is set, before listening is cleared, when the follow-up
	// window's recording caught no speech.
	unheard atomic.Bool
	// answer is set by a press in the follow-up window, and answerEnded by
	// the release (or another press) that ends the answer's recording
	// before it begins; Run's goroutine alone reads and writes them.
	answer, answerEnded bool
}

func (t *turn) endUtterance() { t.endOnce.Do(func() { close(t.end) }) }

// awaitingAnswer reports whether the button asked for the answer in the
// follow-up window and the window heard nothing yet: the answer's
// recording begins once this turn is over. Only Run's goroutine calls it.
func (t *turn) awaitingAnswer() bool {
	// listening before unheard: the turn sets unheard before it clears
	// listening.
	return t.answer && (t.listening.Load() || t.unheard.Load())
}

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
