package pipeline

import (
	"context"
	"math"
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
	// Done, when set, is called once when the alert has stopped ringing,
	// however it stopped (a press, Stop, StopAlerts, StopAlert, RingFor),
	// or was dropped before it rang.
	Done func()
}

// done reports that a has stopped ringing, or will never ring.
func (a Alert) done() {
	if a.Done != nil {
		a.Done()
	}
}

// Ring queues an alert. It never blocks: the alert rings as soon as the box
// is not busy with a turn, until a press, Stop, StopAlerts or the RingFor
// limit.
func (p *Pipeline) Ring(a Alert) {
	select {
	case p.alertCh <- a:
	default:
		p.log.Warn("too many alerts queued; dropping one", "alert_id", a.ID)
		a.done()
	}
}

// StopAlerts silences the ringing alert and drops those waiting, reporting
// whether there was any. It is safe to call from any goroutine, including a
// command running inside a turn.
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

// alertState holds the ringing alert and the queue, shared between Run and
// StopAlerts.
type alertState struct {
	mu      sync.Mutex
	pending []Alert
	cancel  context.CancelFunc // of the alert ringing now
	ringing string             // its id
}

func (s *alertState) push(a Alert) {
	s.mu.Lock()
	s.pending = append(s.pending, a)
	s.mu.Unlock()
}

func (s *alertState) pop() (Alert, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.pending) == 0 {
		return Alert{}, false
	}
	a := s.pending[0]
	s.pending = s.pending[1:]
	return a, true
}

// stop silences the alert of id (every alert when id is ""), ringing or
// waiting, and reports whether there was any.
func (s *alertState) stop(id string) bool {
	s.mu.Lock()
	var dropped, kept []Alert
	for _, a := range s.pending {
		if id == "" || a.ID == id {
			dropped = append(dropped, a)
		} else {
			kept = append(kept, a)
		}
	}
	s.pending = kept
	any := len(dropped) > 0
	if s.cancel != nil && (id == "" || s.ringing == id) {
		s.cancel()
		s.cancel, s.ringing = nil, ""
		any = true
	}
	s.mu.Unlock()
	for _, a := range dropped {
		a.done()
	}
	return any
}

// ringer is an alert ringing, as Run sees it.
type ringer struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// ring plays an alert: its announcement, then a double beep every two
// seconds until it is stopped or RingFor passes.
func (p *Pipeline) ring(ctx context.Context, a Alert) *ringer {
	rctx, cancel := context.WithTimeout(ctx, p.opts.RingFor)
	r := &ringer{cancel: cancel, done: make(chan struct{})}
	p.alerts.mu.Lock()
	p.alerts.cancel, p.alerts.ringing = cancel, a.ID
	p.alerts.mu.Unlock()
	go func() {
		defer close(r.done)
		defer a.done()
		defer cancel()
		p.log.Info("ringing", "alert_id", a.ID)
		p.publish(voice.Status{State: voice.Ringing, Turn: p.turns, Text: a.Announcement})
		p.playAlert(rctx, a)
		p.alerts.mu.Lock()
		if p.alerts.ringing == a.ID {
			p.alerts.cancel, p.alerts.ringing = nil, ""
		}
		p.alerts.mu.Unlock()
	}()
	return r
}

func (p *Pipeline) playAlert(ctx context.Context, a Alert) {
	spk := p.opts.Speaker
	if spk == nil {
		<-ctx.Done() // nothing to play on: ring silently until stopped
		return
	}
	pb, err := spk.Open(ctx)
	if err != nil {
		p.log.Warn("open speaker for alert failed", "err", err)
		<-ctx.Done()
		return
	}
	defer pb.Close(ctx)
	rate, ch := pb.Format()
	if p.opts.Synthesizer != nil && a.Announcement != "" {
		if b, err := p.opts.Synthesizer.Synthesize(locale.WithLanguage(ctx, a.Language), a.Announcement); err == nil {
			if pb.Write(ctx, pcm.Convert(b, rate, ch)) != nil {
				return
			}
		}
	}
	beep := chime(rate, ch)
	pause := time.NewTimer(0)
	defer pause.Stop()
	for {
		if pb.Write(ctx, beep) != nil {
			return
		}
		pause.Reset(1500 * time.Millisecond)
		select {
		case <-ctx.Done():
			return
		case <-pause.C:
		}
	}
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
