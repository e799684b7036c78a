package pipeline

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// Alert is a timer, alarm or reminder going off.
type Alert struct {
	ID string
	// Announcement is said before the ringing starts, in the voice of
	// Language (the language it was set in; "" for the box's own).
	Announcement string
	Language     string
	// Missed is said instead, once the box can speak again, when the
	// alert could not be heard (the speaker was gone); "" says nothing.
	Missed string
	// MissedAt, when set, words Missed when it is told, for the wall
	// clock's time then: an alert told after midnight went off
	// "yesterday". Missed is said as it is when MissedAt is nil.
	MissedAt func(now time.Time) string
	// Stale, when not zero, is the wall clock's time after which Missed
	// is too old to tell: an alert not told by then is dropped at the
	// next try, unsaid, and Told is called, as for one told.
	Stale time.Time
	// Done, when set, is called once when the alert has stopped ringing,
	// however it stopped (a press, Stop, StopAlerts, StopAlert, RingFor),
	// or was dropped before it rang.
	Done func()
	// Unheard, when set, is called once if the alert rang unheard (the
	// speaker failed; only the lights showed it) and, having a Missed, is
	// kept to be told; it is called before the alert can be told, and may
	// block briefly (to record it, so a restart does not lose it).
	Unheard func()
	// Told, when set, is called once Missed needs telling no more: it was
	// said (the speaker took it), or a press cut the telling short before
	// it (what was not told then is not told). It is not called while
	// the alert is kept for a later try: the speaker or the voice failed,
	// an alert came due first, or Run ended. It may block briefly.
	Told func()
	// also are the alerts announced with this one (they came due while it
	// waited): stopping it stops them, and each is done with it.
	also []Alert
}

// ids are the alert's id and those announced with it.
func (a Alert) ids() []string {
	out := []string{a.ID}
	for _, b := range a.also {
		out = append(out, b.ID)
	}
	return out
}

// done reports that a (and those announced with it) stopped ringing, or
// will never ring.
func (a Alert) done() {
	if a.Done != nil {
		a.Done()
	}
	for _, b := range a.also {
		b.done()
	}
}

// unheard reports that a (and those announced with it) rang unheard.
func (a Alert) unheard() {
	if a.Unheard != nil {
		a.Unheard()
	}
	for _, b := range a.also {
		b.unheard()
	}
}

// missedAt is what a (and those announced with it) says, told at now.
func (a Alert) missedAt(now time.Time) string {
	if a.MissedAt == nil {
		return a.Missed
	}
	return a.MissedAt(now)
}

// told reports that a (and those announced with it) need telling no more.
func (a Alert) told() {
	if a.Told != nil {
		a.Told()
	}
	for _, b := range a.also {
		b.told()
	}
}

// MissedProbe is how often, while an alert could not be heard, the
// pipeline tries the speaker again to say what was missed.
const MissedProbe = 30 * time.Second

// Ring queues an alert. It never blocks: the alert rings at once, ending a
// turn under way, or after the alert ringing now is silenced. It rings
// until a press, Stop, StopAlerts or the RingFor limit.
func (p *Pipeline) Ring(a Alert) {
	p.alerts.push(a)
	select {
	case p.alertCh <- struct{}{}:
	default: // Run has a wake-up waiting already
	}
}

// Tell keeps an alert that rang unheard before this run (its Unheard was
// called in an earlier run of the box, which ended before it was told) to
// be told like one that rings unheard now: as soon as the box is idle and
// the speaker plays. It never blocks, and it does not ring. Of a, Tell
// uses ID, Missed, Language and Told; one without Missed is not kept.
func (p *Pipeline) Tell(a Alert) {
	if !p.alerts.miss(a) {
		return
	}
	p.alerts.mu.Lock()
	p.alerts.handed = true
	p.alerts.mu.Unlock()
	select {
	case p.tellCh <- struct{}{}:
	default: // Run has a wake-up waiting already
	}
}

// StopAlerts silences the ringing alert, reporting whether one rang or
// waited. Alerts that came due while it rang are then announced together:
// one press never silences an alert nobody heard. It is safe to call from
// any goroutine, including a command running inside a turn.
func (p *Pipeline) StopAlerts() bool {
	return p.alerts.stop("")
}

// StopAlert silences the alert of that id, ringing or waiting, and
// reports whether there was one; the others ring on. It is safe to call
// from any goroutine.
func (p *Pipeline) StopAlert(id string) bool {
	if id == "" {
		return false
	}
	return p.alerts.stop(id)
}

