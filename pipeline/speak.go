package pipeline

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// reader speaks one reply: sentences arrive through say, a synthesis goroutine
// turns each into audio while the previous one plays, and a playback goroutine
// publishes Speaking and plays them in order.
type reader struct {
	p     *Pipeline
	done  <-chan struct{} // the turn's context's: say never blocks a cancelled turn
	turn  uint64
	text  chan string
	audio chan clip
	wg    sync.WaitGroup
	quiet func() // silences the thinking pulse before the first sentence; may be nil

	// Written by the playback goroutine, read after finish.
	sentences  int
	firstAudio time.Time
	last       string   // the last sentence said
	said       []string // every sentence that began to play
	err        error    // why the speaker failed, if it did
}

type clip struct {
	text  string
	audio pcm.Buffer // empty when speech is off or synthesis failed
	// stream, when set, brings the audio piece by piece as a Streamer
	// makes it, and is closed at the sentence's end.
	stream <-chan pcm.Buffer
}

// Queue sizes: sentences waiting for synthesis, synthesized sentences
// waiting to play (one plays while the next is made), and pieces of a
// streamed sentence (enough that a voice faster than playback never
// waits for it: about 50 s of Piper's chunks).
const (
	textQueue   = 64
	audioQueue  = 1
	streamQueue = 1024
)

// speak starts reading a reply aloud; quiet, unless nil, is called before
// its first sentence plays.
func (p *Pipeline) speak(ctx context.Context, t *turn, quiet func()) *reader {
	v := &reader{p: p, done: ctx.Done(), turn: t.id, text: make(chan string, textQueue), audio: make(chan clip, audioQueue), quiet: quiet}
	v.wg.Add(2)
	go v.synthesize(ctx)
	go v.play(ctx)
	return v
}

// say queues a sentence. It blocks only when textQueue sentences are waiting,
// and never once the turn is cancelled.
func (v *reader) say(sentence string) {
	select {
	case v.text <- sentence:
	case <-v.done:
	}
}

// finish waits until everything said has been played, or dropped if the turn
// was cancelled. It returns why the speaker failed, if it did: the rest of
// the reply was then said as text only.
func (v *reader) finish() error {
	close(v.text)
	v.wg.Wait()
	return v.err
}

