package endpoint

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/harkbox/hark/pipeline/pcm"
	"github.com/harkbox/hark/pipeline/voice"
)

// Source opens the microphone. Opening starts the capture; closing the
// stream stops it for real (the muted microphone records nothing).
type Source interface {
	Open() (Stream, error)
}

// SourceFunc adapts a function that opens a concrete stream to Source.
type SourceFunc[S Stream] func() (S, error)

// Open calls f.
func (f SourceFunc[S]) Open() (Stream, error) {
	s, err := f()
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Stream is a running capture of 16 kHz mono audio.
type Stream interface {
	// Read blocks until audio has been captured, fills p and returns how
	// many samples it wrote; it returns ctx.Err() when ctx is done.
	Read(ctx context.Context, p []float32) (int, error)
	Close() error
}

// Options configure a Listener.
type Options struct {
	Source Source
	// Detector scores speech; default an Energy detector.
	Detector Detector
	// PreRoll is the audio from before the press that starts each
	// utterance, so a first word said with the press is not lost; default
	// 1 s.
	PreRoll time.Duration
	// RoomHistory is how far back before the press the room is judged
	// for other voices (a television, people talking; see roomVoices), so
	// that a lull in their talk just before the press does not hide them;
	// default 4 s, never less than PreRoll.
	RoomHistory time.Duration
	// MinSilence and MaxSilence bound the silence after speech that ends
	// an utterance that ends on silence (see Endpointer); defaults 500 ms
	// and 950 ms. Silence, when set, is a fixed wait instead.
	MinSilence, MaxSilence time.Duration
	Silence                time.Duration
	// Settle is the silence that ends an utterance once what was said is
	// known to be a whole request (see voice.Pauses); default 300 ms.
	Settle time.Duration
	// PauseAfter is the silence after which a recording hands the words
	// so far to its voice.Pauses; default 250 ms.
	PauseAfter time.Duration
	// SoftSilence is how long the room's other voices, heard where the
	// user's have stopped, must go on to end an utterance on silence (see
	// Endpointer); default 1.5 s.
	SoftSilence time.Duration
	// MaxLength caps an utterance; default 15 s.
	MaxLength time.Duration
	// Margin is the audio kept after the last speech; default 500 ms. What
	// comes before the speech is kept from the press on, and at least a
	// second of it (pre-roll included): speech-to-text gets the whole
	// utterance, and trimming only spares it long silences.
	Margin time.Duration
	// Retry is how long to wait before reopening a microphone that
	// failed; default 2 s.
	Retry time.Duration
	Log   *slog.Logger
}

// Listener is the pipeline's Microphone over a live capture: Run keeps the
// capture going (and the pre-roll filled), Record takes one utterance.
type Listener struct {
	o   Options
	log *slog.Logger

	mu      sync.Mutex
	ring    history   // the last RoomHistory of audio
	said    [2]int64  // where the user spoke in the last recording, in ring.added's count
	ringAt  time.Time // when its last sample was caught
	rec     *recording
	muted   bool
	running bool
	beat    time.Time     // when the capture loop last made progress
	openErr error         // why the microphone is not capturing, when it is not
	state   chan struct{} // closed and replaced when running or openErr change
	changed chan struct{}
}

// recording receives the audio of one utterance.
type recording struct {
	audio chan caught
	err   chan error // the capture failed or was muted
}

// errStarting is the state before Run first opens the microphone.
var errStarting = errors.New("endpoint: the microphone is not running")

// startWait bounds how long a recording waits for a starting capture.
const startWait = 2 * time.Second

// readSize is what Run asks of the stream each time: 20 ms.
const readSize = pcm.SpeechRate / 50

// New returns a Listener; start it with Run.
func New(o Options) *Listener {
	if o.Detector == nil {
		o.Detector = &Energy{}
	}
	if o.PreRoll == 0 {
		o.PreRoll = time.Second
	}
	if o.RoomHistory == 0 {
		o.RoomHistory = 4 * time.Second
	}
	o.RoomHistory = max(o.RoomHistory, o.PreRoll)
	if o.Margin == 0 {
		o.Margin = 500 * time.Millisecond
	}
	if o.Retry == 0 {
		o.Retry = 2 * time.Second
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	return &Listener{o: o, log: o.Log.With("pkg", "endpoint"), changed: make(chan struct{}, 1),
		openErr: errStarting, state: make(chan struct{})}
}

// Run captures until ctx is done: it opens the source, reads it
// continuously, keeps the pre-roll, and hands audio to the recording under
// way. A source that fails is reopened after Retry; muting closes it.
func (l *Listener) Run(ctx context.Context) error {
	for ctx.Err() == nil {
		l.mu.Lock()
		muted := l.muted
		l.mu.Unlock()
		l.alive()
		if muted {
			if _, down := l.Health(); down != voice.ErrMuted {
				l.setDown(voice.ErrMuted)
			}
			if !l.waitChange(ctx, time.Second) { // a beat a second while muted
				break
			}
			continue
		}
		s, err := l.o.Source.Open()
		if err != nil {
			l.log.Error("microphone did not open", "err", err)
			l.setDown(fmt.Errorf("endpoint: %w: it does not open: %w", voice.ErrNoMicrophone, err))
			l.waitChange(ctx, l.o.Retry)
			continue
		}
		err = l.capture(ctx, s)
		s.Close()
		if err != nil && ctx.Err() == nil {
			l.log.Error("microphone stopped", "err", err)
			l.setDown(fmt.Errorf("endpoint: %w: it stopped: %w", voice.ErrNoMicrophone, err))
			l.waitChange(ctx, l.o.Retry)
		}
	}
	l.setDown(errStarting)
	return nil
}

// capture reads s until ctx is done, the microphone is muted, or s fails.
func (l *Listener) capture(ctx context.Context, s Stream) error {
	l.mu.Lock()
	l.running, l.openErr = true, nil
	l.stateChanged()
	l.mu.Unlock()
	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // muting ends the read at once
		for {
			if !l.waitChange(cctx, 0) {
				return
			}
			l.mu.Lock()
			muted := l.muted
			l.mu.Unlock()
			if muted {
				cancel()
				return
			}
		}
	}()
	buf := make([]float32, readSize)
	for {
		n, err := s.Read(cctx, buf)
		if err != nil {
			if cctx.Err() != nil {
				return nil
			}
			return err
		}
		chunk := append([]float32(nil), buf[:n]...)
		l.mu.Lock()
		l.ringAt = time.Now()
		l.beat = l.ringAt
		if l.rec != nil {
			select {
			case l.rec.audio <- caught{chunk, l.ringAt}:
			default:
				l.log.Warn("utterance audio dropped: the recorder fell behind")
			}
		}
		l.ring.add(chunk, pcm.FramesIn(l.o.RoomHistory, pcm.SpeechRate))
		l.mu.Unlock()
	}
}

// caught is audio from the microphone and when its last sample was caught.
type caught struct {
	samples []float32
	at      time.Time
}

// alive notes that the capture loop is making progress.
func (l *Listener) alive() {
	l.mu.Lock()
	l.beat = time.Now()
	l.mu.Unlock()
}

// Health reports when the capture loop last made progress (a read, a
// retry, a second while muted) and why the microphone is not capturing:
// nil while it captures, voice.ErrMuted while muted.
func (l *Listener) Health() (last time.Time, down error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.beat, l.openErr
}

// setDown marks the capture stopped for reason and fails the recording
// under way with it.
func (l *Listener) setDown(reason error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running, l.openErr = false, reason
	l.ring.reset()
	l.stateChanged()
	if l.rec != nil {
		select {
		case l.rec.err <- reason:
		default:
		}
	}
}

// stateChanged wakes the recordings waiting for the capture to start.
// Call with mu held.
func (l *Listener) stateChanged() {
	close(l.state)
	l.state = make(chan struct{})
}

// waitChange waits for SetMuted, for d when it is positive, or for ctx; it
// reports false when ctx is done.
func (l *Listener) waitChange(ctx context.Context, d time.Duration) bool {
	var timeout <-chan time.Time
	if d > 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-ctx.Done():
		return false
	case <-l.changed:
	case <-timeout:
	}
	return true
}

