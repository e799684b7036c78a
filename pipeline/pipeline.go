// Package pipeline runs Hark's voice turns: it listens when the button is
// pressed, has the utterance transcribed, asks for a reply, and speaks the reply
// sentence by sentence while it is still being written. A press in any busy
// state cancels the turn (barge-in) and listens again.
//
// The pipeline owns no hardware and no model. It declares the small interfaces
// it needs (Microphone, Transcriber, Replier, Synthesizer, Speaker), and
// device/box plugs in the device, speech and reply implementations. It
// publishes its state one way, through Feeds that never block a turn, to
// whatever shows or logs it.
package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// Microphone captures one utterance.
type Microphone interface {
	// Record blocks until the utterance is over: when l.End is closed (the
	// button ended it), when the source decides it is over (silence after
	// speech, end of a file), or when ctx is done, in which case it returns
	// ctx.Err(). It returns ErrNoSpeech when nothing was said, including
	// when l.StartTimeout passes before any speech begins.
	Record(ctx context.Context, l voice.Listen) (voice.Utterance, error)
}

// Transcriber turns an utterance into text.
type Transcriber interface {
	// Transcribe returns the words of u. It returns ErrNoSpeech when u holds
	// no speech, and ctx.Err() promptly when ctx is done. Calls never overlap.
	Transcribe(ctx context.Context, u voice.Utterance) (voice.Transcript, error)
}

// Query is one utterance handed to the Replier. The turn's language,
// decided from what was heard and said, is in the context of the call
// (locale.LanguageOf).
type Query struct {
	Turn uint64
	Text string
	// Language is what speech recognition heard; "" when it did not say.
	Language string
}

// Replier answers a query.
type Replier interface {
	// Reply answers q. It calls say once per complete sentence, in order, as
	// soon as each is ready, so that speech starts before the reply is
	// finished; say never blocks for long. When the reply fails, Reply says a
	// short sentence explaining it where it can and returns the error. It
	// returns promptly with ctx.Err() when ctx is done.
	Reply(ctx context.Context, q Query, say func(sentence string)) (Outcome, error)
}

// Outcome is what a reply means for the turn after it.
type Outcome struct {
	// FollowUp asks for the microphone to reopen without a press: the reply
	// waits for the user's answer.
	FollowUp bool
}

// ReplierFunc adapts a function to the Replier interface.
type ReplierFunc func(ctx context.Context, q Query, say func(sentence string)) (Outcome, error)

// Reply calls f.
func (f ReplierFunc) Reply(ctx context.Context, q Query, say func(string)) (Outcome, error) {
	return f(ctx, q, say)
}

// Synthesizer turns text into speech audio.
type Synthesizer interface {
	// Synthesize returns text spoken, at whatever rate and channel count the
	// engine produces; the pipeline converts it for the speaker.
	Synthesize(ctx context.Context, text string) (pcm.Buffer, error)
}

// Speaker plays replies.
type Speaker interface {
	// Open prepares the output for one reply.
	Open(ctx context.Context) (Playback, error)
}

// Playback is one reply being played.
type Playback interface {
	// Rate and Channels are what Write expects.
	Format() (rate, channels int)
	// Write plays b, blocking while the output is full. When ctx is done it
	// stops at once, drops what is queued and returns ctx.Err().
	Write(ctx context.Context, b pcm.Buffer) error
	// Close lets queued audio play out, or drops it at once when ctx is done,
	// and releases the output.
	Close(ctx context.Context) error
}

// Options configure a Pipeline. Microphone, Transcriber and Replier are
// required.
type Options struct {
	Microphone  Microphone
	Transcriber Transcriber
	Replier     Replier
	// Synthesizer may be nil: replies are then published as text only.
	Synthesizer Synthesizer
	// Speaker may be nil: speech is then synthesized nowhere.
	Speaker Speaker
	// FollowUp decides when the microphone reopens after a reply.
	FollowUp FollowUp
	// RingFor bounds how long an alert rings; default 15 minutes.
	RingFor time.Duration
	// Talk is how the button takes an utterance; default TalkTap.
	Talk TalkMode
	// NoSpeech ends a tapped turn in which no speech began; default 5 s.
	NoSpeech time.Duration
	// Speculate transcribes each utterance at its pauses, before it is
	// over (see Speculator), so that its transcript is ready, or nearly,
	// when the silence ends it. It costs the transcriptions the speech
	// makes useless when it goes on.
	Speculate bool
	// Completer, with Speculate, judges the words at each pause: when they
	// make a whole request the microphone ends the utterance on a short
	// silence. Nil ends every utterance on silence alone.
	Completer Completer
	// Earcons are the short sounds the turn plays on the Speaker; the zero
	// value plays none.
	Earcons Earcons
	// Lang is the box's own language, for what it says before it has
	// heard anyone; the zero value is English.
	Lang locale.Lang
	// Decide is a turn's language, decided once after transcription from
	// heard, the language speech recognition told ("" when it told none,
	// as for typed text), and text, the words. The wiring fills it from
	// the reply side, which reads the sentence templates too, so that a
	// turn here and a typed `hark ask` choose alike. It must be quick. Nil
	// is locale.Decide with Lang.
	Decide func(ctx context.Context, heard, text string) string
	// Log receives turn summaries at Info and state changes at Debug. It
	// never receives what the user said. Nil discards.
	Log *slog.Logger
	// Turns, when set, is told each turn as it went once it is over (the
	// turn's goroutine calls it before the next turn can start); it must
	// return quickly.
	Turns func(voice.Turn)
}

// FollowUpPolicy says when the microphone reopens after a reply.
type FollowUpPolicy string