// alertState holds the ringing alert, the queue and the alerts nobody
// heard, shared between Run and StopAlerts.
type alertState struct {
	mu      sync.Mutex
	pending []Alert
	cancel  context.CancelFunc // of the alert ringing now
	ringing []string           // its ids (and those announced with it)
	missed  []Alert            // rang while the speaker was gone
	// tellFailing is set while the speaker fails to tell the missed alerts:
	// the failure is logged once, not at every try.
	tellFailing bool
	// handed is set when Tell hands over an alert, cleared when the
	// missed alerts are taken to be told.
	handed bool
}

func (s *alertState) push(a Alert) {
	s.mu.Lock()
	s.pending = append(s.pending, a)
	s.mu.Unlock()
}

// pop takes the next alert to ring: the first waiting, with every other
// waiting one in its language announced with it.
func (s *alertState) pop() (Alert, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 {
		return Alert{}, false
	}
	a := s.pending[0]
	first := a
	var rest []Alert
	var said, missed []string
	for _, b := range s.pending[1:] {
		if b.Language != a.Language {
			rest = append(rest, b)
			continue
		}
		said = append(said, b.Announcement)
		missed = append(missed, b.Missed)
		a.also = append(a.also, b)
	}
	if len(said) > 0 {
		a.Announcement = strings.Join(append([]string{a.Announcement}, said...), " ")
		a.Missed = strings.Join(append([]string{a.Missed}, missed...), " ")
		all := append([]Alert{first}, a.also...)
		if slices.ContainsFunc(all, func(b Alert) bool { return b.MissedAt != nil }) {
			a.MissedAt = func(now time.Time) string {
				var out []string
				for _, b := range all {
					out = append(out, b.missedAt(now))
				}
				return strings.Join(out, " ")
			}
		}
		for _, b := range all { // stale once the last of them is
			if b.Stale.IsZero() || a.Stale.IsZero() {
				a.Stale = time.Time{}
				break
			}
			if b.Stale.After(a.Stale) {
				a.Stale = b.Stale
			}
		}
	}
	s.pending = rest
	return a, true
}

// stop silences what rings (the alert of id, ringing or waiting, when id
// is not ""), reporting whether there was any. Without an id the alerts
// waiting stay, to be announced next: one press never silences an alert
// nobody heard.
func (s *alertState) stop(id string) bool {
	s.mu.Lock()
	any := id == "" && len(s.pending) > 0
	var dropped, kept []Alert
	for _, a := range s.pending {
		if id != "" && a.ID == id {
			dropped = append(dropped, a)
		} else {
			kept = append(kept, a)
		}
	}
	s.pending = kept
	any = any || len(dropped) > 0
	if s.cancel != nil && (id == "" || slices.Contains(s.ringing, id)) {
		s.cancel()
		s.cancel, s.ringing = nil, nil
		any = true
	}
	s.mu.Unlock()
	for _, a := range dropped {
		a.done()
	}
	return any
}

// miss keeps an alert nobody heard, to be told later, reporting whether
// it did: one with nothing to tell is not kept.
func (s *alertState) miss(a Alert) bool {
	if a.Missed == "" {
		return false
	}
	s.mu.Lock()
	s.missed = append(s.missed, a)
	s.mu.Unlock()
	return true
}

// keep puts back alerts nobody heard that could not be told yet, before
// any missed since.
func (s *alertState) keep(missed []Alert) {
	s.mu.Lock()
	s.missed = append(missed, s.missed...)
	s.mu.Unlock()
}

// failedTelling records whether telling the missed alerts failed,
// reporting whether that is news.
func (s *alertState) failedTelling(failed bool) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	news := s.tellFailing != failed
	s.tellFailing = failed
	return news
}

func (s *alertState) takeMissed() []Alert {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.missed
	s.missed, s.handed = nil, false
	return m
}

// takeHanded reports whether alerts were handed over (Tell) since the
// missed ones were last taken, and forgets it.
func (s *alertState) takeHanded() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.handed
	s.handed = false
	return h
}

func (s *alertState) anyMissed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.missed) > 0
}

// ringer is an alert ringing (or what was missed being told), as Run sees
// it.
type ringer struct {
	cancel  context.CancelFunc
	done    chan struct{}
	telling bool // it tells what rang unheard
	// yield, of a telling, stops it keeping what it has not told yet: an
	// alert came due, and rings first.
	yield func()
}