// SetMuted closes the capture (true) or opens it again (false).
func (l *Listener) SetMuted(m bool) {
	l.mu.Lock()
	l.muted = m
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default:
	}
}

// Muted reports whether the microphone is muted.
func (l *Listener) Muted() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.muted
}

// Record takes one utterance, starting with the pre-roll. It ends when
// l.End is closed, when ctx is done, at MaxLength, and when l.EndOnSilence
// is set, after the silence following speech (Settle once l.Pauses has
// said the words so far make a whole request). It returns ErrNoSpeech when
// no speech was heard, including when none began within l.StartTimeout.
// The audio returned is trimmed to the speech and a margin around it.
func (l *Listener) Record(ctx context.Context, ls voice.Listen) (voice.Utterance, error) {
	rec := &recording{audio: make(chan caught, 1024), err: make(chan error, 1)}
	l.mu.Lock()
	if l.muted {
		l.mu.Unlock()
		return voice.Utterance{}, voice.ErrMuted
	}
	if !l.running && errors.Is(l.openErr, errStarting) {
		// The capture is starting: a press right at boot waits for it.
		changed := l.state
		l.mu.Unlock()
		select {
		case <-ctx.Done():
			return voice.Utterance{}, ctx.Err()
		case <-changed:
		case <-time.After(startWait):
		}
		l.mu.Lock()
	}
	if !l.running {
		err := l.openErr
		l.mu.Unlock()
		return voice.Utterance{}, err
	}
	past, preAt, pastEnd, said := l.ring.copy(), l.ringAt, l.ring.added, l.said
	l.rec = rec
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		l.rec = nil
		l.mu.Unlock()
	}()

	split := max(len(past)-pcm.FramesIn(l.o.PreRoll, pcm.SpeechRate), 0)
	older, pre := past[:split], past[split:]
	det := l.o.Detector
	det.Reset()
	press := time.Duration(len(pre)) * time.Second / pcm.SpeechRate
	ep := &Endpointer{Silence: l.o.Silence, MinSilence: l.o.MinSilence, MaxSilence: l.o.MaxSilence,
		Settle: l.o.Settle, PauseAfter: l.o.PauseAfter, SoftSilence: l.o.SoftSilence, StartTimeout: ls.StartTimeout, MaxLength: l.o.MaxLength, PressAt: press}
	pastAt := pastEnd - int64(len(past)) // past[0] in the capture's count of samples
	u := utterance{det: det, ep: ep, frame: det.FrameSize(), margin: l.o.Margin, press: len(pre), echo: ls.Echo, pauses: ls.Pauses,
		ends: ls.EndOnSilence, said: said, audioAt: pastAt + int64(len(older))}
	defer func() {
		// The user's words are not the next recording's room.
		if !ep.HasBegun() {
			return
		}
		from, to := ep.Speech()
		l.mu.Lock()
		l.said = [2]int64{u.audioAt + int64(pcm.FramesIn(from-saidMargin, pcm.SpeechRate)), u.audioAt + int64(pcm.FramesIn(to+saidMargin, pcm.SpeechRate))}
		l.mu.Unlock()
	}()
	u.room.window = max(int(roomWindow*pcm.SpeechRate/time.Second)/u.frame, 1)
	u.judgeRoom(older, preAt.Add(-press), pastAt)
	u.add(ctx, pre, preAt)
	for {
		select {
		case <-ctx.Done():
			return voice.Utterance{}, ctx.Err()
		case err := <-rec.err:
			return voice.Utterance{}, err
		case <-ls.End:
			u.drop()
			return u.result(false)
		case whole := <-u.verdict:
			u.verdict = nil
			if !whole {
				ep.Incomplete()
			} else if ep.Complete() == Ended && ls.EndOnSilence {
				return u.result(false)
			}
		case hushed := <-u.murmur:
			u.murmur = nil
			if hushed && ep.Hushed() == Ended && ls.EndOnSilence {
				return u.result(false)
			}
		case c := <-rec.audio:
			switch d := u.add(ctx, c.samples, c.at); {
			case d == Ended && ls.EndOnSilence:
				return u.result(false)
			case d == NoSpeech:
				return voice.Utterance{}, voice.ErrNoSpeech
			case d == TooLong:
				l.log.Warn("utterance cut at the maximum length", "max", ep.maxLength())
				u.drop()
				return u.result(true)
			}
		}
	}
}

