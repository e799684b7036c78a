package pipeline

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
)

// Earcons chooses the short sounds a turn plays through the Speaker, each
// generated here. The zero value plays none.
type Earcons struct {
	// Start is two soft notes rising a fifth as listening starts.
	Start bool
	// End is the same notes falling as listening ends: the box heard.
	End bool
	// Error is two low notes falling a semitone, a quarter of a second,
	// when a turn fails; not when it is cancelled or heard no speech.
	Error bool
	// Thinking is a very soft short pulse every 1.5 s from the end of
	// listening until the reply's first sentence plays, the turn ends or
	// it is cancelled. A reply that starts within 1.5 s has none.
	Thinking bool
	// Ready is a rising triad the first time the model is ready after
	// the box starts; the box plays it with Chime, outside any turn.
	Ready bool
}

// earcon is one of the sounds Earcons chooses.
type earcon int

const (
	earconStart earcon = iota
	earconEnd
	earconError
	earconThinking
	earconReady
)

func (e Earcons) on(k earcon) bool {
	switch k {
	case earconStart:
		return e.Start
	case earconEnd:
		return e.End
	case earconError:
		return e.Error
	case earconThinking:
		return e.Thinking
	}
	return false
}

// thinkEvery is the time between thinking pulses, and before the first.
const thinkEvery = 1500 * time.Millisecond

// earcon plays sound k, when it is on, without holding up the turn; wg
// tracks it.
func (p *Pipeline) earcon(ctx context.Context, wg *sync.WaitGroup, k earcon) {
	if !p.earcons().on(k) || p.opts.Speaker == nil {
		return
	}
	wg.Go(func() { p.sound(ctx, k) })
}

// thinking plays the thinking pulse, when it is on, every thinkEvery until
// ctx is done or quiet is called; wg tracks it. quiet cuts a pulse that is
// playing and returns once the speaker is free of it; it may be called
// more than once, and must be called before anything waits for wg.
func (p *Pipeline) thinking(ctx context.Context, wg *sync.WaitGroup) (quiet func()) {
	if !p.earcons().Thinking || p.opts.Speaker == nil {
		return func() {}
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	wg.Go(func() {
		defer close(done)
		tick := time.NewTicker(thinkEvery)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
			p.sound(ctx, earconThinking)
		}
	})
	return func() {
		cancel()
		<-done
	}
}

// sound plays k once, returning when it has played or ctx is done.
func (p *Pipeline) sound(ctx context.Context, k earcon) {
	if err := play(ctx, p.opts.Speaker, k); err != nil && ctx.Err() == nil {
		p.log.Debug("earcon not played", "err", err)
	}
}

// play plays k once on spk. A write that fails drops the playback rather
// than drain it: the turn waits for its earcons.
func play(ctx context.Context, spk Speaker, k earcon) error {
	pb, err := spk.Open(ctx)
	if err != nil {
		return fmt.Errorf("pipeline: earcon: open speaker: %w", err)
	}
	rate, ch := pb.Format()
	if err := pb.Write(ctx, earconSound(k, rate, ch)); err != nil {
		drop(ctx, pb)
		return fmt.Errorf("pipeline: earcon: play: %w", err)
	}
	if err := pb.Close(ctx); err != nil {
		return fmt.Errorf("pipeline: earcon: close: %w", err)
	}
	return nil
}

// Chime plays the "ready" earcon on spk outside any turn, returning once
// it has played: the box calls it the first time its model is ready after
// it starts. Without a speaker it does nothing.
func Chime(ctx context.Context, spk Speaker) error {
	if spk == nil {
		return nil
	}
	return play(ctx, spk, earconReady)
}

// earconSound is k at rate and channels:
//   - start and end: two quick soft notes a fifth apart (660 and 990 Hz,
//     60 ms each), rising for "I am listening", falling for "I heard you";
//   - error: two lower, longer notes falling a semitone (440 to 415 Hz,
//     125 ms each), the sigh of something gone wrong;
//   - thinking: one 100 ms swell at 523 Hz, at a third of the others'
//     level, to be heard without being listened to;
//   - ready: a major triad rising (523, 659 and 784 Hz, 90 ms each), the
//     box awake.
func earconSound(k earcon, rate, channels int) pcm.Buffer {
	switch k {
	case earconReady:
		return notes(rate, channels, 90*time.Millisecond, 12*time.Millisecond, 0.2, 523.25, 659.25, 783.99)
	case earconStart:
		return notes(rate, channels, 60*time.Millisecond, 8*time.Millisecond, 0.25, 660, 990)
	case earconEnd:
		return notes(rate, channels, 60*time.Millisecond, 8*time.Millisecond, 0.25, 990, 660)
	case earconError:
		return notes(rate, channels, 125*time.Millisecond, 20*time.Millisecond, 0.2, 440, 415.3)
	default:
		return notes(rate, channels, 100*time.Millisecond, 50*time.Millisecond, 0.08, 523.25)
	}
}

// notes is sine tones at hz one after the other, each d long, at level
// amp, fading in and out over fade.
func notes(rate, channels int, d, fade time.Duration, amp float64, hz ...float64) pcm.Buffer {
	note := pcm.FramesIn(d, rate)
	edge := float64(pcm.FramesIn(fade, rate))
	b := pcm.Buffer{Rate: rate, Channels: channels, Samples: make([]float32, len(hz)*note*channels)}
	for n, f := range hz {
		for i := range note {
			env := math.Min(1, math.Min(float64(i), float64(note-1-i))/edge)
			v := float32(amp * env * math.Sin(2*math.Pi*f*float64(i)/float64(rate)))
			for c := range channels {
				b.Samples[((n*note)+i)*channels+c] = v
			}
		}
	}
	return b
}
