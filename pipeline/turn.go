package pipeline

import (
	"context"
	"errors"
	"strings"
	"time"
)

// runTurn takes one turn from listening to the end of the reply's speech.
func (p *Pipeline) runTurn(ctx context.Context, t *turn, followUp bool) {
	began := time.Now()
	log := p.log.With("turn_id", t.id)
	p.publish(Status{State: Listening, Turn: t.id, FollowUp: followUp})
	l := Listen{End: t.end}
	if followUp {
		l.StartTimeout = p.opts.FollowUp.Window
	}
	utt, err := p.opts.Microphone.Record(ctx, l)
	t.listening.Store(false)
	if err != nil {
		p.fail(ctx, t, "record", err)
		return
	}
	heard := time.Now()

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