// utterance is the audio of a recording and the endpointing over it.
type utterance struct {
	det    Detector
	ep     *Endpointer
	frame  int
	margin time.Duration        // kept after the speech
	press  int                  // the sample of the press: the pre-roll comes before it
	echo   func(time.Time) bool // reports the box's own sound caught at a moment; nil for never
	// said is where the user spoke in the last recording, and audioAt
	// where audio[0] was caught, both in the capture's count of samples:
	// the user's last request is not the room's voices.
	said    [2]int64
	audioAt int64
	audio   []float32
	scored  int // samples scored so far
	// pauses is told of the pauses; verdict is its answer for the current
	// one (nil when there is none).
	pauses  voice.Pauses
	verdict <-chan bool
	murmur  <-chan bool // the answer to Murmuring: the soft sounds hold no words
	ends    bool        // silence ends the utterance (Listen.EndOnSilence): Murmuring is worth asking
	// band filters frames to the voice band; levels are the sorted band
	// loudnesses of the frames scored as speech so far.
	band   [2]biquad
	buf    []float32
	levels []float64
	soft   time.Duration // speech let through by the lower bar since the last at the higher
	room   roomVoices
}

// A sound too far below the speaker's level (the 9th decile of the
// voice-band loudness of the frames scored speech so far) is not them,
// once they have begun: another voice further off, the room's own sounds.
// A sound within near dB of it is theirs; one between near and far only
// as a word's soft ending, for softTail after their last near one, and
// never once the speech has paused.
const (
	near     = 20.0
	far      = 24.0
	softTail = 200 * time.Millisecond
)