func (v *reader) synthesize(ctx context.Context) {
	defer v.wg.Done()
	defer close(v.audio)
	synth := v.p.opts.Synthesizer
	if r, ok := synth.(ReplyVoice); ok {
		synth = r.ForReply() // the reply's own: it keeps to one voice
	}
	for {
		var s string
		select {
		case <-ctx.Done():
			return
		case t, ok := <-v.text:
			if !ok {
				return
			}
			s = t
		}
		c := clip{text: s}
		var err error
		if st, ok := synth.(Streamer); ok {
			// The clip goes to playback at once; its audio follows.
			ch := make(chan pcm.Buffer, streamQueue)
			c.stream = ch
			select {
			case v.audio <- c:
			case <-ctx.Done():
				return
			}
			err = st.Stream(ctx, s, func(b pcm.Buffer) error {
				select {
				case ch <- b:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
			close(ch)
		} else if synth != nil {
			c.audio, err = synth.Synthesize(ctx, s)
		}
		if err != nil && ctx.Err() == nil {
			v.p.log.Warn("synthesize failed", "turn_id", v.turn, "err", err)
		}
		if c.stream != nil {
			continue
		}
		select {
		case v.audio <- c:
		case <-ctx.Done():
			return
		}
	}
}

// waitingAfter is how long the reply may go quiet between sentences
// before the lights say it is thinking again: a model that answers after
// the box said it is still waking up takes seconds, and "speaking" over
// silence would tell the user wrong.
const waitingAfter = time.Second

// next is the next sentence to play; more is false when the reply is
// over. After a sentence, a wait of waitingAfter for the next publishes
// Thinking.
func (v *reader) next() (c clip, more bool) {
	if v.sentences == 0 {
		c, more = <-v.audio
		return c, more
	}
	wait := time.NewTimer(waitingAfter)
	defer wait.Stop()
	select {
	case c, more = <-v.audio:
		return c, more
	case <-wait.C:
		v.p.publish(voice.Status{State: voice.Thinking, Turn: v.turn})
	}
	c, more = <-v.audio
	return c, more
}

// first is a clip's audio, or the first piece of its stream: it waits for
// the piece, or the stream's end (no audio); ok is false once ctx is done.
func first(ctx context.Context, c clip) (pcm.Buffer, bool) {
	if c.stream == nil {
		return c.audio, true
	}
	select {
	case b := <-c.stream:
		return b, true
	case <-ctx.Done():
		return pcm.Buffer{}, false
	}
}

func (v *reader) play(ctx context.Context) {
	defer v.wg.Done()
	var pb Playback
	defer func() {
		if pb != nil {
			if err := pb.Close(ctx); err != nil && ctx.Err() == nil {
				v.err = fmt.Errorf("pipeline: play reply: close: %w", err)
			}
		}
	}()
	speaker := v.p.opts.Speaker
	for {
		c, more := v.next()
		if !more {
			return
		}
		audio, ok := first(ctx, c)
		if !ok || ctx.Err() != nil {
			return
		}
		if v.sentences == 0 && v.quiet != nil {
			v.quiet()
		}
		if pb == nil && speaker != nil && len(audio.Samples) > 0 {
			var err error
			if pb, err = speaker.Open(ctx); err != nil {
				v.p.log.Warn("open speaker failed", "turn_id", v.turn, "err", err)
				speaker = nil // speak the rest as text only
			}
		}
		v.sentences++
		v.last = c.text
		v.said = append(v.said, c.text)
		if v.firstAudio.IsZero() {
			v.firstAudio = time.Now()
		}
		v.p.publish(voice.Status{State: voice.Speaking, Turn: v.turn, Text: c.text})
		for {
			if pb != nil && len(audio.Samples) > 0 {
				rate, channels := pb.Format()
				if err := pb.Write(ctx, pcm.Convert(audio, rate, channels)); err != nil {
					if ctx.Err() != nil {
						return
					}
					// A broken output must not stall the reply: it is
					// dropped, not drained (it may never play again), and
					// the rest is said as text.
					drop(ctx, pb)
					pb, speaker = nil, nil
					v.err = fmt.Errorf("pipeline: play reply: %w", err)
				}
			}
			if c.stream == nil {
				break
			}
			var more bool
			if audio, more = <-c.stream; !more {
				break
			}
		}
	}
}

// drop closes pb at once, discarding what it holds. A playback whose write
// failed ends this way, never drained: its output may be stalled, and a
// drain would wait on it.
func drop(ctx context.Context, pb Playback) {
	dropped, cancel := context.WithCancel(ctx)
	cancel()
	pb.Close(dropped)
}

// Announce says text on spk outside any turn (the factory-reset
// countdown, the storage notices, the access point's password), returning
// once it has been played. Without a synthesizer or a speaker there is
// nothing to say it with: it does nothing and returns nil.
//
// A speaker that fails (it does not open, a write or the drain fails) is
// given a second chance, as a ringing alert's is: the failed playback is
// dropped, not drained, and after announceRetry the speaker is opened
// again and text said from the start; a sound card's hiccup (a USB DAC
// starting over, an underrun it did not recover from) costs a repeat, not
// the sentence. When that fails too, or text cannot be synthesized, the
// error says what failed: the sentence was not heard. When ctx is done it
// returns ctx.Err(), wrapped.
func Announce(ctx context.Context, synth Synthesizer, spk Speaker, text string) error {
	if synth == nil || spk == nil {
		return nil
	}
	b, err := synth.Synthesize(ctx, text)
	if err != nil {
		return fmt.Errorf("pipeline: announce: synthesize: %w", err)
	}
	if err = announceOnce(ctx, spk, b); err == nil || ctx.Err() != nil {
		return wrapAnnounce(err, 1)
	}
	retry := time.NewTimer(announceRetry)
	defer retry.Stop()
	select {
	case <-ctx.Done():
		return fmt.Errorf("pipeline: announce: %w", ctx.Err())
	case <-retry.C:
	}
	return wrapAnnounce(announceOnce(ctx, spk, b), 2)
}

// announceRetry is how long Announce waits before it opens a speaker that
// failed again: a ringing alert's wait.
const announceRetry = ringRetry

// announceOnce plays b on spk, opened for it, and waits until it has been
// played out.
func announceOnce(ctx context.Context, spk Speaker, b pcm.Buffer) error {
	pb, err := spk.Open(ctx)
	if err != nil {
		return fmt.Errorf("open speaker: %w", err)
	}
	rate, ch := pb.Format()
	if err := pb.Write(ctx, pcm.Convert(b, rate, ch)); err != nil {
		drop(ctx, pb)
		return fmt.Errorf("play: %w", err)
	}
	if err := pb.Close(ctx); err != nil {
		return fmt.Errorf("play out: %w", err)
	}
	return nil
}

func wrapAnnounce(err error, tries int) error {
	switch {
	case err == nil:
		return nil
	case tries == 1:
		return fmt.Errorf("pipeline: announce: %w", err)
	}
	return fmt.Errorf("pipeline: announce (tried %d times): %w", tries, err)
}