// ring plays an alert: its announcement, then a double beep every two
// seconds until it is stopped or RingFor passes. A speaker that fails is
// tried again (see playAlert); an alert it could not play rings on
// silently (the LEDs show it) and is kept to be told when the speaker is
// back.
func (p *Pipeline) ring(ctx context.Context, a Alert) *ringer {
	rctx, cancel := context.WithTimeout(ctx, p.opts.RingFor)
	r := &ringer{cancel: cancel, done: make(chan struct{})}
	p.alerts.mu.Lock()
	p.alerts.cancel, p.alerts.ringing = cancel, a.ids()
	p.alerts.mu.Unlock()
	go func() {
		defer close(r.done)
		defer a.done()
		defer cancel()
		p.log.Info("ringing", "alert_id", a.ID)
		p.publish(voice.Status{State: voice.Ringing, Turn: p.turns, Text: a.Announcement})
		if !p.playAlert(rctx, a) {
			p.log.Warn("alert could not be heard: no working speaker; it rings silently and is told when the speaker is back", "alert_id", a.ID)
			if a.Missed != "" {
				a.unheard() // recorded before it can be told, so never after
				p.alerts.miss(a)
			}
			<-rctx.Done() // ring silently until stopped
		}
		p.alerts.mu.Lock()
		if slices.Equal(p.alerts.ringing, a.ids()) {
			p.alerts.cancel, p.alerts.ringing = nil, nil
		}
		p.alerts.mu.Unlock()
	}()
	return r
}

// How a ringing alert treats a speaker that fails (a write that stalls,
// an xrun the card does not recover from, a card that went away): the
// playback is dropped and the speaker opened again after ringRetry, while
// the LEDs go on ringing; after ringGiveUp of nothing but failures the
// alert rings on silently.
const (
	ringRetry  = time.Second
	ringGiveUp = 30 * time.Second
)

// playAlert plays a's announcement, then beeps, until ctx is done,
// opening the speaker again after it fails. It reports whether the alert
// was heard: false when ctx was done while the speaker failed and it had
// played nothing of the alert yet, and when it gave up on the speaker (it
// returns at once then, without waiting for ctx).
func (p *Pipeline) playAlert(ctx context.Context, a Alert) bool {
	spk := p.opts.Speaker
	if spk == nil {
		return false
	}
	var speech pcm.Buffer // the announcement, until the speaker took it
	if p.opts.Synthesizer != nil && a.Announcement != "" {
		if b, err := p.opts.Synthesizer.Synthesize(locale.WithLanguage(ctx, a.Language), a.Announcement); err == nil {
			speech = b
		}
	}
	heard, warned := false, false
	var failing time.Time // since when the speaker has failed; zero while it plays
	played := func() { heard, failing = true, time.Time{} }
	retry := time.NewTimer(ringRetry)
	retry.Stop()
	defer retry.Stop()
	// Stopped while the speaker plays, the alert is being heard.
	heardAtStop := func() bool { return heard || failing.IsZero() }
	for {
		err := ringOn(ctx, spk, &speech, played)
		if ctx.Err() != nil {
			return heardAtStop()
		}
		switch {
		case failing.IsZero():
			failing = time.Now()
		case time.Since(failing) >= ringGiveUp:
			return false
		}
		if !warned {
			warned = true
			p.log.Warn("the speaker failed while an alert rang; it is tried again", "alert_id", a.ID, "err", err)
		}
		retry.Reset(ringRetry)
		select {
		case <-ctx.Done():
			return heardAtStop()
		case <-retry.C:
		}
	}
}

// ringOn opens spk and plays the announcement in speech, if any (and
// clears it once played), then a double beep every two seconds, calling
// played after each write the speaker took. It returns when ctx is done
// or the speaker failed, with that error.
func ringOn(ctx context.Context, spk Speaker, speech *pcm.Buffer, played func()) error {
	pb, err := spk.Open(ctx)
	if err != nil {
		return fmt.Errorf("open speaker: %w", err)
	}
	rate, ch := pb.Format()
	write := func(b pcm.Buffer) error {
		if err := pb.Write(ctx, b); err != nil {
			drop(ctx, pb) // not drained: it may be stalled
			return err
		}
		played()
		return nil
	}
	if len(speech.Samples) > 0 {
		if err := write(pcm.Convert(*speech, rate, ch)); err != nil {
			return err
		}
		*speech = pcm.Buffer{}
	}
	beep := chime(rate, ch)
	pause := time.NewTimer(0)
	defer pause.Stop()
	for {
		if err := write(beep); err != nil {
			return err
		}
		pause.Reset(1500 * time.Millisecond)
		select {
		case <-ctx.Done():
			pb.Close(ctx)
			return ctx.Err()
		case <-pause.C:
		}
	}
}