// lead is the audio kept before the detected start of speech.
const lead = time.Second

// saidMargin widens the user's words in a recording, on both sides, where
// they are set aside from the next recording's room: a word's soft edges.
const saidMargin = 250 * time.Millisecond

// add appends audio whose last sample was caught at at, scores the whole
// frames it completes, and returns the first decision other than Continue
// and Began, if any; it tells pauses of the pauses.
func (u *utterance) add(ctx context.Context, chunk []float32, at time.Time) Decision {
	u.audio = append(u.audio, chunk...)
	for u.scored+u.frame <= len(u.audio) {
		f := u.audio[u.scored : u.scored+u.frame]
		u.scored += u.frame
		p := u.det.Speech(f)
		// What the microphone caught while the box itself was sounding
		// (its earcon, the end of its last answer in the audio from before
		// the press) is never the user: it is scored, so the detector
		// keeps its state, and then counted as silence.
		own := u.echo != nil && u.echo(at.Add(-time.Duration(len(u.audio)-u.scored)*time.Second/pcm.SpeechRate))
		if own {
			p = 0
		}
		p, kind := u.speaker(f, p, own || u.saidAt(u.audioAt+int64(u.scored-u.frame)))
		length := time.Duration(u.frame) * time.Second / pcm.SpeechRate
		var d Decision
		switch kind {
		case soft:
			d = u.ep.PushSoft(length)
		case quiet:
			d = u.ep.PushQuiet(p, length)
		default:
			d = u.ep.Push(p, length)
		}
		switch d {
		case Continue, Began:
		case Paused:
			if u.pauses != nil {
				r, _ := u.result(false)
				u.verdict = u.pauses.Pause(ctx, r)
			}
		case Resumed:
			if u.pauses != nil {
				u.pauses.Resume()
				u.verdict, u.murmur = nil, nil
			}
		case Murmuring:
			if u.pauses != nil && u.ends {
				u.murmur = u.pauses.Murmur(ctx, u.clip(len(u.audio)))
			}
		default:
			return d
		}
	}
	return Continue
}

// judgeRoom scores the audio from before the pre-roll for the room's
// voices alone (roomVoices), then resets the detector: the utterance is
// scored from the pre-roll on as though that audio had never been heard.
// The audio's last sample was caught at at, and its first is audioAt in
// the capture's count.
func (u *utterance) judgeRoom(audio []float32, at time.Time, audioAt int64) {
	if len(audio) < u.frame {
		return
	}
	trim := len(audio) % u.frame
	audio = audio[trim:]
	for i := 0; i < len(audio); i += u.frame {
		f := audio[i : i+u.frame]
		p := u.det.Speech(f)
		own := u.echo != nil && u.echo(at.Add(-time.Duration(len(audio)-i-u.frame)*time.Second/pcm.SpeechRate))
		u.room.add(u.loudness(f), p, true, own || u.saidAt(audioAt+int64(trim+i)))
	}
	u.det.Reset()
}

