package pipeline

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
)

// What the box says about the microphone itself.
const (
	mutedNotice = "The microphone is off."
	cutNotice   = "I only caught the first part of that."
)

// runTurn takes one turn from listening to the end of the reply's speech.
func (p *Pipeline) runTurn(ctx context.Context, t *turn, followUp bool) {
	began := time.Now()
	log := p.log.With("turn_id", t.id)
	p.publish(Status{State: Listening, Turn: t.id, FollowUp: followUp})
	var earcons sync.WaitGroup
	defer earcons.Wait()
	p.earcon(ctx, &earcons, true)
	l := Listen{End: t.end, Echo: p.echo.sounding}
	switch {
	case followUp:
		l.StartTimeout, l.EndOnSilence, l.FollowUp = p.opts.FollowUp.Window, true, true
	case p.opts.Talk == TalkTap:
		l.StartTimeout, l.EndOnSilence = p.opts.NoSpeech, true
	}
	utt, err := p.opts.Microphone.Record(ctx, l)
	t.listening.Store(false)
	if errors.Is(err, ErrMuted) && ctx.Err() == nil {
		p.log.Info("press while muted", "turn_id", t.id)
		v := p.speak(ctx, t)
		v.say(mutedNotice)
		v.finish()
		return
	}
	if err != nil {
		p.fail(ctx, t, "record", err)
		return
	}
	heard := time.Now()
	p.earcon(ctx, &earcons, false)

	p.publish(Status{State: Transcribing, Turn: t.id})
	tr, err := p.opts.Transcriber.Transcribe(ctx, utt)
	if err == nil && strings.TrimSpace(tr.Text) == "" {
		err = ErrNoSpeech
	}
	if err != nil {
		p.fail(ctx, t, "transcribe", err)
		return
	}
	transcribed := time.Now()

	p.publish(Status{State: Thinking, Turn: t.id, Text: tr.Text})
	v := p.speak(WithLanguage(ctx, tr.Language), t)
	if utt.Cut {
		v.say(cutNotice)
	}
	out, err := p.opts.Replier.Reply(ctx, Query{Turn: t.id, Text: tr.Text, Language: tr.Language}, v.say)
	v.finish()
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // the reply was written, but a press cut its speech short
	}
	switch p.opts.FollowUp.Policy {
	case FollowUpAlways:
		t.followUp.Store(err == nil)
	case FollowUpWhenAsked:
		t.followUp.Store(err == nil && (out.FollowUp || strings.HasSuffix(v.last, "?")))
	}

	attrs := []any{
		"listen_ms", ms(heard.Sub(began)),
		"transcribe_ms", ms(transcribed.Sub(heard)),
		"dur_ms", ms(time.Since(heard)),
		"sentences", v.sentences,
	}
	if !v.firstAudio.IsZero() {
		attrs = append(attrs, "first_audio_ms", ms(v.firstAudio.Sub(heard)))
	}
	if err != nil {
		p.fail(ctx, t, "reply", err)
		return
	}
	log.Info("turn done", attrs...)
}

// fail ends a turn that did not complete: quietly when it was cancelled or
// heard nothing, with the Error state otherwise.
func (p *Pipeline) fail(ctx context.Context, t *turn, op string, err error) {
	switch {
	case ctx.Err() != nil:
		p.log.Debug("turn cancelled", "turn_id", t.id, "during", op)
	case errors.Is(err, ErrNoSpeech):
		p.log.Info("turn heard no speech", "turn_id", t.id)
	default:
		p.log.Warn("turn failed", "turn_id", t.id, "during", op, "err", err)
		p.publish(Status{State: Error, Turn: t.id, Err: err})
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// earcon plays the listening sound, rising at the start (up) or falling
// at the end, without holding up the turn; wg tracks it.
func (p *Pipeline) earcon(ctx context.Context, wg *sync.WaitGroup, up bool) {
	if !p.opts.Earcons || p.opts.Speaker == nil {
		return
	}
	wg.Go(func() {
		pb, err := p.opts.Speaker.Open(ctx)
		if err != nil {
			p.log.Debug("earcon: open speaker failed", "err", err)
			return
		}
		rate, ch := pb.Format()
		pb.Write(ctx, earconSound(rate, ch, up))
		pb.Close(ctx)
	})
}

// earconSound is two quick soft notes, a fifth apart: rising for "I am
// listening", falling for "I heard you".
func earconSound(rate, channels int, up bool) pcm.Buffer {
	notes := []float64{660, 990}
	if !up {
		notes = []float64{990, 660}
	}
	note := pcm.FramesIn(60*time.Millisecond, rate)
	fade := pcm.FramesIn(8*time.Millisecond, rate)
	b := pcm.Buffer{Rate: rate, Channels: channels, Samples: make([]float32, 2*note*channels)}
	for n, hz := range notes {
		for i := range note {
			env := math.Min(1, math.Min(float64(i), float64(note-1-i))/float64(fade))
			v := float32(0.25 * env * math.Sin(2*math.Pi*hz*float64(i)/float64(rate)))
			for c := range channels {
				b.Samples[((n*note)+i)*channels+c] = v
			}
		}
	}
	return b
}
