package pipeline

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/voice"
)

// What the box says about the microphone itself.
var (
	mutedNotice = locale.Key("The microphone is off.")
	cutNotice   = locale.Key("I only caught the first part of that.")
	noMicNotice = locale.Key("I can't hear you: my microphone isn't working.")
)

// runTurn takes one turn from listening to the end of the reply's speech.
func (p *Pipeline) runTurn(ctx context.Context, t *turn, followUp bool) {
	began := time.Now()
	rec := voice.Turn{ID: t.id, Began: began}
	defer func() {
		if p.opts.Turns != nil {
			p.opts.Turns(rec)
		}
	}()
	log := p.log.With("turn_id", t.id)
	p.publish(voice.Status{State: voice.Listening, Turn: t.id, FollowUp: followUp})
	var earcons sync.WaitGroup
	defer earcons.Wait()
	p.earcon(ctx, &earcons, earconStart)
	l := voice.Listen{End: t.end, Echo: p.echo.heard}
	switch {
	case followUp:
		l.StartTimeout, l.EndOnSilence, l.FollowUp = p.opts.FollowUp.Window, true, true
	case p.opts.Talk == TalkTap:
		l.StartTimeout, l.EndOnSilence = p.opts.NoSpeech, true
	}
	spec := p.speculator(&l)
	defer spec.close()
	utt, err := p.opts.Microphone.Record(ctx, l)
	if followUp && errors.Is(err, voice.ErrNoSpeech) {
		t.unheard.Store(true)
	}
	t.listening.Store(false)
	if errors.Is(err, voice.ErrMuted) && ctx.Err() == nil {
		p.log.Info("press while muted", "turn_id", t.id)
		p.notice(ctx, t, p.opts.Lang.T(mutedNotice))
		return
	}
	if errors.Is(err, voice.ErrNoMicrophone) && ctx.Err() == nil {
		// A press with the microphone gone: said, not only shown.
		p.notice(ctx, t, p.opts.Lang.T(noMicNotice))
	}
	if err != nil {
		rec.Err = failure(ctx, err)
		p.fail(ctx, t, &earcons, "record", err)
		return
	}
	heard := time.Now()
	rec.Endpoint = heard.Sub(began)
	p.earcon(ctx, &earcons, earconEnd)
	quiet := p.thinking(ctx, &earcons)
	defer quiet()

	p.publish(voice.Status{State: voice.Transcribing, Turn: t.id})
	tr, err := spec.transcribe(ctx, p.opts.Transcriber, utt)
	if err == nil && strings.TrimSpace(tr.Text) == "" {
		err = voice.ErrNoSpeech
	}
	if err != nil {
		quiet()
		rec.Err = failure(ctx, err)
		p.fail(ctx, t, &earcons, "transcribe", err)
		return
	}
	transcribed := time.Now()
	rec.Heard, rec.Transcribe = tr.Text, transcribed.Sub(heard)

	p.publish(voice.Status{State: voice.Thinking, Turn: t.id, Text: tr.Text})
	// The turn's language, decided once: the reply, its commands and the
	// voice all read it from ctx.
	ctx = locale.WithLanguage(ctx, p.language(ctx, tr))
	v := p.speak(ctx, t, quiet)
	if utt.Cut {
		v.say(locale.Speaking(ctx).T(cutNotice))
	}
	out, err := p.opts.Replier.Reply(ctx, Query{Turn: t.id, Text: tr.Text, Language: tr.Language}, v.say)
	played := v.finish()
	quiet() // a reply that said nothing before it ended
	if err == nil && ctx.Err() != nil {
		err = ctx.Err() // the reply was written, but a press cut its speech short
	}
	op := "reply"
	if played != nil {
		if err == nil {
			op = "play" // written, but not heard
		}
		err = errors.Join(err, played)
	}
	rec.Said, rec.Cut, rec.Err = v.said, ctx.Err() != nil, failure(ctx, err)
	if !v.firstAudio.IsZero() {
		rec.FirstAudio = v.firstAudio.Sub(heard)
	}
	switch p.followUpPolicy() {
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
	if spec != nil {
		attrs = append(attrs, "ahead", spec.used, "ahead_started", spec.started, "ahead_dropped", spec.dropped)
	}
	if !v.firstAudio.IsZero() {
		attrs = append(attrs, "first_audio_ms", ms(v.firstAudio.Sub(heard)))
	}
	if err != nil {
		p.fail(ctx, t, &earcons, op, err)
		return
	}
	log.Info("turn done", attrs...)
}

// language is the language of the turn whose transcript is tr.
func (p *Pipeline) language(ctx context.Context, tr voice.Transcript) string {
	if p.opts.Decide != nil {
		return p.opts.Decide(ctx, tr.Language, tr.Text)
	}
	return locale.Decide(tr.Language, tr.Text, p.opts.Lang)
}

// notice says a sentence of the box's own in turn t, about the turn
// itself (the microphone is off, or gone).
func (p *Pipeline) notice(ctx context.Context, t *turn, text string) {
	v := p.speak(ctx, t, nil)
	v.say(text)
	if err := v.finish(); err != nil {
		p.log.Warn("notice not heard", "turn_id", t.id, "err", err)
	}
}

// fail ends a turn that did not complete: quietly when it was cancelled or
// heard nothing, with the Error state and its earcon otherwise. The earcon
// follows the turn's earlier ones, which earcons tracks, rather than
// sounding over them; the thinking pulse must be quiet already.
func (p *Pipeline) fail(ctx context.Context, t *turn, earcons *sync.WaitGroup, op string, err error) {
	switch {
	case ctx.Err() != nil:
		p.log.Debug("turn cancelled", "turn_id", t.id, "during", op)
	case errors.Is(err, voice.ErrNoSpeech):
		p.log.Info("turn heard no speech", "turn_id", t.id)
	default:
		p.log.Warn("turn failed", "turn_id", t.id, "during", op, "err", err)
		p.publish(voice.Status{State: voice.Error, Turn: t.id, Err: err})
		if p.earcons().Error {
			earcons.Wait()
			p.earcon(ctx, earcons, earconError)
		}
	}
}

// failure is err as a turn's record says it: "" for none, for a turn a
// press cancelled and for one that heard nothing.
func failure(ctx context.Context, err error) string {
	if err == nil || ctx.Err() != nil || errors.Is(err, voice.ErrNoSpeech) {
		return ""
	}
	return err.Error()
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