// loudness is a frame's loudness in the voice band, in dBFS.
func (u *utterance) loudness(f []float32) float64 {
	if u.band[0].b0 == 0 {
		u.band = voiceBand()
	}
	u.buf = append(u.buf[:0], f...)
	u.band[0].run(u.buf)
	u.band[1].run(u.buf)
	return Loudness(u.buf)
}

// saidAt reports whether the frame that starts at sample x (in the
// capture's count) holds some of the user's last request.
func (u *utterance) saidAt(x int64) bool {
	return x+int64(u.frame) > u.said[0] && x < u.said[1]
}

// speaker scores a frame for the user's speech: p, unless the speech
// has begun and the frame is too quiet to be the user (see near), which
// makes it silence, or no louder than the other voices in the room (see
// roomVoices), which makes it soft, or well under the user's loudest
// where the room holds voices, which makes it quiet. It returns the kind
// of frame to push.
func (u *utterance) speaker(f []float32, p float32, aside bool) (float32, frameKind) {
	db := u.loudness(f)
	kind := u.room.add(db, p, u.scored <= u.press, aside)
	if p < keepLevel {
		return p, loud
	}
	if u.ep.HasBegun() && kind == soft {
		if u.room.clear() {
			return 0, loud
		}
		return 0, soft
	}
	if u.ep.HasBegun() && len(u.levels) > 0 {
		level := u.levels[len(u.levels)*9/10]
		switch {
		case db >= level-near:
			u.soft = 0
		case db >= level-far && u.soft < softTail && !u.ep.pausing():
			u.soft += time.Duration(len(f)) * time.Second / pcm.SpeechRate
		default:
			return 0, loud
		}
	}
	if !u.ep.HasBegun() {
		kind = loud
	}
	if p >= startLevel && kind == loud {
		i, _ := slices.BinarySearch(u.levels, db)
		u.levels = slices.Insert(u.levels, i, db)
	}
	return p, kind
}

// roomVoices tells the user's voice from other voices in the room (a
// television, people talking) by loudness over roomWindow. When the
// detector took roomSpeech or more of the audio before the press for
// speech (Options.RoomHistory, less the box's own sound and the user's
// words in the last recording), the room holds voices: their level is the
// roomPercentile of that audio's. After the press, a stretch within
// roomMargin of that level and at least userGap under the user's loudest
// is soft: the user has paused, or is saying something no louder than the
// room, which only words can tell apart (see Endpointer). Once the user's
// loudest stands clearGap or more above the room's voices, their quiet
// words do too, and a soft stretch is plain silence; and then a stretch
// clearGap or more under the user's loudest is the room's too, though it
// be louder than the room was before the press (voices turned up or come
// closer since). Any other stretch userGap or more under the user's
// loudest is quiet: the room's voices turned up, or the user's quiet
// words, which again only words can tell apart (see
// Endpointer.PushQuiet).
type roomVoices struct {
	window int       // frames in roomWindow
	power  []float64 // the last window frames' power, the oldest first
	before []float64 // the smoothed levels before the press, in dBFS
	voices int       // of them, the frames scored as speech
	level  float64   // the room's voices, once judged
	judged bool      // the press has passed and the room been judged
	talk   bool      // the room holds voices
	peak   float64   // the user's loudest stretch since the press
}

// The room's voices, as the endpointing corpus (endpointtest) set them:
// babble at 20 and 10 dB under the user ends a whole request as in a
// quiet room, and no recording ends early in any noise down to 10 dB. The
// user's quiet words are what limits them: a real recording's "but he
// could", said as softly as babble 10 dB under the user, is cut short when
// the soft silence that ends (Endpointer.SoftSilence) is under 1.2 s, or
// when clearGap is 16 dB; at 5 dB one recording of 54 is cut under babble
// (two with a 5 dB margin).
const (
	roomWindow     = 120 * time.Millisecond // loudness is measured over it
	roomSpeech     = 0.15                   // of the audio before the press, scored as speech
	roomPercentile = 0.85                   // the room's voices' level among that audio's
	roomMargin     = 4.0                    // dB over the room's voices that is still them
	userGap        = 8.0                    // dB under the user's loudest that may be the room
	clearGap       = 20.0                   // dB of the user's loudest over the room's voices that tells them apart
)

// clear reports a user who stands clearGap or more above the room's voices.
func (r *roomVoices) clear() bool { return r.talk && r.peak-r.level >= clearGap }