// fresh are the alerts of missed still worth telling, worded for now;
// the stale ones are dropped, and reported told.
func (p *Pipeline) fresh(missed []Alert) []Alert {
	now := time.Now()
	var out []Alert
	for _, a := range missed {
		if !a.Stale.IsZero() && now.After(a.Stale) {
			p.log.Info("an alert nobody heard went off too long ago to be told; dropping it", "alert_id", a.ID)
			a.told()
			continue
		}
		a.Missed = a.missedAt(now)
		out = append(out, a)
	}
	return out
}

// errYield is why a telling stops when an alert comes due.
var errYield = errors.New("pipeline: an alert came due")

// tell says what rang while the speaker was gone, if the speaker is back,
// reporting each alert told (Told) once the speaker took it. What it
// cannot say is kept for the next try: all of it when the speaker does not
// open, the alert it was telling and those after it when a write fails
// (the playback is dropped then, not drained) or the voice fails, or when
// an alert comes due (it rings first) or Run ends. A press cuts it short:
// what was not told yet is not told.
func (p *Pipeline) tell(ctx context.Context) *ringer {
	missed := p.fresh(p.alerts.takeMissed())
	rctx, cancel := context.WithCancelCause(ctx)
	r := &ringer{cancel: func() { cancel(nil) }, yield: func() { cancel(errYield) }, done: make(chan struct{}), telling: true}
	// cutShort settles what a telling stopped before it was told. Stopped
	// for good (a press), those handed over while it told go with it: they
	// were to be told after these.
	cutShort := func(rest []Alert) {
		if ctx.Err() != nil || errors.Is(context.Cause(rctx), errYield) {
			p.alerts.keep(rest)
			return
		}
		for _, a := range append(rest, p.alerts.takeMissed()...) {
			a.told()
		}
	}
	go func() {
		defer close(r.done)
		defer cancel(nil)
		spk := p.opts.Speaker
		if spk == nil {
			p.alerts.keep(missed)
			return
		}
		pb, err := spk.Open(rctx)
		if err != nil {
			if rctx.Err() != nil {
				cutShort(missed)
				return
			}
			p.alerts.keep(missed)
			return
		}
		rate, ch := pb.Format()
		for i, a := range missed {
			p.log.Info("telling an alert nobody heard", "alert_id", a.ID)
			p.publish(voice.Status{State: voice.Speaking, Turn: p.turns, Text: a.Missed})
			if p.opts.Synthesizer == nil {
				a.told() // shown, with no voice to say it
				continue
			}
			b, err := p.opts.Synthesizer.Synthesize(locale.WithLanguage(rctx, a.Language), a.Missed)
			if err != nil && rctx.Err() == nil {
				// No voice to tell it with: what was told plays out.
				p.alerts.keep(missed[i:])
				if p.alerts.failedTelling(true) {
					p.log.Warn("the voice failed telling an alert nobody heard; it is kept, with those after it, and told at the next try", "alert_id", a.ID, "err", err)
				}
				pb.Close(rctx)
				return
			}
			if err == nil {
				err = pb.Write(rctx, pcm.Convert(b, rate, ch))
			}
			switch {
			case err == nil:
				a.told()
				continue
			case rctx.Err() != nil:
				drop(rctx, pb)
				cutShort(missed[i:])
				return
			}
			drop(rctx, pb) // not drained: it may be stalled
			p.alerts.keep(missed[i:])
			if p.alerts.failedTelling(true) {
				p.log.Warn("the speaker failed telling an alert nobody heard; it is kept, with those after it, and told when the speaker plays again", "alert_id", a.ID, "err", err)
			}
			return
		}
		p.alerts.failedTelling(false)
		if err := pb.Close(rctx); err != nil && rctx.Err() == nil {
			p.log.Warn("the speaker failed as it finished telling the alerts nobody heard", "err", err)
		}
	}()
	return r
}

// chime is the alert sound: two short 880 Hz beeps with soft edges.
func chime(rate, channels int) pcm.Buffer {
	tone := pcm.FramesIn(150*time.Millisecond, rate)
	gap := pcm.FramesIn(100*time.Millisecond, rate)
	fade := pcm.FramesIn(10*time.Millisecond, rate)
	frames := 2*tone + gap
	b := pcm.Buffer{Rate: rate, Channels: channels, Samples: make([]float32, frames*channels)}
	for _, start := range []int{0, tone + gap} {
		for i := range tone {
			env := math.Min(1, math.Min(float64(i), float64(tone-1-i))/float64(fade))
			v := float32(0.4 * env * math.Sin(2*math.Pi*880*float64(i)/float64(rate)))
			for c := range channels {
				b.Samples[(start+i)*channels+c] = v
			}
		}
	}
	return b
}