// The follow-up policies.
const (
	// FollowUpOff never reopens the microphone.
	FollowUpOff FollowUpPolicy = "off"
	// FollowUpWhenAsked reopens it when the reply ends in a question or the
	// replier waits for input. It is the default.
	FollowUpWhenAsked FollowUpPolicy = "when-asked"
	// FollowUpAlways reopens it after every reply.
	FollowUpAlways FollowUpPolicy = "always"
)

// TalkMode is how the button takes an utterance.
type TalkMode string

// The talk modes.
const (
	// TalkTap: a press starts listening; the silence after speech ends the
	// utterance, or a second press. It is the default.
	TalkTap TalkMode = "tap"
	// TalkHold: the user talks while holding the button; the release ends
	// the utterance. A long press while talking is part of the talking,
	// not a stop.
	TalkHold TalkMode = "hold"
)

// FollowUp configures the follow-up window.
type FollowUp struct {
	Policy FollowUpPolicy
	// Window is how long the reopened microphone waits for speech to
	// begin; default 4 s.
	Window time.Duration
}

// Pipeline runs voice turns. Create it with New and drive it with Run.
type Pipeline struct {
	opts    Options
	log     *slog.Logger
	feeds   feedSet
	turns   uint64        // turn counter, owned by Run
	alertCh chan struct{} // a wake-up: an alert was queued
	tellCh  chan struct{} // a wake-up: an alert from before this run is to be told
	alerts  alertState
	echo    *echo // when the box's own sound will have died away

	// What a setting changes while the box runs (SetEarcons,
	// SetFollowUp), read by each turn.
	liveEarcons  atomic.Pointer[Earcons]
	liveFollowUp atomic.Pointer[FollowUpPolicy]
}

// SetEarcons changes the earcons from the next sound on.
func (p *Pipeline) SetEarcons(e Earcons) { p.liveEarcons.Store(&e) }

// SetFollowUp changes when the microphone reopens after a reply, from the
// next reply on; an unknown policy is an error.
func (p *Pipeline) SetFollowUp(f FollowUpPolicy) error {
	switch f {
	case FollowUpOff, FollowUpWhenAsked, FollowUpAlways:
		p.liveFollowUp.Store(&f)
		return nil
	}
	return fmt.Errorf("pipeline: unknown follow-up policy %q", f)
}

func (p *Pipeline) earcons() Earcons {
	if e := p.liveEarcons.Load(); e != nil {
		return *e
	}
	return p.opts.Earcons
}

func (p *Pipeline) followUpPolicy() FollowUpPolicy {
	if f := p.liveFollowUp.Load(); f != nil {
		return *f
	}
	return p.opts.FollowUp.Policy
}

// New returns a Pipeline for opts.
func New(opts Options) (*Pipeline, error) {
	switch {
	case opts.Microphone == nil:
		return nil, errors.New("pipeline: no microphone")
	case opts.Transcriber == nil:
		return nil, errors.New("pipeline: no transcriber")
	case opts.Replier == nil:
		return nil, errors.New("pipeline: no replier")
	}
	switch opts.FollowUp.Policy {
	case "":
		opts.FollowUp.Policy = FollowUpWhenAsked
	case FollowUpOff, FollowUpWhenAsked, FollowUpAlways:
	default:
		return nil, fmt.Errorf("pipeline: unknown follow-up policy %q", opts.FollowUp.Policy)
	}
	if opts.FollowUp.Window == 0 {
		opts.FollowUp.Window = 4 * time.Second
	}
	if opts.RingFor == 0 {
		opts.RingFor = 15 * time.Minute
	}
	switch opts.Talk {
	case "":
		opts.Talk = TalkTap
	case TalkTap, TalkHold:
	default:
		return nil, fmt.Errorf("pipeline: unknown talk mode %q", opts.Talk)
	}
	if opts.NoSpeech == 0 {
		opts.NoSpeech = 5 * time.Second
	}
	log := opts.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &echo{}
	if opts.Speaker != nil {
		opts.Speaker = echoSpeaker{Speaker: opts.Speaker, e: e}
	}
	return &Pipeline{opts: opts, log: log.With("pkg", "pipeline"), alertCh: make(chan struct{}, 1), tellCh: make(chan struct{}, 1), echo: e}, nil
}

// Subscribe returns a Feed that receives every state the pipeline publishes
// from now on. Call it before Run. Publishing to a Feed never blocks: a
// reader that falls more than capacity updates behind loses the oldest.
func (p *Pipeline) Subscribe(capacity int) *Feed {
	f := newFeed(capacity)
	p.feeds.add(f)
	return f
}

func (p *Pipeline) publish(s voice.Status) {
	p.log.Debug("state", "turn_id", s.Turn, "state", s.State.String())
	p.feeds.publish(s)
}

// Event is a button gesture that drives the pipeline.
type Event int

// The gestures the pipeline understands.
const (
	// Press starts listening when idle, ends the utterance while listening,
	// and cancels the turn and listens again in any other state.
	Press Event = iota + 1
	// Stop cancels whatever the turn is doing and returns to idle.
	Stop
	// Release is the button let go: in hold mode it ends the utterance.
	Release
	// Abort is a Stop that is never ignored, not even while the user holds
	// the button to talk: the box is about to do something else.
	Abort
	// Talk is a press that comes with the words already said: the
	// simulation's line typed at any moment. It is a Press, except that
	// while an alert rings it silences the alert and then listens, so the
	// words are answered rather than left for the next press.
	Talk
)

func (e Event) String() string {
	switch e {
	case Press:
		return "press"
	case Stop:
		return "stop"
	case Release:
		return "release"
	case Abort:
		return "abort"
	case Talk:
		return "talk"
	}
	return fmt.Sprintf("Event(%d)", int(e))
}