// add takes a frame's band loudness db and speech score p, before or after
// the press, and tells whether the stretch it ends is soft, quiet (well
// under the user's loudest, but louder than the room's voices were: their
// voices turned up, or the user's quiet words), or neither (loud). A frame
// set aside is neither the room's nor the user's now (the box's own sound,
// its earcon or its last answer; the user's words in the last recording):
// it is left out, and the loudness is measured afresh after it.
func (r *roomVoices) add(db float64, p float32, before, aside bool) frameKind {
	if aside {
		r.power = r.power[:0]
		return loud
	}
	if len(r.power) == r.window {
		r.power = append(r.power[:0], r.power[1:]...)
	}
	r.power = append(r.power, math.Pow(10, db/10))
	var sum float64
	for _, w := range r.power {
		sum += w
	}
	level := 10 * math.Log10(sum/float64(len(r.power)))
	if before {
		r.before = append(r.before, level)
		if p >= keepLevel {
			r.voices++
		}
		return loud
	}
	if !r.judged {
		r.judged = true
		if n := len(r.before); n > 0 && float64(r.voices) >= roomSpeech*float64(n) {
			slices.Sort(r.before)
			r.level, r.talk = r.before[int(roomPercentile*float64(n))], true
		}
		r.peak = level
	}
	r.peak = max(r.peak, level)
	switch {
	case !r.talk || level >= r.peak-userGap:
		return loud
	case level < r.level+roomMargin || level < r.peak-clearGap:
		return soft
	}
	return quiet
}

// drop tells pauses that the speech went on after the last pause when
// quiet speech came after it (Endpointer.Stale): the utterance ends
// before that speech has paused, and its words must be worked out anew.
func (u *utterance) drop() {
	if u.pauses != nil && u.ep.Stale() {
		u.pauses.Resume()
		u.verdict, u.murmur = nil, nil
	}
}

// result is the utterance trimmed to its speech, or ErrNoSpeech.
func (u *utterance) result(cut bool) (voice.Utterance, error) {
	if !u.ep.HasBegun() {
		return voice.Utterance{}, voice.ErrNoSpeech
	}
	_, to := u.ep.Speech()
	r := u.clip(min(pcm.FramesIn(to+u.margin, pcm.SpeechRate), len(u.audio)))
	r.Cut = cut
	return r, nil
}

// clip is the utterance from its lead before the speech up to sample b:
// the speech and its margin (result), or all the audio so far (Murmuring).
// Call it once the speech has begun.
func (u *utterance) clip(b int) voice.Utterance {
	from, to := u.ep.Speech()
	a := min(u.press, pcm.FramesIn(max(from-lead, 0), pcm.SpeechRate))
	rate := time.Duration(pcm.SpeechRate)
	return voice.Utterance{
		Audio:  pcm.Buffer{Rate: pcm.SpeechRate, Channels: 1, Samples: append([]float32(nil), u.audio[a:b]...)},
		Offset: time.Duration(a-u.press) * time.Second / rate,
		Speech: [2]time.Duration{from - time.Duration(a)*time.Second/rate, to - time.Duration(a)*time.Second/rate},
	}
}

// history is the last stretch of audio captured, in a buffer written
// round and round (the capture loop adds to it every 20 ms).
type history struct {
	buf   []float32
	next  int   // where the next sample goes
	full  bool  // buf has wrapped
	added int64 // samples ever added: the capture's count
}

// add appends chunk, keeping the last n samples (n never changes).
func (h *history) add(chunk []float32, n int) {
	if h.buf == nil {
		h.buf = make([]float32, n)
	}
	h.added += int64(len(chunk))
	for len(chunk) > 0 {
		c := copy(h.buf[h.next:], chunk)
		chunk, h.next = chunk[c:], h.next+c
		if h.next == len(h.buf) {
			h.next, h.full = 0, true
		}
	}
}

// copy returns the audio held, the oldest first.
func (h *history) copy() []float32 {
	if !h.full {
		return append([]float32(nil), h.buf[:h.next]...)
	}
	return append(append(make([]float32, 0, len(h.buf)), h.buf[h.next:]...), h.buf[:h.next]...)
}

// reset empties the buffer; the count goes on.
func (h *history) reset() { h.next, h.full = 0, false }
